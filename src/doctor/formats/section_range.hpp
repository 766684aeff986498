// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace doctor::formats {

// Where a section's bytes lie in its file, as its header says; not checked against the file's
// size (a truncated file has sections that end past it).
struct SectionRange {
  std::uint64_t offset = 0;
  std::uint64_t size = 0; // 0 for a section with no bytes in the file (SHT_NOBITS, .bss)
  bool operator==(const SectionRange&) const = default;
};

} // namespace doctor::formats
