// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/formats/section_range.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::formats {

// A version requirement: the versions `file` must define ("libcudnn_ops.so.9" needs its own
// version tag; "libc.so.6" needs GLIBC_2.34).
struct ElfVersionNeed {
  std::string file;
  std::vector<std::string> versions;
  bool operator==(const ElfVersionNeed&) const = default;
};

// What the dynamic loader and the doctor need to know about one ELF file.
struct ElfInfo {
  unsigned elf_class = 0; // 32 or 64
  bool big_endian = false;
  unsigned machine = 0;     // e_machine
  std::string machine_name; // "x86-64", "aarch64", "i386", "ppc64", or "machine 0x…"
  unsigned type = 0;        // e_type: 2 executable, 3 shared object (or PIE)
  std::string interpreter;  // PT_INTERP, empty for libraries
  std::string soname;
  std::vector<std::string> needed;
  // DT_RPATH split at ':', unexpanded ($ORIGIN stays); an empty component is kept as "" (ld.so
  // reads it as the current directory); no DT_RPATH gives an empty list.
  std::vector<std::string> rpath;
  std::vector<std::string> runpath; // DT_RUNPATH split the same way
  std::uint64_t flags = 0;          // DT_FLAGS
  std::uint64_t flags_1 = 0;        // DT_FLAGS_1
  // DT_VERDEF names, one per entry (its first Elf_Verdaux), base entry first. NVIDIA's libraries
  // define their soname twice: as the base entry and as the version their symbols carry.
  std::vector<std::string> version_definitions;
  std::vector<ElfVersionNeed> version_needs; // DT_VERNEED
  std::string build_id;                      // NT_GNU_BUILD_ID as lower-case hex
  // Every section's name, in order and indexed like the section header table: [0] is the null
  // section's "", and a name that cannot be read is "" too (with a problem).
  std::vector<std::string> section_names;
  // Every section's file range, indexed like section_names (e.g. `.nv_fatbin`, read by fatbin.hpp).
  std::vector<SectionRange> section_ranges;
  // Structural problems found while reading, as lower-case fragments: "section header table at
  // offset 6120 (29 entries of 64 bytes) ends at 7976, past the end of the 4096-byte file
  // (truncated?)". A file with problems may still give partial information. At most 64 are listed,
  // then one "N more problems not listed".
  std::vector<std::string> problems;

  // DF_1_NODEFLIB: the default directories are not searched for this object's dependencies.
  bool nodeflib() const { return (flags_1 & 0x800U) != 0; }
};

// True if `data` starts with the ELF magic.
bool is_elf(std::string_view data);

// Reads an ELF file (32/64-bit, either byte order) held entirely in `data` (a mapped file).
// Returns ErrorCode::parse if it is not ELF or its ELF header cannot be read; any later damage
// (tables, sections, segments or strings outside the file, bad counts, unterminated strings) is
// recorded in `problems` and the rest is still read. Never reads outside `data`, and touches only
// the pages the headers point to (never scans the file). Bounded work for any input: at most 65536
// program or section headers, 1M dynamic entries, 100k version entries, 100k notes and 64 MiB of
// string bytes, each cap reported as a problem when hit.
Expected<ElfInfo> parse_elf(std::string_view data);

// Reads `size` bytes at `offset` of a file into `out` (fewer only at its end); false if the file
// cannot be read.
using ReadAt = std::function<bool(std::uint64_t offset, std::size_t size, std::string& out)>;

// What ld.so reads of an ELF file of `file_size` bytes to load it (the ELF header, the program
// headers, the dynamic segment and the strings it names), through a few reads of `read` instead
// of the whole file. Fills elf_class, big_endian, machine, machine_name, type, soname, needed,
// rpath, runpath, flags and flags_1 with the values parse_elf gives them, and nothing else.
// Returns nullopt for any file that parse_elf reads otherwise or with a problem in those fields
// (a table, segment or string outside the file or its table, no usable PT_DYNAMIC, a DT_STRTAB in
// no PT_LOAD, no DT_STRSZ, extended numbering, more strings than the string budget holds, a
// failed read): parse_elf over the whole file is the answer there.
std::optional<ElfInfo> read_elf_loader_fields(std::uint64_t file_size, const ReadAt& read);

// A data object a shared library exports, read from the file.
struct ElfObject {
  std::string name;
  std::string bytes;                  // st_size bytes at the symbol's place in the file
  std::optional<std::uint64_t> value; // the bytes as an integer in the file's byte order, for
                                      // objects of 1, 2, 4 or 8 bytes
};

// Reads the exported objects named in `names` (at most `max_size` bytes each) through the
// .dynsym section and its string table, e.g. cuDNN's `cudnn_ops_infer_version`. Names not found,
// and objects outside the file or in a NOBITS section, are left out; a file without section
// headers gives nothing. Bounded work for any input (at most 4M symbols); never reads outside
// `data`.
std::vector<ElfObject> read_elf_objects(std::string_view data,
                                        const std::vector<std::string>& names,
                                        std::uint64_t max_size);

// Returns the machine name for an e_machine value ("x86-64" for 62).
std::string elf_machine_name(unsigned machine);

} // namespace doctor::formats
