// SPDX-License-Identifier: MIT
#include <doctor/formats/pci_ids.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::formats {

std::optional<std::string>
lookup_pci_name(std::string_view pci_ids, std::uint32_t vendor_id, std::uint32_t device_id) {
  const std::string vendor = fmt::format("{:04x}  ", vendor_id);
  const std::string device = fmt::format("\t{:04x}  ", device_id);
  bool in_vendor = false;
  std::size_t pos = 0;
  while (pos < pci_ids.size()) {
    auto end = pci_ids.find('\n', pos);
    if (end == std::string_view::npos) {
      end = pci_ids.size();
    }
    const std::string_view line = pci_ids.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line.front() == '#') {
      continue;
    }
    if (line.front() != '\t') {
      if (in_vendor) {
        return std::nullopt; // the vendor's block ended without the device
      }
      in_vendor = line.starts_with(vendor);
      continue;
    }
    if (in_vendor && line.starts_with(device)) {
      return util::sanitize(util::trim(line.substr(device.size())), 120);
    }
  }
  return std::nullopt;
}

} // namespace doctor::formats
