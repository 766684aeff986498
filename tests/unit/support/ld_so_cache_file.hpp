// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace doctor::test {

// A little-endian new-format ld.so.cache ("glibc-ld.so.cache1.1") mapping each name to a path,
// in the order given, all x86-64 libc6 entries. test_ld_so_cache.cpp covers the format itself.
inline std::string ld_so_cache(const std::vector<std::pair<std::string, std::string>>& libs) {
  auto u32 = [](std::string& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
    }
  };
  std::string table;
  std::string entries;
  const auto base = static_cast<std::uint32_t>(48 + 24 * libs.size());
  for (const auto& [name, path] : libs) {
    u32(entries, 0x0303); // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
    u32(entries, base + static_cast<std::uint32_t>(table.size()));
    table += name + '\0';
    u32(entries, base + static_cast<std::uint32_t>(table.size()));
    table += path + '\0';
    entries.append(12, '\0'); // osversion, hwcap
  }
  std::string out = "glibc-ld.so.cache1.1";
  u32(out, static_cast<std::uint32_t>(libs.size()));
  u32(out, static_cast<std::uint32_t>(table.size()));
  out.push_back(2); // little-endian
  out.append(19, '\0');
  return out + entries + table;
}

} // namespace doctor::test
