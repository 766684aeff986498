// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace doctor::formats {

// Looks up a device name in pci.ids text (the pciutils database): the "\tDDDD  name" line under
// the "VVVV  vendor" line. Returns nullopt if either is not listed. Linear in the text size.
std::optional<std::string>
lookup_pci_name(std::string_view pci_ids, std::uint32_t vendor_id, std::uint32_t device_id);

} // namespace doctor::formats
