// SPDX-License-Identifier: MIT
#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/elf.hpp>
#include <doctor/formats/elf_reader.hpp>

#include <algorithm>

namespace doctor::formats {

namespace {

constexpr std::uint64_t k_sht_dynsym = 11;
constexpr std::uint64_t k_max_symbols = std::uint64_t{4} << 20U;
constexpr std::uint64_t k_max_name = 4096;

struct Section {
  std::uint64_t type = 0;
  std::uint64_t addr = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t link = 0;
  std::uint64_t entsize = 0;
};

} // namespace

std::vector<ElfObject> read_elf_objects(std::string_view data,
                                        const std::vector<std::string>& names,
                                        std::uint64_t max_size) {
  std::vector<ElfObject> out;
  if (!is_elf(data) || data.size() < 52 || names.empty()) {
    return out;
  }
  const bool is64 = static_cast<unsigned char>(data[4]) == 2;
  const bool big = static_cast<unsigned char>(data[5]) == 2;
  if (is64 && data.size() < 64) {
    return out;
  }
  const ByteReader v(data, big ? ByteOrder::big : ByteOrder::little);
  const std::uint64_t shoff = is64 ? v.uint(0x28, 8) : v.uint(0x20, 4);
  const std::uint64_t shentsize = v.uint(is64 ? 0x3A : 0x2E, 2);
  const std::uint64_t shnum = v.uint(is64 ? 0x3C : 0x30, 2);
  const std::uint64_t min_entsize = is64 ? 64 : 40;
  if (shoff == 0 || shentsize < min_entsize || shnum == 0) {
    return out;
  }
  auto section = [&](std::uint64_t i) {
    const std::uint64_t at = shoff + i * shentsize;
    Section s;
    if (i >= shnum || !v.has(at, min_entsize)) {
      return s;
    }
    s.type = v.uint(at + 4, 4);
    s.addr = is64 ? v.uint(at + 16, 8) : v.uint(at + 12, 4);
    s.offset = is64 ? v.uint(at + 24, 8) : v.uint(at + 16, 4);
    s.size = is64 ? v.uint(at + 32, 8) : v.uint(at + 20, 4);
    s.link = v.uint(at + (is64 ? 40 : 24), 4);
    s.entsize = is64 ? v.uint(at + 56, 8) : v.uint(at + 36, 4);
    return s;
  };
  const std::uint64_t sym_size = is64 ? 24 : 16;
  for (std::uint64_t i = 0; i < shnum && out.size() < names.size(); ++i) {
    const Section symtab = section(i);
    if (symtab.type != k_sht_dynsym || symtab.entsize < sym_size
        || !v.has(symtab.offset, symtab.size)) {
      continue;
    }
    const Section strtab = section(symtab.link);
    if (!v.has(strtab.offset, strtab.size)) {
      continue;
    }
    const std::uint64_t count = std::min(symtab.size / symtab.entsize, k_max_symbols);
    for (std::uint64_t k = 1; k < count && out.size() < names.size(); ++k) {
      const std::uint64_t at = symtab.offset + k * symtab.entsize;
      const std::uint64_t name_off = v.uint(at, 4);
      const std::uint64_t value = is64 ? v.uint(at + 8, 8) : v.uint(at + 4, 4);
      const std::uint64_t size = is64 ? v.uint(at + 16, 8) : v.uint(at + 8, 4);
      const std::uint64_t shndx = v.uint(at + (is64 ? 6 : 14), 2);
      if (size == 0 || size > max_size || shndx == 0 || shndx >= shnum || name_off >= strtab.size) {
        continue;
      }
      const auto name =
          v.c_string(strtab.offset + name_off, k_max_name, strtab.offset + strtab.size);
      if (!name || std::find(names.begin(), names.end(), *name) == names.end()) {
        continue;
      }
      // The object lies in section `shndx`: its file offset follows from the section's address.
      const Section home = section(shndx);
      if (home.type == detail::k_sht_nobits || value < home.addr || value - home.addr > home.size
          || size > home.size - (value - home.addr)) {
        continue;
      }
      const std::uint64_t file_at = home.offset + (value - home.addr);
      if (!v.has(file_at, size)) {
        continue;
      }
      ElfObject obj;
      obj.name = std::string(*name);
      obj.bytes = std::string(data.substr(file_at, size));
      if (size == 1 || size == 2 || size == 4 || size == 8) {
        obj.value = v.uint(file_at, static_cast<unsigned>(size));
      }
      out.push_back(std::move(obj));
    }
  }
  return out;
}

} // namespace doctor::formats
