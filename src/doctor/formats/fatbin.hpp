// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/byte_source.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The CUDA fatbinary: the device code (SASS cubins and PTX, one per GPU architecture) that nvcc
// embeds in a host binary. The doctor lists its architectures to know which GPUs a framework
// build runs on, and to predict "no kernel image is available for execution on the device".
namespace doctor::formats {

enum class FatbinKind {
  ptx,  // PTX text, JIT-compiled by the driver for its architecture or any later one
  sass, // a cubin (ELF) of machine code for one architecture
  other // a kind this reader does not know (kept with its code, left out of the lists)
};

// One entry of a fatbinary container, from its header alone (the payload is never read).
struct FatbinEntry {
  FatbinKind kind = FatbinKind::other;
  unsigned kind_code = 0;  // the header's kind field: 1 PTX, 2 ELF
  unsigned arch = 0;       // 75 for sm_75 / compute_75
  std::string arch_suffix; // "a" (arch-specific, sm_90a), "f" (family-specific, sm_100f) or ""
  bool compressed = false; // the payload is compressed (its header's flag)
  std::uint64_t payload_size = 0;
  unsigned version_major = 0; // PTX: the PTX ISA version (9.0); SASS: the cubin's code version
  unsigned version_minor = 0;
  std::uint64_t container = 0; // index of its container in the section
  std::uint64_t offset = 0;    // of its header, from the start of the section

  // "sm_90a" for SASS, "compute_90" for PTX, "kind 16 arch 90" for others.
  std::string arch_name() const;
  bool operator==(const FatbinEntry&) const = default;
};

// Every entry of a fatbin section, in order.
struct FatbinInfo {
  std::uint64_t containers = 0; // containers whose header was read
  std::vector<FatbinEntry> entries;
  // Structural problems, as lower-case fragments ("container 3 at offset 4096 declares 9000 bytes,
  // past the end of the 5000-byte section (truncated?)"); the entries before them are kept. At
  // most 64, then one "N more problems not listed".
  std::vector<std::string> problems;
};

// Reads the fatbinary containers laid end to end in `section` (the bytes of an ELF `.nv_fatbin`
// or PE `.nv_fatb` section), headers only: a payload is skipped by its size, never touched, so a
// mapped 300 MB section costs a few pages per container. Never reads outside `section`; bounded
// work for any input (at most 1M containers and 1M entries, each cap reported as a problem).
// Damage (bad magic, truncation, sizes past the end, headers too small) ends the walk with a
// problem.
FatbinInfo parse_fatbin(std::string_view section);

// The distinct architectures of the SASS and PTX entries: SASS first ("sm_75", "sm_90a"), then PTX
// ("compute_90"), each ordered by number, then suffix ("" < "a" < "f").
std::vector<std::string> fatbin_archs(const FatbinInfo& info);

// The architectures every container has code for, ordered as fatbin_archs: a SASS architecture
// present in each container that holds any SASS, a PTX one present in each container that holds
// any PTX. A library is built for these; the rest (torch's sm_90a or sm_103f) belong to a few
// kernels compiled for one architecture only. Empty when there are no entries.
std::vector<std::string> fatbin_common_archs(const FatbinInfo& info);

// The fatbin section of a binary file, and what it holds.
struct FatbinFile {
  std::string format;       // "elf" or "pe"
  std::string section_name; // ".nv_fatbin" (ELF, or a PE with long names) or ".nv_fatb" (PE)
  std::uint64_t section_offset = 0;
  std::uint64_t section_size = 0;
  FatbinInfo fatbin; // a section cut by the end of the file gets a "(truncated?)" problem
};

// Finds the fatbin section of the ELF or PE file held in `data` (a mapped file) through the ELF
// and PE readers and reads it with parse_fatbin. Returns ErrorCode::parse if `data` is neither ELF
// nor PE or its headers cannot be read, ErrorCode::not_found if it has no fatbin section (no CUDA
// device code). Touches only the headers' pages.
Expected<FatbinFile> read_fatbin_image(std::string_view data);

// As read_fatbin_image, with the ELF or PE headers read from `headers` (a mapping of the whole
// file, of which only the headers' pages are touched) and the fatbin headers through `file`
// (positioned reads of the same file: one small read per header, where a mapping would fault in
// a page or more for each; torch's libtorch_cuda.so, 2981 entries in a 337 MB section, takes
// about 5 ms).
Expected<FatbinFile> read_fatbin_image(std::string_view headers, util::ByteSource& file);

} // namespace doctor::formats
