// SPDX-License-Identifier: MIT
// One target for every small-file parser of facts/text_formats.hpp: the first byte picks the
// parser, the rest is the file.
#include <doctor/formats/pci_ids.hpp>
#include <doctor/formats/text_formats.hpp>

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
    parse_os_release(text);
    break;
  case 1:
    parse_nvidia_proc_version(text);
    break;
  case 2:
    parse_meminfo(text);
    break;
  case 3:
    parse_cpuinfo(text);
    break;
  case 4:
    parse_proc_modules(text);
    parse_modules_dep_nvidia(text);
    break;
  case 5:
    parse_cuda_version_json(text);
    break;
  case 6:
    parse_cuda_version_txt(text);
    break;
  case 7:
    parse_cudnn_header(text);
    parse_cuda_header(text);
    break;
  case 8:
    parse_dist_info_dir(text);
    break;
  case 9:
    version_after_stem(text, "libcuda.so");
    break;
  case 10:
    lookup_pci_name(text, 0x10de, 0x2330);
    break;
  default:
    doctor::Version::parse(text);
    doctor::Version::parse_prefix(text);
    break;
  }
  return 0;
}
