// SPDX-License-Identifier: MIT
// One target for every parser of facts/python_literals.hpp and facts/python_files.hpp: the first
// byte picks the parser, the rest is the file.
#include <doctor/formats/python_files.hpp>
#include <doctor/formats/python_literals.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  using namespace doctor::formats;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 12) {
  case 0:
    parse_python_literal(text);
    break;
  case 1:
    parse_python_assignments(text);
    break;
  case 2:
    parse_torch_version_py(text);
    break;
  case 3:
    parse_tensorflow_build_info(text);
    break;
  case 4:
    parse_jax_version_py(text);
    break;
  case 5:
    parse_paddle_version_py(text);
    break;
  case 6:
    parse_onnxruntime_build_info(text);
    break;
  case 7:
    parse_pyvenv_cfg_version(text);
    pyvenv_cfg_includes_system_site(text);
    parse_store_python_folder(text);
    break;
  case 8:
    parse_pyenv_versions(text);
    break;
  case 9:
    parse_conda_environments_txt(text);
    break;
  case 10:
    parse_jaxlib_local_version(text);
    jax_plugin_cuda_major(text);
    break;
  default:
    normalize_tensorflow_cuda_version(text);
    normalize_tensorflow_cudnn_version(text);
    python_version_from_conda_meta(text);
    python_version_from_name(text);
    break;
  }
  return 0;
}
