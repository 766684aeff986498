// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Parsers for the small files that say how a Python framework was built (torch/version.py,
// TensorFlow's build_info.py, …) and for the files that describe a Python environment
// (pyvenv.cfg, pyenv's version file, conda's environments.txt).
//
// Python files are read as module-level literal assignments (python_literals.hpp); nothing is
// ever evaluated or imported. Pure functions over text: any bytes are accepted (truncated,
// binary, CRLF, huge lines), the work is linear in the input, nothing throws, and what cannot be
// read is left out instead of guessed. tests/unit/data/python/README.md describes the formats and
// the wheels they were checked against.
namespace doctor::formats {

// What torch/version.py records about a torch build.
struct TorchVersionFile {
  std::optional<std::string> version; // __version__: "2.5.1+cu124"
  bool cuda_recorded = false;         // `cuda` is assigned a string or None
  std::optional<std::string> cuda;    // "12.4"; nullopt for `cuda = None` (a CPU or ROCm build)
  std::optional<std::string> hip;     // a ROCm build's HIP version
  std::optional<std::string> rocm;    // a ROCm build's ROCm version (torch >= 2.1x)
  std::optional<std::string> git_version;
  std::optional<bool> debug;
  // Names the file binds in a form that is not evaluated (`cuda = detect()`, `cuda += x`), with
  // the reason (python_literals.hpp): their fields above are empty, never an earlier value.
  std::map<std::string, std::string> unknown;
};

// Parses torch/version.py (`cuda = '11.7'` before torch 2.1, `cuda: Optional[str] = '12.4'`
// since). Returns nullopt if it assigns neither `__version__` nor `cuda`, in any form.
std::optional<TorchVersionFile> parse_torch_version_py(std::string_view text);

// What TensorFlow's tensorflow/python/platform/build_info.py records.
struct TensorflowBuildInfo {
  std::string layout; // "variables" (TF <= 2.2), "dict" (TF 2.3), "ordered_dict" (TF >= 2.4)
  std::optional<bool> is_cuda_build;
  std::optional<bool> is_rocm_build;
  std::optional<bool> is_tensorrt_build;
  std::optional<std::string> cuda_version;      // normalised: "11.2"
  std::optional<std::string> cuda_version_raw;  // as written: "64_112" on Windows
  std::optional<std::string> cudnn_version;     // normalised: "8"
  std::optional<std::string> cudnn_version_raw; // as written: "64_8" on Windows
  std::optional<std::vector<std::string>> cuda_compute_capabilities; // "sm_35", "compute_80"
  std::optional<std::string> cudart_dll_name;                        // Windows: "cudart64_112.dll"
  std::optional<std::string> cudnn_dll_name;                         // Windows: "cudnn64_8.dll"
  std::optional<std::string> msvcp_dll_names; // Windows: "msvcp140.dll,msvcp140_1.dll"
};

// Parses build_info.py in any of its three layouts: module variables (`is_cuda_build = True`,
// `cuda_version_number = '10.1'`), `build_info = {...}`, or `build_info =
// collections.OrderedDict([...])`. Returns nullopt if none of the known keys is found.
std::optional<TensorflowBuildInfo> parse_tensorflow_build_info(std::string_view text);

// Normalises a CUDA version as TensorFlow's Windows builds write it: "64_112" -> "11.2",
// "64_101" -> "10.1", "64_11" -> "11". Any other text is returned unchanged.
std::string normalize_tensorflow_cuda_version(std::string_view raw);

// Normalises a cuDNN version as TensorFlow's Windows builds write it: "64_8" -> "8". Any other
// text is returned unchanged.
std::string normalize_tensorflow_cudnn_version(std::string_view raw);

// Returns the version recorded in jax/version.py or jaxlib/version.py: `_release_version` when it
// is a string (release wheels), else `_version`, else a literal `__version__`; nullopt if none,
// or if the first of them that is bound is bound in a form that is not evaluated.
std::optional<std::string> parse_jax_version_py(std::string_view text);

// CUDA and cuDNN versions named by the local version label of an old jaxlib wheel that bundled
// CUDA support (before the jax-cudaNN-plugin wheels).
struct JaxlibBuildTag {
  std::optional<std::string> cuda;  // "12", "11.1"
  std::optional<std::string> cudnn; // "8.8", "8.0.5"
};

// Parses the local label of a jaxlib version: "0.4.7+cuda12.cudnn88" -> cuda "12", cudnn "8.8";
// "0.3.25+cuda11.cudnn805" -> "11", "8.0.5"; "0.1.69+cuda111" -> "11.1". Returns nullopt if the
// version has no label that names a CUDA version.
std::optional<JaxlibBuildTag> parse_jaxlib_local_version(std::string_view version);

// Returns the CUDA major version of a JAX CUDA plugin package from its normalised name
// ("jax-cuda12-plugin", "jax-cuda12-pjrt" -> "12"); nullopt for any other name.
std::optional<std::string> jax_plugin_cuda_major(std::string_view package_name);

// What paddle/version/__init__.py (Paddle >= 2) or paddle/version.py (Paddle 1.x) records.
struct PaddleVersionFile {
  std::optional<std::string> full_version;  // "2.6.1"
  bool cuda_recorded = false;               // `cuda_version` is assigned ('False' on CPU builds)
  std::optional<std::string> cuda_version;  // "11.8"; nullopt for 'False'
  std::optional<std::string> cudnn_version; // "8.6.0"; nullopt for 'False'
  std::optional<bool> with_gpu;             // `with_gpu = 'True'`, where a build writes it
  std::optional<std::vector<std::string>>
      cuda_archs; // `compiled_cuda_archs` (Paddle 3), as written
  std::optional<std::string> commit;
};

// Parses Paddle's version file. Returns nullopt if it assigns none of full_version, major and
// cuda_version.
std::optional<PaddleVersionFile> parse_paddle_version_py(std::string_view text);

// What onnxruntime/capi/build_and_package_info.py records (written by onnxruntime >= 1.21 and by
// older training builds; absent from e.g. onnxruntime-gpu 1.18 and 1.20).
struct OnnxruntimeBuildInfo {
  std::optional<std::string> package_name; // "onnxruntime-gpu"
  std::optional<std::string> version;      // __version__
  std::optional<std::string> cuda_version; // "12.2"; only CUDA packages write it
  std::optional<std::string> cudnn_version;
  std::optional<std::string> rocm_version;
  std::optional<std::string> cudart_version; // training builds: an integer such as "11080"
};

// Parses build_and_package_info.py. Returns nullopt if it assigns neither package_name nor
// __version__.
std::optional<OnnxruntimeBuildInfo> parse_onnxruntime_build_info(std::string_view text);

// Returns the Python version a venv's pyvenv.cfg records: `version = 3.11.7` (venv) or
// `version_info = 3.11.7.final.0` (virtualenv, uv), as "3.11.7"; nullopt if neither is there.
std::optional<std::string> parse_pyvenv_cfg_version(std::string_view text);

// Whether a venv's pyvenv.cfg sets `include-system-site-packages = true` (then the base
// interpreter's site-packages and the user's site-packages stay on sys.path); false when the
// key is absent or has any other value, as site.py reads it.
bool pyvenv_cfg_includes_system_site(std::string_view text);

// The Microsoft Store's Python package, from the name of its data folder under
// %LOCALAPPDATA%\Packages ("PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0", the package
// family name) or of its install folder under Program Files\WindowsApps
// ("PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0", the full name).
struct StorePythonName {
  std::string minor_version;   // "3.11"
  std::string publisher_id;    // "qbz5n2kfra8p0"
  std::string package_version; // "3.11.2544.0" (install folders only)
  std::string architecture;    // "x64" (install folders only)
  bool install_folder = false; // the full name of an install folder, not a family name
};

// Parses a Store Python folder name (compared without case). Returns nullopt for any other name.
std::optional<StorePythonName> parse_store_python_folder(std::string_view name);

// Returns the version of a conda-meta record of the python package
// ("python-3.11.7-h955ad1f_0.json" -> "3.11.7"); nullopt for any other file name
// ("python-dateutil-2.8.2-pyhd3eb1b0_0.json", "python_abi-3.11-4_cp311.json").
std::optional<std::string> python_version_from_conda_meta(std::string_view file_name);

// Returns "3.11" for an interpreter or lib directory name "python3.11" (also "python3.13t");
// nullopt for anything else ("python3", "python3.11-config").
std::optional<std::string> python_version_from_name(std::string_view name);

// Returns the version names in pyenv's version file or a PYENV_VERSION value, in order: names
// separated by whitespace or ':', '#' comment lines skipped; names with "." or ".." path
// components, control characters or more than 255 bytes are dropped; at most 64 names.
std::vector<std::string> parse_pyenv_versions(std::string_view text);

// Returns the environment prefixes listed in conda's environments.txt: one absolute path a line,
// without a trailing slash; other lines are skipped; at most 1024 entries.
std::vector<std::string> parse_conda_environments_txt(std::string_view text);

} // namespace doctor::formats
