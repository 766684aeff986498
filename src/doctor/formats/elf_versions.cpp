// SPDX-License-Identifier: MIT
// The symbol version tables (DT_VERDEF, DT_VERNEED) and the notes that hold the build id.
#include <doctor/formats/elf.hpp>
#include <doctor/formats/elf_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

namespace doctor::formats::detail {

namespace {

// Layouts and constants from the System V gABI and glibc's <elf.h>.
constexpr std::uint64_t k_sht_note = 7;
constexpr std::uint64_t k_sht_gnu_verdef = 0x6ffffffd;
constexpr std::uint64_t k_sht_gnu_verneed = 0x6ffffffe;

constexpr std::uint64_t k_ver_flg_base = 1;
constexpr std::uint64_t k_nt_gnu_build_id = 3;
constexpr std::uint64_t k_verdef_size = 20;  // Elf32_Verdef and Elf64_Verdef
constexpr std::uint64_t k_verdaux_size = 8;  // vda_name, vda_next
constexpr std::uint64_t k_verneed_size = 16; // vn_version, vn_cnt, vn_file, vn_aux, vn_next
constexpr std::uint64_t k_vernaux_size = 16; // vna_hash, vna_flags, vna_other, vna_name, vna_next
constexpr std::uint64_t k_note_header = 12;  // namesz, descsz, type (both classes)

// Rounds `v` up to a multiple of `align` (any alignment above 0), saturating at the top.
std::uint64_t saturating_align_up(std::uint64_t v, std::uint64_t align) {
  const std::uint64_t r = v % align;
  return r == 0 ? v : sat_add(v, align - r);
}

} // namespace

// The version table of dynamic tag `address` (count `count`), else the section of type
// `section_type` (count in sh_info, strings in its sh_link section).
std::optional<ElfVersionTable> ElfReader::version_table(const std::optional<std::uint64_t>& address,
                                                        std::uint64_t count,
                                                        std::uint64_t section_type,
                                                        std::string_view tag,
                                                        ElfStringTable& strings) {
  if (address) {
    if (auto offset = file_offset(*address, tag)) {
      return ElfVersionTable{*offset, count};
    }
  }
  const ElfSection* s = section_of_type(section_type);
  if (s == nullptr) {
    return std::nullopt;
  }
  if (strings.size == 0 && s->link < m_sections.size()) {
    const ElfSection& linked = m_sections[s->link];
    strings = {linked.offset, linked.size, "dynamic string table"};
  }
  return ElfVersionTable{s->offset, s->info};
}

bool ElfReader::version_budget(std::string_view what) {
  if (m_version_entries >= k_max_version_entries) {
    if (m_version_entries++ == k_max_version_entries) {
      problem("{}: over {} version entries; the rest are not read", what, k_max_version_entries);
    }
    return false;
  }
  ++m_version_entries;
  return true;
}

void ElfReader::read_versions(const std::optional<ElfDynamicEntries>& d,
                              const ElfStringTable& dynstr) {
  ElfStringTable def_strings = dynstr;
  const auto defs = version_table(d ? d->verdef : std::nullopt,
                                  d ? d->verdefnum.value_or(0) : 0,
                                  k_sht_gnu_verdef,
                                  "DT_VERDEF",
                                  def_strings);
  if (defs) {
    read_verdef(*defs, def_strings);
  }
  ElfStringTable need_strings = dynstr;
  const auto needs = version_table(d ? d->verneed : std::nullopt,
                                   d ? d->verneednum.value_or(0) : 0,
                                   k_sht_gnu_verneed,
                                   "DT_VERNEED",
                                   need_strings);
  if (needs) {
    read_verneed(*needs, need_strings);
  }
}

// Elf_Verdef entries chained by vd_next (relative, so always forward); each names itself in its
// first Elf_Verdaux. The base entry (VER_FLG_BASE, the file's own soname) goes first.
void ElfReader::read_verdef(const ElfVersionTable& table, const ElfStringTable& strings) {
  std::uint64_t at = table.offset;
  bool base_seen = false;
  for (std::uint64_t n = 0; table.count == 0 || n < table.count; ++n) {
    if (!has(at, k_verdef_size)) {
      problem("version definition {} at offset {} lies outside the file", n, at);
      return;
    }
    if (!version_budget("version definitions")) {
      return;
    }
    const std::uint64_t flags = uint(at + 2, 2);
    const std::uint64_t cnt = uint(at + 6, 2);
    const std::uint64_t aux = sat_add(at, uint(at + 12, 4));
    const std::uint64_t next = uint(at + 16, 4);
    if (cnt > 0 && !has(aux, k_verdaux_size)) {
      problem("version definition {}: name entry at offset {} is outside the file", n, aux);
    } else if (cnt > 0) {
      if (auto name = string_at(strings, uint(aux, 4), "version definition")) {
        const bool base = (flags & k_ver_flg_base) != 0 && !base_seen;
        base_seen = base_seen || base;
        auto& defs = m_info.version_definitions;
        defs.insert(base ? defs.begin() : defs.end(), std::move(*name));
      }
    }
    if (next == 0) {
      if (table.count != 0 && n + 1 < table.count) {
        problem("version definition chain ends after {} of {} entries", n + 1, table.count);
      }
      return;
    }
    at = sat_add(at, next);
  }
}

// Elf_Verneed entries (one per needed file) chained by vn_next, each with vn_cnt Elf_Vernaux
// entries chained by vna_next, naming the versions required from that file.
void ElfReader::read_verneed(const ElfVersionTable& table, const ElfStringTable& strings) {
  std::uint64_t at = table.offset;
  for (std::uint64_t n = 0; table.count == 0 || n < table.count; ++n) {
    if (!has(at, k_verneed_size)) {
      problem("version need {} at offset {} lies outside the file", n, at);
      return;
    }
    if (!version_budget("version needs")) {
      return;
    }
    ElfVersionNeed need;
    need.file = string_at(strings, uint(at + 4, 4), "version need file").value_or("");
    const std::uint64_t cnt = uint(at + 2, 2);
    std::uint64_t aux = sat_add(at, uint(at + 8, 4));
    for (std::uint64_t k = 0; k < cnt; ++k) {
      if (!has(aux, k_vernaux_size)) {
        problem("version need {} ({}): entry {} at offset {} lies outside the file",
                n,
                need.file,
                k,
                aux);
        break;
      }
      if (!version_budget("version needs")) {
        break;
      }
      if (auto name = string_at(strings, uint(aux + 8, 4), "version need name")) {
        need.versions.push_back(std::move(*name));
      }
      const std::uint64_t aux_next = uint(aux + 12, 4);
      if (aux_next == 0) {
        break;
      }
      aux = sat_add(aux, aux_next);
    }
    m_info.version_needs.push_back(std::move(need));
    const std::uint64_t next = uint(at + 12, 4);
    if (next == 0) {
      return;
    }
    at = sat_add(at, next);
  }
}

// Walks the notes in [offset, offset + length); true once an NT_GNU_BUILD_ID note named "GNU"
// is found. Note fields are 4-byte words in both classes; the descriptor and the next note start
// at the segment's alignment (4, or 8 for .note.gnu.property) counted from the note's start, as
// glibc's ELF_NOTE_DESC_OFFSET and ELF_NOTE_NEXT_OFFSET compute them.
bool ElfReader::read_notes(std::uint64_t offset, std::uint64_t length, std::uint64_t align) {
  align = align == 8 ? 8 : 4;
  const std::uint64_t end = std::min(sat_add(offset, length), size());
  std::uint64_t at = offset;
  while (at < end && end - at >= k_note_header) {
    if (m_notes++ >= k_max_notes) {
      if (m_notes == k_max_notes + 1) {
        problem("over {} notes; the rest are not read", k_max_notes);
      }
      return false;
    }
    const std::uint64_t namesz = uint(at, 4);
    const std::uint64_t descsz = uint(at + 4, 4);
    const std::uint64_t type = uint(at + 8, 4);
    const std::uint64_t name_at = at + k_note_header;
    const std::uint64_t desc_at = sat_add(at, saturating_align_up(k_note_header + namesz, align));
    const std::uint64_t next =
        sat_add(at, saturating_align_up(sat_add(desc_at - at, descsz), align));
    // A note that overruns its own area is not damage: the area itself lies inside the file
    // (a segment or section past the end of the file is reported where the headers are checked),
    // and the loader ignores the note. Real libraries carry such areas: cuDNN 8.9's sub-libraries
    // have a PT_NOTE over a stale program header left by a tool that moved the headers. The walk
    // just ends.
    if (desc_at > end || descsz > end - desc_at) {
      return false;
    }
    const std::string_view name = m_data.substr(name_at, namesz);
    if (type == k_nt_gnu_build_id && name == std::string_view("GNU\0", 4)) {
      if (descsz > k_max_build_id) {
        return false; // not a build id any tool writes; ignored like any malformed note
      }
      std::string hex;
      hex.reserve(descsz * 2);
      for (const char c : m_data.substr(desc_at, descsz)) {
        fmt::format_to(std::back_inserter(hex), "{:02x}", static_cast<unsigned char>(c));
      }
      m_info.build_id = std::move(hex);
      return true;
    }
    at = next;
  }
  return false;
}

// PT_NOTE segments first; without them (or a build id in them), SHT_NOTE sections, the one
// named .note.gnu.build-id first.
void ElfReader::read_build_id() {
  for (const ElfSegment& p : m_segments) {
    if (p.type == k_pt_note && read_notes(p.offset, p.filesz, p.align)) {
      return;
    }
  }
  for (const bool named : {true, false}) {
    for (std::size_t i = 0; i < m_sections.size(); ++i) {
      const ElfSection& s = m_sections[i];
      if (s.type == k_sht_note && (m_info.section_names[i] == ".note.gnu.build-id") == named
          && read_notes(s.offset, s.size, s.addralign)) {
        return;
      }
    }
  }
}

} // namespace doctor::formats::detail
