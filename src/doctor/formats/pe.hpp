// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/formats/section_range.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::formats {

// Strings of a PE file's version resource (VS_VERSIONINFO, first language found) and its fixed
// file version numbers. NVIDIA's DLLs name their cuDNN and CUDA release here.
struct PeVersionInfo {
  std::string file_version;    // StringFileInfo "FileVersion"
  std::string product_version; // "ProductVersion"
  std::string product_name;    // "ProductName"
  std::string file_description;
  std::string company_name;
  std::string original_filename;
  std::string fixed_file_version;    // VS_FIXEDFILEINFO dwFileVersionMS/LS as "a.b.c.d"
  std::string fixed_product_version; // dwProductVersionMS/LS
  bool operator==(const PeVersionInfo&) const = default;
};

// What the doctor needs to know about one PE file (a DLL or EXE).
struct PeInfo {
  unsigned machine = 0;     // IMAGE_FILE_HEADER.Machine
  std::string machine_name; // "x64", "x86", "arm64", or "machine 0x…"
  bool pe32_plus = false;   // 64-bit optional header
  bool is_dll = false;
  std::uint32_t timestamp = 0;
  std::vector<std::string> imports; // DLL names of the import directory, in order
  // DLL names of the delay-load directory, in order (RVA-based and old VA-based descriptors).
  // GNU ld leaves this directory empty even when dlltool's delay-load stubs are linked in.
  std::vector<std::string> delay_imports;
  std::optional<PeVersionInfo> version;
  // A certificate (security) directory that lies inside the file and starts with a plausible
  // WIN_CERTIFICATE: Authenticode is present (not verified). It sits at the end of the file, so a
  // truncated copy loses it and gets a "(truncated?)" problem instead.
  bool has_signature = false;
  // In table order; "/4"-style long names (mingw's ".debug_info") come from the COFF string table.
  std::vector<std::string> section_names;
  // Every section's file bytes, indexed like section_names: where the loader reads them from, and
  // SizeOfRawData cut to VirtualSize (the rest is file-alignment padding).
  std::vector<SectionRange> section_ranges;
  // Structural problems ("section .text ends at 173056, past the end of the 100000-byte file
  // (truncated?)"); the rest is still read where possible.
  std::vector<std::string> problems;
};

// True if `data` starts with "MZ" and points at a "PE\0\0" header.
bool is_pe(std::string_view data);

// Reads a PE file held entirely in `data`. Returns ErrorCode::parse if it is not a PE file or its
// headers (DOS, COFF, the optional header's fixed part) cannot be read; later damage (tables,
// names or sections outside the file, RVAs outside every section, absurd counts) is recorded in
// `problems`. Touches only the headers, import tables and version resource of a mapped file. Never
// reads outside `data`; bounded work for any input (resource trees with loops or absurd depths are
// cut off).
Expected<PeInfo> parse_pe(std::string_view data);

// Returns "x64", "x86", "arm64" or "machine 0x…" for a COFF machine type (IMAGE_FILE_MACHINE_*,
// which a kernel dump's MachineImageType holds too).
std::string pe_machine_name(std::uint32_t machine);

} // namespace doctor::formats
