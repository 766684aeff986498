// SPDX-License-Identifier: MIT
// Private to formats/elf*.cpp: the bounded reader that parse_elf runs, shared by elf.cpp (headers,
// segments, sections, dynamic section) and elf_versions.cpp (version tables, notes).
#pragma once

#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/elf.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doctor::formats::detail {

inline constexpr std::uint64_t k_pt_load = 1;
inline constexpr std::uint64_t k_pt_dynamic = 2;
inline constexpr std::uint64_t k_pt_note = 4;
inline constexpr std::uint64_t k_sht_nobits = 8;

// Caps that bound the work for any input; real libraries stay far below them.
inline constexpr std::uint64_t k_max_headers = 65536;
inline constexpr std::uint64_t k_max_dynamic = std::uint64_t{1} << 20U;
inline constexpr std::uint64_t k_max_version_entries = 100000;
inline constexpr std::uint64_t k_max_notes = 100000;
inline constexpr std::uint64_t k_max_build_id = 1024;
inline constexpr std::uint64_t k_max_string = 65536;
inline constexpr std::uint64_t k_max_string_bytes = std::uint64_t{64}
                                                    << 20U; // scanned, all strings
inline constexpr std::size_t k_max_problems = 64;

// Returns a + b, or the largest uint64 where the sum would wrap.
inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t k_u64_max = std::numeric_limits<std::uint64_t>::max();
  return a > k_u64_max - b ? k_u64_max : a + b;
}

struct ElfSegment {
  std::uint64_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t vaddr = 0;
  std::uint64_t filesz = 0;
  std::uint64_t align = 0;
};

struct ElfSection {
  std::uint64_t name = 0;
  std::uint64_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t addr = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t link = 0;
  std::uint64_t info = 0;
  std::uint64_t addralign = 0;
};

// A string table: `size` bytes at file offset `offset`, named in problems as `what`.
struct ElfStringTable {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::string what;
};

// Where a version table lies and how many entries it declares (0: follow the chain to its end).
struct ElfVersionTable {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
};

// A DT_RPATH or DT_RUNPATH value split at ':', as ElfInfo::rpath keeps it ("" gives no entry).
std::vector<std::string> split_search_path(const std::string& s);

// What the dynamic section says, before its string offsets are resolved.
struct ElfDynamicEntries {
  std::vector<std::uint64_t> needed;
  std::optional<std::uint64_t> soname, rpath, runpath, strtab, strsz, verdef, verdefnum, verneed,
      verneednum;
};

// How far scan_dynamic() read: `entries` read (with the DT_NULL that ended them, if
// `terminated`); `cut`: entry `entries` lies outside the bytes.
struct DynamicScan {
  std::uint64_t entries = 0;
  bool terminated = false;
  bool cut = false;
};

// Reads up to `count` dynamic entries (of a 64-bit file if `is64`) at `offset` of `bytes` into `d`,
// up to and with the first DT_NULL: DT_NEEDED in order, the first of each single-valued tag, and
// every DT_FLAGS and DT_FLAGS_1 into `flags` and `flags_1`.
DynamicScan scan_dynamic(const ByteReader& bytes,
                         std::uint64_t offset,
                         std::uint64_t count,
                         bool is64,
                         ElfDynamicEntries& d,
                         std::uint64_t& flags,
                         std::uint64_t& flags_1);

// Reads one ELF file. Every read goes through uint()/has(), the bounded reads of a ByteReader;
// every loop is bounded by the caps above, so any input, truncated or hostile, costs bounded work
// and never reads outside the view. The steps are
// defined in elf.cpp (headers, segments, sections, dynamic section) and elf_versions.cpp
// (DT_VERDEF, DT_VERNEED, notes).
class ElfReader {
public:
  // `data` holds at least the whole ELF header of the given class and byte order.
  ElfReader(std::string_view data, bool is64, bool big_endian)
      : m_data(data)
      , m_bytes(data, big_endian ? ByteOrder::big : ByteOrder::little)
      , m_is64(is64)
      , m_big(big_endian) {}

  // Reads everything; damage is recorded in the result's problems.
  ElfInfo run();

private:
  std::uint64_t size() const { return m_bytes.size(); }

  // True if [offset, offset + length) lies inside the data.
  bool has(std::uint64_t offset, std::uint64_t length) const { return m_bytes.has(offset, length); }

  // The `width`-byte unsigned integer at `offset` in the file's byte order; 0 outside the data.
  std::uint64_t uint(std::uint64_t offset, unsigned width) const {
    return m_bytes.uint(offset, width);
  }

  // An address-sized field (Elf32_Addr/Off/Word or Elf64_Addr/Off/Xword).
  std::uint64_t word(std::uint64_t offset) const { return uint(offset, m_is64 ? 8 : 4); }

  template<typename... Args>
  void problem(fmt::format_string<Args...> format, Args&&... args) {
    if (m_info.problems.size() < k_max_problems) {
      m_info.problems.push_back(fmt::format(format, std::forward<Args>(args)...));
    } else {
      ++m_omitted_problems;
    }
  }

  std::string past_end(std::uint64_t end) const {
    return fmt::format("ends at {}, {}", end, past_eof());
  }

  std::string past_eof() const {
    return fmt::format("past the end of the {}-byte file (truncated?)", size());
  }

  // elf.cpp: headers, sections, segments, strings.
  std::uint64_t table_entries(std::string_view what,
                              std::uint64_t offset,
                              std::uint64_t count,
                              std::uint64_t entsize,
                              std::uint64_t min_size);
  ElfSection section_at(std::uint64_t at) const;
  void read_section_headers();
  void read_program_headers();
  std::optional<std::string>
  string_at(const ElfStringTable& table, std::uint64_t index, std::string_view user);
  void budget_exhausted();
  void read_section_names();
  std::string section_label(std::size_t i) const;
  void check_ranges();
  void read_interpreter();
  std::optional<std::uint64_t> file_offset(std::uint64_t addr, std::string_view what);
  const ElfSection* section_of_type(std::uint64_t type) const;

  // elf.cpp: the dynamic section.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> locate_dynamic();
  std::optional<ElfDynamicEntries> read_dynamic_entries();
  ElfStringTable dynamic_strings(const ElfDynamicEntries& d);
  std::optional<std::string> dynamic_string(const ElfStringTable& t,
                                            const std::optional<std::uint64_t>& index,
                                            std::string_view tag);
  void read_dynamic();

  // elf_versions.cpp: version definitions and needs, notes.
  std::optional<ElfVersionTable> version_table(const std::optional<std::uint64_t>& address,
                                               std::uint64_t count,
                                               std::uint64_t section_type,
                                               std::string_view tag,
                                               ElfStringTable& strings);
  bool version_budget(std::string_view what);
  void read_versions(const std::optional<ElfDynamicEntries>& d, const ElfStringTable& dynstr);
  void read_verdef(const ElfVersionTable& table, const ElfStringTable& strings);
  void read_verneed(const ElfVersionTable& table, const ElfStringTable& strings);
  bool read_notes(std::uint64_t offset, std::uint64_t length, std::uint64_t align);
  void read_build_id();

  std::string_view m_data;
  ByteReader m_bytes;
  bool m_is64;
  bool m_big;
  ElfInfo m_info;
  std::vector<ElfSegment> m_segments;
  std::vector<ElfSection> m_sections;
  ElfSection m_section0;
  std::uint64_t m_shstrndx = 0;
  const ElfSection* m_dynamic_section = nullptr;
  std::size_t m_omitted_problems = 0;
  std::uint64_t m_string_budget = k_max_string_bytes;
  bool m_string_budget_reported = false;
  std::uint64_t m_version_entries = 0;
  std::uint64_t m_notes = 0;
};

} // namespace doctor::formats::detail
