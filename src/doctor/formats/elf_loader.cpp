// SPDX-License-Identifier: MIT
// The few reads ld.so makes of an ELF file: its header, program headers, dynamic segment and the
// strings that segment names. parse_elf reads the same fields from a mapping of the whole file,
// with its section headers, section names, version tables and notes; for a tree of dependencies
// the loader model needs none of those, and a mapping of each library costs more than the reads.
#include <doctor/formats/elf.hpp>
#include <doctor/formats/elf_reader.hpp>

#include <algorithm>
#include <utility>

namespace doctor::formats {

namespace {

using detail::k_max_string;

constexpr std::size_t k_head = 4096;          // the first read: the ELF header and, mostly, the
                                              // program headers
constexpr std::uint64_t k_string_tail = 4096; // read past the last string offset of a group
constexpr std::uint64_t k_string_gap = 16384; // offsets closer than this share one read

// Reads exactly `size` bytes at `offset` (the caller has checked that they lie inside the file).
bool read_exactly(const ReadAt& read, std::uint64_t offset, std::uint64_t size, std::string& out) {
  return read(offset, static_cast<std::size_t>(size), out) && out.size() == size;
}

// The strings at `indexes` of the string table at `table_offset` of `table_size` bytes, each as
// parse_elf's string_at() reads it; nullopt where one is not there in full (parse_elf records a
// problem there).
std::optional<std::vector<std::pair<std::uint64_t, std::string>>>
read_strings(const ReadAt& read,
             std::uint64_t table_offset,
             std::uint64_t table_size,
             std::vector<std::uint64_t> indexes) {
  std::sort(indexes.begin(), indexes.end());
  indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
  std::vector<std::pair<std::uint64_t, std::string>> out;
  std::string window;
  for (std::size_t i = 0; i < indexes.size();) {
    const std::uint64_t first = indexes[i];
    std::size_t last = i;
    while (last + 1 < indexes.size() && indexes[last + 1] - first < k_string_gap) {
      ++last;
    }
    const std::uint64_t size = std::min(indexes[last] - first + k_string_tail, table_size - first);
    if (!read_exactly(read, table_offset + first, size, window)) {
      return std::nullopt;
    }
    for (; i <= last; ++i) {
      const std::string_view rest = std::string_view(window).substr(indexes[i] - first);
      const std::size_t nul = rest.find('\0');
      if (nul == std::string_view::npos || nul >= k_max_string) {
        return std::nullopt;
      }
      out.emplace_back(indexes[i], std::string(rest.substr(0, nul)));
    }
  }
  return out;
}

} // namespace

// Mirrors parse_elf (elf.cpp) step by step for the plain case and gives up wherever parse_elf
// would take another way or record a problem: the program header table, a PT_DYNAMIC of at least
// one entry inside the file (parse_elf uses the first PT_DYNAMIC, else the SHT_DYNAMIC section),
// DT_STRTAB through the first PT_LOAD that covers it (else through sections) with DT_STRSZ, every
// string inside the table and terminated within k_max_string bytes. parse_elf reads the section
// names and PT_INTERP before the dynamic strings, out of one budget of k_max_string_bytes; this
// reader gives up where those could exhaust it (each string costs at most k_max_string).
std::optional<ElfInfo> read_elf_loader_fields(std::uint64_t file_size, const ReadAt& read) {
  std::string head;
  if (!read(0, k_head, head) || !is_elf(head) || head.size() < 16) {
    return std::nullopt;
  }
  const auto elf_class = static_cast<unsigned char>(head[4]);
  const auto encoding = static_cast<unsigned char>(head[5]);
  if ((elf_class != 1 && elf_class != 2) || (encoding != 1 && encoding != 2)) {
    return std::nullopt;
  }
  const bool is64 = elf_class == 2;
  const ByteOrder order = encoding == 2 ? ByteOrder::big : ByteOrder::little;
  if (head.size() < (is64 ? 64U : 52U)) {
    return std::nullopt;
  }
  const ByteReader h(head, order);
  const std::uint64_t phoff = is64 ? h.uint(32, 8) : h.uint(28, 4);
  const std::uint64_t shoff = is64 ? h.uint(40, 8) : h.uint(32, 4);
  const std::uint64_t phentsize = h.uint(is64 ? 54 : 42, 2);
  const std::uint64_t phnum = h.uint(is64 ? 56 : 44, 2);
  const std::uint64_t shnum = h.uint(is64 ? 60 : 48, 2);
  const std::uint64_t shstrndx = h.uint(is64 ? 62 : 50, 2);
  constexpr std::uint64_t k_xnum = 0xffff; // PN_XNUM, SHN_XINDEX: counts kept in section 0
  const bool extended = shoff != 0 && (shnum == 0 || shstrndx == k_xnum);
  if (phoff == 0 || phnum == 0 || phnum == k_xnum || extended || phentsize < (is64 ? 56U : 32U)
      || detail::sat_add(phoff, phnum * phentsize) > file_size) {
    return std::nullopt;
  }

  // The program headers: in the first read, or read on their own.
  std::string table;
  std::string_view phdrs;
  if (phoff + phnum * phentsize <= head.size()) {
    phdrs = std::string_view(head).substr(phoff, phnum * phentsize);
  } else if (read_exactly(read, phoff, phnum * phentsize, table)) {
    phdrs = table;
  } else {
    return std::nullopt;
  }
  const ByteReader p(phdrs, order);
  std::vector<detail::ElfSegment> loads;
  std::optional<detail::ElfSegment> dynamic;
  for (std::uint64_t i = 0; i < phnum; ++i) {
    const std::uint64_t at = i * phentsize;
    detail::ElfSegment s;
    s.type = p.uint(at, 4);
    s.offset = is64 ? p.uint(at + 8, 8) : p.uint(at + 4, 4);
    s.vaddr = is64 ? p.uint(at + 16, 8) : p.uint(at + 8, 4);
    s.filesz = is64 ? p.uint(at + 32, 8) : p.uint(at + 16, 4);
    if (s.type == detail::k_pt_load) {
      loads.push_back(s);
    } else if (s.type == detail::k_pt_dynamic && !dynamic) {
      dynamic = s;
    }
  }
  const std::uint64_t entsize = is64 ? 16 : 8;
  if (!dynamic || dynamic->filesz < entsize) {
    return std::nullopt;
  }
  const std::uint64_t count = dynamic->filesz / entsize;
  if (count > detail::k_max_dynamic
      || detail::sat_add(dynamic->offset, count * entsize) > file_size) {
    return std::nullopt;
  }

  // The dynamic segment.
  std::string entries;
  if (!read_exactly(read, dynamic->offset, count * entsize, entries)) {
    return std::nullopt;
  }
  ElfInfo info;
  detail::ElfDynamicEntries d;
  detail::scan_dynamic(ByteReader(entries, order), 0, count, is64, d, info.flags, info.flags_1);
  if (!d.strtab || !d.strsz) {
    return std::nullopt;
  }
  const auto load = std::find_if(loads.begin(), loads.end(), [&](const detail::ElfSegment& s) {
    return *d.strtab >= s.vaddr && *d.strtab - s.vaddr < s.filesz;
  });
  if (load == loads.end()) {
    return std::nullopt;
  }
  const std::uint64_t strings_at = detail::sat_add(load->offset, *d.strtab - load->vaddr);
  if (detail::sat_add(strings_at, *d.strsz) > file_size) {
    return std::nullopt;
  }

  // The strings, within the budget parse_elf shares with the section names and PT_INTERP.
  std::vector<std::uint64_t> wanted = d.needed;
  for (const auto& index : {d.soname, d.rpath, d.runpath}) {
    if (index) {
      wanted.push_back(*index);
    }
  }
  constexpr std::uint64_t k_budget_strings = detail::k_max_string_bytes / k_max_string;
  if (shnum + 1 + wanted.size() > k_budget_strings
      || std::any_of(
          wanted.begin(), wanted.end(), [&](std::uint64_t i) { return i >= *d.strsz; })) {
    return std::nullopt;
  }
  auto strings = read_strings(read, strings_at, *d.strsz, std::move(wanted));
  if (!strings) {
    return std::nullopt;
  }
  const auto string_at = [&](std::uint64_t index) -> const std::string& {
    return std::lower_bound(strings->begin(),
                            strings->end(),
                            index,
                            [](const auto& s, std::uint64_t i) { return s.first < i; })
        ->second;
  };
  info.elf_class = is64 ? 64 : 32;
  info.big_endian = order == ByteOrder::big;
  info.type = static_cast<unsigned>(h.uint(16, 2));
  info.machine = static_cast<unsigned>(h.uint(18, 2));
  info.machine_name = elf_machine_name(info.machine);
  for (const std::uint64_t index : d.needed) {
    info.needed.push_back(string_at(index));
  }
  info.soname = d.soname ? string_at(*d.soname) : "";
  info.rpath = detail::split_search_path(d.rpath ? string_at(*d.rpath) : "");
  info.runpath = detail::split_search_path(d.runpath ? string_at(*d.runpath) : "");
  return info;
}

} // namespace doctor::formats
