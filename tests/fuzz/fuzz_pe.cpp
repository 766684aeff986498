// SPDX-License-Identifier: MIT
#include <doctor/formats/pe.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  volatile bool looks_like_pe = doctor::formats::is_pe(bytes);
  (void)looks_like_pe;
  auto info = doctor::formats::parse_pe(bytes);
  if (info) {
    // Every string must be a copy that lives on its own; touching them lets ASan check that.
    std::size_t n = info->machine_name.size();
    for (const auto& v :
         {&info->imports, &info->delay_imports, &info->section_names, &info->problems}) {
      for (const auto& s : *v) {
        n += s.size();
      }
    }
    if (info->version) {
      n += info->version->file_version.size() + info->version->product_name.size()
           + info->version->fixed_file_version.size();
    }
    volatile std::size_t sink = n;
    (void)sink;
  }
  return 0;
}
