// SPDX-License-Identifier: MIT
#include <doctor/formats/ld_so_cache.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto records = doctor::formats::parse_ld_so_cache(bytes);
  if (records) {
    for (const auto& r : *records) {
      // Every string must lie inside the input; touching them lets ASan check that.
      volatile std::size_t n = r.name.size() + r.path.size();
      (void)n;
    }
  }
  return 0;
}
