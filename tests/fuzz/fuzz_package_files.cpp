// SPDX-License-Identifier: MIT
// The package-manager record parsers of formats/package_files.hpp: the first byte picks the
// parser, the rest is the file. Whatever the input, what comes out keeps the parsers' promises.
#include <doctor/formats/package_files.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  using namespace doctor::formats;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 5) {
  case 0:
    for (const PipRecordLine& line : parse_pip_record(text)) {
      check(!line.path.empty() && line.path.front() != '"');
    }
    break;
  case 1:
    for (const auto& [path, md5] : parse_dpkg_md5sums(text)) {
      check(!path.empty() && path.front() == '/' && md5.size() == 32);
    }
    break;
  case 2:
    for (std::string_view path : parse_dpkg_list(text)) {
      check(!path.empty() && path.front() == '/');
    }
    (void)parse_dpkg_status_versions(text, {"libcudnn9-cuda-12", "nvidia-driver"});
    break;
  case 3:
    if (auto record = parse_conda_meta(text)) {
      for (const CondaFile& f : record->files) {
        (void)f;
      }
    }
    break;
  default:
    if (auto split = split_conda_meta_stem(text)) {
      check(split->first.size() + split->second.size() + 2 <= text.size());
    }
    break;
  }
  return 0;
}
