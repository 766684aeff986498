// SPDX-License-Identifier: MIT
// Headers, segments, sections and the dynamic section; the version tables and notes are read in
// elf_versions.cpp.
#include <doctor/formats/elf.hpp>
#include <doctor/formats/elf_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace doctor::formats {

namespace {

// Layouts and constants from the System V gABI and glibc's <elf.h>; elf_reader.hpp and
// elf_versions.cpp hold the rest.
constexpr std::size_t k_ident_size = 16;
constexpr unsigned k_class_32 = 1;
constexpr unsigned k_class_64 = 2;
constexpr unsigned k_data_lsb = 1;
constexpr unsigned k_data_msb = 2;

constexpr std::uint64_t k_pt_interp = 3;

constexpr std::uint64_t k_sht_null = 0;
constexpr std::uint64_t k_sht_strtab = 3;
constexpr std::uint64_t k_sht_dynamic = 6;
constexpr std::uint64_t k_shf_alloc = 2;
constexpr std::uint64_t k_shn_xindex = 0xffff;
constexpr std::uint64_t k_pn_xnum = 0xffff;

constexpr std::uint64_t k_dt_null = 0;
constexpr std::uint64_t k_dt_needed = 1;
constexpr std::uint64_t k_dt_strtab = 5;
constexpr std::uint64_t k_dt_strsz = 10;
constexpr std::uint64_t k_dt_soname = 14;
constexpr std::uint64_t k_dt_rpath = 15;
constexpr std::uint64_t k_dt_runpath = 29;
constexpr std::uint64_t k_dt_flags = 30;
constexpr std::uint64_t k_dt_flags_1 = 0x6ffffffb;
constexpr std::uint64_t k_dt_verdef = 0x6ffffffc;
constexpr std::uint64_t k_dt_verdefnum = 0x6ffffffd;
constexpr std::uint64_t k_dt_verneed = 0x6ffffffe;
constexpr std::uint64_t k_dt_verneednum = 0x6fffffff;

// The single-valued dynamic tags kept, and where.
constexpr std::pair<std::uint64_t, std::optional<std::uint64_t> detail::ElfDynamicEntries::*>
    k_dynamic_fields[] = {
        {k_dt_soname, &detail::ElfDynamicEntries::soname},
        {k_dt_rpath, &detail::ElfDynamicEntries::rpath},
        {k_dt_runpath, &detail::ElfDynamicEntries::runpath},
        {k_dt_strtab, &detail::ElfDynamicEntries::strtab},
        {k_dt_strsz, &detail::ElfDynamicEntries::strsz},
        {k_dt_verdef, &detail::ElfDynamicEntries::verdef},
        {k_dt_verdefnum, &detail::ElfDynamicEntries::verdefnum},
        {k_dt_verneed, &detail::ElfDynamicEntries::verneed},
        {k_dt_verneednum, &detail::ElfDynamicEntries::verneednum},
};

// e_machine values and the names ldconfig gives them.
constexpr std::pair<unsigned, std::string_view> k_machines[] = {
    {2, "sparc"},
    {3, "i386"},
    {8, "mips"},
    {20, "ppc"},
    {21, "ppc64"},
    {22, "s390"},
    {40, "arm"},
    {43, "sparcv9"},
    {50, "ia64"},
    {62, "x86-64"},
    {183, "aarch64"},
    {243, "riscv"},
    {258, "loongarch"},
};

} // namespace

namespace detail {

ElfInfo ElfReader::run() {
  m_info.elf_class = m_is64 ? 64 : 32;
  m_info.big_endian = m_big;
  m_info.type = static_cast<unsigned>(uint(16, 2));
  m_info.machine = static_cast<unsigned>(uint(18, 2));
  m_info.machine_name = elf_machine_name(m_info.machine);
  read_section_headers();
  read_program_headers();
  read_section_names();
  check_ranges();
  read_interpreter();
  read_dynamic();
  read_build_id();
  if (m_omitted_problems > 0) {
    m_info.problems.push_back(fmt::format("{} more problems not listed", m_omitted_problems));
  }
  return std::move(m_info);
}

// Reads the table of `count` entries of `entsize` bytes (at least `min_size`) at `offset`;
// returns how many entries lie wholly inside the file, recording why any are missing.
std::uint64_t ElfReader::table_entries(std::string_view what,
                                       std::uint64_t offset,
                                       std::uint64_t count,
                                       std::uint64_t entsize,
                                       std::uint64_t min_size) {
  if (count == 0) {
    return 0;
  }
  if (entsize < min_size) {
    problem("{} entries are {} bytes, smaller than the {}-byte structure", what, entsize, min_size);
    return 0;
  }
  if (count > k_max_headers) {
    problem("{} has {} entries, over the limit of {}; reading the first {}",
            what,
            count,
            k_max_headers,
            k_max_headers);
    count = k_max_headers;
  }
  const std::uint64_t end = sat_add(offset, count * entsize);
  if (end <= size()) {
    return count;
  }
  problem(
      "{} at offset {} ({} entries of {} bytes) {}", what, offset, count, entsize, past_end(end));
  if (offset >= size()) {
    return 0;
  }
  const std::uint64_t fit = (size() - offset) / entsize;
  // The last entry only needs its first min_size bytes.
  return std::min(count, has(sat_add(offset, fit * entsize), min_size) ? fit + 1 : fit);
}

ElfSection ElfReader::section_at(std::uint64_t at) const {
  ElfSection s;
  s.name = uint(at, 4);
  s.type = uint(at + 4, 4);
  s.flags = word(at + 8);
  s.addr = m_is64 ? uint(at + 16, 8) : uint(at + 12, 4);
  s.offset = m_is64 ? uint(at + 24, 8) : uint(at + 16, 4);
  s.size = m_is64 ? uint(at + 32, 8) : uint(at + 20, 4);
  s.link = m_is64 ? uint(at + 40, 4) : uint(at + 24, 4);
  s.info = m_is64 ? uint(at + 44, 4) : uint(at + 28, 4);
  s.addralign = m_is64 ? uint(at + 48, 8) : uint(at + 32, 4);
  return s;
}

// ElfSection headers first: with extended numbering, section 0 holds the real section count
// (sh_size), e_shstrndx (sh_link) and program header count (sh_info).
void ElfReader::read_section_headers() {
  const std::uint64_t shoff = m_is64 ? uint(40, 8) : uint(32, 4);
  const std::uint64_t entsize = uint(m_is64 ? 58 : 46, 2);
  std::uint64_t count = uint(m_is64 ? 60 : 48, 2);
  m_shstrndx = uint(m_is64 ? 62 : 50, 2);
  const std::uint64_t min_size = m_is64 ? 64 : 40;
  if (shoff == 0) {
    m_shstrndx = 0;
    return;
  }
  const bool extended =
      count == 0 || m_shstrndx == k_shn_xindex || uint(m_is64 ? 56 : 44, 2) == k_pn_xnum;
  if (extended && entsize >= min_size && has(shoff, min_size)) {
    m_section0 = section_at(shoff);
    count = count == 0 ? m_section0.size : count;
    m_shstrndx = m_shstrndx == k_shn_xindex ? m_section0.link : m_shstrndx;
  }
  const std::uint64_t n = table_entries("section header table", shoff, count, entsize, min_size);
  m_sections.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    m_sections.push_back(section_at(shoff + i * entsize));
  }
}

void ElfReader::read_program_headers() {
  const std::uint64_t phoff = m_is64 ? uint(32, 8) : uint(28, 4);
  const std::uint64_t entsize = uint(m_is64 ? 54 : 42, 2);
  std::uint64_t count = uint(m_is64 ? 56 : 44, 2);
  if (count == k_pn_xnum) {
    count = m_section0.info;
  }
  if (phoff == 0) {
    return;
  }
  const std::uint64_t n =
      table_entries("program header table", phoff, count, entsize, m_is64 ? 56 : 32);
  m_segments.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t at = phoff + i * entsize;
    ElfSegment s;
    s.type = uint(at, 4);
    s.offset = m_is64 ? uint(at + 8, 8) : uint(at + 4, 4);
    s.vaddr = m_is64 ? uint(at + 16, 8) : uint(at + 8, 4);
    s.filesz = m_is64 ? uint(at + 32, 8) : uint(at + 16, 4);
    s.align = m_is64 ? uint(at + 48, 8) : uint(at + 28, 4);
    m_segments.push_back(s);
  }
}

// Returns the NUL-terminated string at `index` in `table`, or nullopt (with a problem naming
// `user`) when it lies outside the table or the file, is unterminated or too long. Each string
// is scanned at most k_max_string bytes, and all strings together k_max_string_bytes.
std::optional<std::string>
ElfReader::string_at(const ElfStringTable& table, std::uint64_t index, std::string_view user) {
  if (index >= table.size) {
    problem("{}: string offset {} is outside the {}-byte {}", user, index, table.size, table.what);
    return std::nullopt;
  }
  const std::uint64_t at = sat_add(table.offset, index);
  if (at >= size()) {
    problem("{}: string offset {} (file offset {}) {}", user, index, at, past_eof());
    return std::nullopt;
  }
  if (m_string_budget == 0) {
    budget_exhausted();
    return std::nullopt;
  }
  const std::uint64_t in_table = table.size - index;
  const std::uint64_t in_file = size() - at;
  const std::uint64_t limit = std::min({in_table, in_file, k_max_string, m_string_budget});
  const std::string_view window = m_data.substr(at, limit);
  const std::size_t nul = window.find('\0');
  m_string_budget -= nul == std::string_view::npos ? limit : nul + 1;
  if (nul != std::string_view::npos) {
    return std::string(window.substr(0, nul));
  }
  if (limit == in_table) {
    problem("{}: string offset {} is not terminated inside the {}-byte {}",
            user,
            index,
            table.size,
            table.what);
  } else if (limit == in_file) {
    problem("{}: string offset {} {}", user, index, past_eof());
  } else if (limit == k_max_string) {
    problem("{}: string offset {} is longer than {} bytes", user, index, limit);
  } else {
    budget_exhausted();
  }
  return std::nullopt;
}

void ElfReader::budget_exhausted() {
  if (!m_string_budget_reported) {
    m_string_budget_reported = true;
    problem("strings exceed {} bytes in all; the rest are not read", k_max_string_bytes);
  }
}

void ElfReader::read_section_names() {
  if (m_sections.empty()) {
    return;
  }
  ElfStringTable names;
  if (m_shstrndx >= m_sections.size()) {
    problem("e_shstrndx {} is out of range ({} sections)", m_shstrndx, m_sections.size());
  } else if (m_shstrndx != 0) {
    const ElfSection& s = m_sections[m_shstrndx];
    names = {s.offset, s.size, "section name table"};
    if (s.type != k_sht_strtab) {
      problem("section name table (section {}) has type {}, not SHT_STRTAB", m_shstrndx, s.type);
    }
  }
  m_info.section_names.reserve(m_sections.size());
  for (std::size_t i = 0; i < m_sections.size(); ++i) {
    std::optional<std::string> name;
    if (names.size > 0 && (i > 0 || m_sections[i].name != 0)) {
      name = string_at(names, m_sections[i].name, fmt::format("section {} name", i));
    }
    m_info.section_names.push_back(name.value_or(""));
    const ElfSection& s = m_sections[i];
    m_info.section_ranges.push_back({s.offset, s.type == k_sht_nobits ? 0 : s.size});
  }
}

std::string ElfReader::section_label(std::size_t i) const {
  const std::string& name = i < m_info.section_names.size() ? m_info.section_names[i] : "";
  return name.empty() ? fmt::format("section {}", i) : fmt::format("section {} ({})", i, name);
}

// Contents the loader (or this reader) would read must lie inside the file.
void ElfReader::check_ranges() {
  for (std::size_t i = 0; i < m_sections.size(); ++i) {
    const ElfSection& s = m_sections[i];
    const std::uint64_t end = sat_add(s.offset, s.size);
    if (s.type != k_sht_null && s.type != k_sht_nobits && end > size()) {
      problem("{} {}", section_label(i), past_end(end));
    }
  }
  for (std::size_t i = 0; i < m_segments.size(); ++i) {
    const ElfSegment& p = m_segments[i];
    const std::uint64_t end = sat_add(p.offset, p.filesz);
    if (end <= size()) {
      continue;
    }
    const char* name = p.type == k_pt_load      ? "PT_LOAD"
                       : p.type == k_pt_dynamic ? "PT_DYNAMIC"
                       : p.type == k_pt_interp  ? "PT_INTERP"
                       : p.type == k_pt_note    ? "PT_NOTE"
                                                : nullptr;
    if (name != nullptr) {
      problem("{} segment {} {}", name, i, past_end(end));
    }
  }
}

void ElfReader::read_interpreter() {
  for (const ElfSegment& p : m_segments) {
    if (p.type == k_pt_interp) {
      const ElfStringTable t{p.offset, p.filesz, "PT_INTERP segment"};
      if (auto s = string_at(t, 0, "PT_INTERP")) {
        m_info.interpreter = std::move(*s);
      }
      return;
    }
  }
}

// Maps a virtual address to a file offset through the PT_LOAD segments, as the loader lays the
// file out; without program headers (or when none covers it), through allocated sections.
std::optional<std::uint64_t> ElfReader::file_offset(std::uint64_t addr, std::string_view what) {
  for (const ElfSegment& p : m_segments) {
    if (p.type == k_pt_load && addr >= p.vaddr && addr - p.vaddr < p.filesz) {
      return sat_add(p.offset, addr - p.vaddr);
    }
  }
  for (const ElfSection& s : m_sections) {
    if ((s.flags & k_shf_alloc) != 0 && s.type != k_sht_nobits && addr >= s.addr
        && addr - s.addr < s.size) {
      if (!m_segments.empty()) {
        problem("{} address {:#x} is in no PT_LOAD segment; mapped through sections", what, addr);
      }
      return sat_add(s.offset, addr - s.addr);
    }
  }
  problem("{} address {:#x} is in no PT_LOAD segment or section", what, addr);
  return std::nullopt;
}

const ElfSection* ElfReader::section_of_type(std::uint64_t type) const {
  for (const ElfSection& s : m_sections) {
    if (s.type == type) {
      return &s;
    }
  }
  return nullptr;
}

// The dynamic table from PT_DYNAMIC; from the SHT_DYNAMIC section if there is no PT_DYNAMIC or
// it is empty or starts outside the file. Returns its (offset, size).
std::optional<std::pair<std::uint64_t, std::uint64_t>> ElfReader::locate_dynamic() {
  const std::uint64_t entsize = m_is64 ? 16 : 8;
  m_dynamic_section = section_of_type(k_sht_dynamic);
  for (const ElfSegment& p : m_segments) {
    if (p.type == k_pt_dynamic) {
      if (p.filesz >= entsize && has(p.offset, entsize)) {
        return std::make_pair(p.offset, p.filesz);
      }
      break;
    }
  }
  const ElfSection* s = m_dynamic_section;
  if (s != nullptr && has(s->offset, entsize)) {
    return std::make_pair(s->offset, s->size);
  }
  return std::nullopt;
}

std::optional<ElfDynamicEntries> ElfReader::read_dynamic_entries() {
  const auto where = locate_dynamic();
  if (!where) {
    return std::nullopt;
  }
  const std::uint64_t entsize = m_is64 ? 16 : 8;
  std::uint64_t count = where->second / entsize;
  if (count > k_max_dynamic) {
    problem("dynamic section has {} entries, over the limit of {}", count, k_max_dynamic);
    count = k_max_dynamic;
  }
  ElfDynamicEntries d;
  const DynamicScan scan =
      scan_dynamic(m_bytes, where->first, count, m_is64, d, m_info.flags, m_info.flags_1);
  if (scan.cut) {
    problem("dynamic section is cut at entry {} of {}", scan.entries, count);
    return d;
  }
  if (!scan.terminated && count == where->second / entsize) {
    problem("dynamic section of {} entries has no DT_NULL terminator", count);
  }
  return d;
}

DynamicScan scan_dynamic(const ByteReader& bytes,
                         std::uint64_t offset,
                         std::uint64_t count,
                         bool is64,
                         ElfDynamicEntries& d,
                         std::uint64_t& flags,
                         std::uint64_t& flags_1) {
  const std::uint64_t entsize = is64 ? 16 : 8;
  DynamicScan scan;
  for (; scan.entries < count && !scan.terminated; ++scan.entries) {
    const std::uint64_t at = offset + scan.entries * entsize;
    if (!bytes.has(at, entsize)) {
      scan.cut = true;
      return scan;
    }
    const std::uint64_t tag = bytes.uint(at, entsize / 2);
    const std::uint64_t val = bytes.uint(at + entsize / 2, entsize / 2);
    scan.terminated = tag == k_dt_null;
    if (tag == k_dt_needed) {
      d.needed.push_back(val);
    }
    flags |= tag == k_dt_flags ? val : 0;
    flags_1 |= tag == k_dt_flags_1 ? val : 0;
    for (const auto& [field_tag, field] : k_dynamic_fields) {
      if (tag == field_tag && !(d.*field)) {
        d.*field = val; // the first entry wins, as in ld.so
      }
    }
  }
  return scan;
}

// The dynamic string table: DT_STRTAB mapped through PT_LOAD with DT_STRSZ bytes; else the
// section the dynamic section links to, or the first ".dynstr".
ElfStringTable ElfReader::dynamic_strings(const ElfDynamicEntries& d) {
  ElfStringTable t{0, 0, "dynamic string table"};
  std::optional<std::uint64_t> offset;
  if (d.strtab) {
    offset = file_offset(*d.strtab, "DT_STRTAB");
  } else {
    problem("dynamic section has no DT_STRTAB");
  }
  const ElfSection* s = nullptr;
  if (m_dynamic_section != nullptr && m_dynamic_section->link < m_sections.size()) {
    s = &m_sections[m_dynamic_section->link];
  }
  for (std::size_t i = 0; s == nullptr && i < m_sections.size(); ++i) {
    if (m_info.section_names[i] == ".dynstr") {
      s = &m_sections[i];
    }
  }
  if (offset) {
    t.offset = *offset;
    if (d.strsz) {
      t.size = *d.strsz;
    } else {
      problem("dynamic section has no DT_STRSZ");
      t.size = s != nullptr && s->offset == *offset ? s->size : size() - std::min(size(), *offset);
    }
  } else if (s != nullptr) {
    t.offset = s->offset;
    t.size = s->size;
  }
  const std::uint64_t end = sat_add(t.offset, t.size);
  if (t.size > 0 && end > size()) {
    problem("dynamic string table at offset {} ({} bytes) {}", t.offset, t.size, past_end(end));
  }
  return t;
}

std::optional<std::string> ElfReader::dynamic_string(const ElfStringTable& t,
                                                     const std::optional<std::uint64_t>& index,
                                                     std::string_view tag) {
  return index ? string_at(t, *index, tag) : std::nullopt;
}

std::vector<std::string> split_search_path(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (!s.empty()) {
    const std::size_t colon = s.find(':', start);
    out.push_back(s.substr(start, colon - start));
    if (colon == std::string::npos) {
      break;
    }
    start = colon + 1;
  }
  return out;
}

void ElfReader::read_dynamic() {
  const auto d = read_dynamic_entries();
  if (!d) {
    // A relocatable object or a static executable has no dynamic section; a file whose
    // version sections survive without one is still read below.
    const ElfStringTable none;
    read_versions(std::nullopt, none);
    return;
  }
  const ElfStringTable strings = dynamic_strings(*d);
  for (const std::uint64_t index : d->needed) {
    if (auto s = string_at(strings, index, "DT_NEEDED")) {
      m_info.needed.push_back(std::move(*s));
    }
  }
  m_info.soname = dynamic_string(strings, d->soname, "DT_SONAME").value_or("");
  m_info.rpath = split_search_path(dynamic_string(strings, d->rpath, "DT_RPATH").value_or(""));
  m_info.runpath =
      split_search_path(dynamic_string(strings, d->runpath, "DT_RUNPATH").value_or(""));
  read_versions(d, strings);
}

} // namespace detail

bool is_elf(std::string_view data) {
  return data.starts_with(
      "\x7f"
      "ELF");
}

Expected<ElfInfo> parse_elf(std::string_view data) {
  if (!is_elf(data)) {
    return make_error(ErrorCode::parse, "not an ELF file (no \\x7fELF magic)");
  }
  if (data.size() < k_ident_size) {
    return make_error(ErrorCode::parse,
                      fmt::format("truncated ELF identification ({} of 16 bytes)", data.size()));
  }
  const auto elf_class = static_cast<unsigned char>(data[4]);
  const auto encoding = static_cast<unsigned char>(data[5]);
  if (elf_class != k_class_32 && elf_class != k_class_64) {
    return make_error(ErrorCode::parse, fmt::format("unknown ELF class {}", elf_class));
  }
  if (encoding != k_data_lsb && encoding != k_data_msb) {
    return make_error(ErrorCode::parse, fmt::format("unknown ELF data encoding {}", encoding));
  }
  const bool is64 = elf_class == k_class_64;
  const std::size_t header_size = is64 ? 64 : 52;
  if (data.size() < header_size) {
    return make_error(
        ErrorCode::parse,
        fmt::format("truncated ELF header ({} of {} bytes)", data.size(), header_size));
  }
  return detail::ElfReader(data, is64, encoding == k_data_msb).run();
}

std::string elf_machine_name(unsigned machine) {
  for (const auto& [value, name] : k_machines) {
    if (value == machine) {
      return std::string(name);
    }
  }
  return fmt::format("machine {:#x}", machine);
}

} // namespace doctor::formats
