// SPDX-License-Identifier: MIT
// The decoders of registry values and version-resource strings the live Windows collectors use
// (collect/windows/windows_values.hpp): the first byte picks the decoder, the rest is the text
// (for authenticode_verdict, its first four bytes the code). On a hostile machine every one of
// these strings is the attacker's: a Zone.Identifier stream is written by whoever made the file.
#include <doctor/collect/windows/windows_values.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  using namespace doctor::collect;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 8) {
  case 0: {
    // A REG_MULTI_SZ: entries split at NUL, as the registry reader gives them.
    std::vector<std::string> entries;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '\0') {
        entries.emplace_back(text.substr(start, i - start));
        start = i + 1;
      }
    }
    parse_paging_files(entries);
    break;
  }
  case 1:
    parse_pci_hardware_id(text);
    break;
  case 2:
    corrected_product_name(text, size > 1 ? static_cast<std::uint32_t>(data[1]) * 200U : 0U);
    break;
  case 3:
    cudnn_dll_major(text);
    break;
  case 4:
    version_resource_number(text);
    break;
  case 5:
    cudart_version_from_resource(text);
    break;
  case 6:
    parse_zone_identifier(text);
    break;
  default: {
    std::uint32_t code = 0;
    for (std::size_t i = 0; i < 4 && i < text.size(); ++i) {
      code = (code << 8) | static_cast<unsigned char>(text[i]);
    }
    authenticode_verdict(code);
    break;
  }
  }
  return 0;
}
