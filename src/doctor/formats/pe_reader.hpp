// SPDX-License-Identifier: MIT
// Private to formats/pe*.cpp: the RVA mapping shared by pe.cpp (headers, sections, imports,
// certificates) and pe_resources.cpp (the version resource). Both read integers with read_le
// (byte_reader.hpp), which fails instead of reading outside the bytes.
#pragma once

#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/pe.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::formats::detail {

inline constexpr std::size_t k_data_directories = 16;

// Rounds `value` up to a multiple of `alignment`; unchanged unless `alignment` is a power of two
// above 1.
inline std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  if (alignment <= 1 || (alignment & (alignment - 1)) != 0) {
    return value;
  }
  return (value + alignment - 1) & ~(alignment - 1);
}

struct PeSection {
  std::string name;
  std::uint32_t virtual_size = 0;
  std::uint32_t virtual_address = 0;
  std::uint32_t raw_size = 0;
  std::uint32_t raw_pointer = 0;
};

struct PeDataDirectory {
  std::uint32_t rva = 0;
  std::uint32_t size = 0;
};

// The headers every later step needs.
struct PeHeaders {
  std::uint64_t image_base = 0;
  std::uint32_t section_alignment = 0;
  std::uint32_t file_alignment = 0;
  std::uint32_t size_of_headers = 0;
  std::array<PeDataDirectory, k_data_directories> directories{};
  std::vector<PeSection> sections;
};

// Maps RVAs to the file bytes behind them, as the Windows loader lays sections out: a section
// spans VirtualSize (or SizeOfRawData when that is 0) rounded up to SectionAlignment, and only its
// first SizeOfRawData bytes come from the file; the rest is zero-filled memory. The loader wants
// sections in ascending address order without overlaps, so a binary search finds the one an RVA
// falls in (for a damaged image with overlaps, one of the candidates).
class PeImage {
public:
  enum class Where { in_file, not_mapped, zero_filled, past_eof };

  // Keeps references to `data` and `headers`, which must outlive the image.
  PeImage(std::string_view data, const PeHeaders& headers);

  // The file bytes from `rva` to the end of its section's file data (cut at the end of the file),
  // and where the RVA lies.
  Where locate(std::uint32_t rva, std::string_view& out) const;

  // The file offset where section `s`'s data starts. The loader rounds PointerToRawData down to a
  // multiple of 512 whenever FileAlignment is at least 512, whatever the header says.
  std::uint64_t raw_pointer(const PeSection& s) const;

private:
  Where slice(std::uint64_t offset, std::uint64_t length, std::string_view& out) const;

  std::string_view m_data;
  const PeHeaders& m_headers;
  std::vector<const PeSection*> m_by_address;
};

// Describes why `what` at `rva` could not be read, for `problems`.
std::string unreadable(std::string_view what, std::uint32_t rva, PeImage::Where where);

// Reads the RT_VERSION resource of the resource directory `dir` into info.version; damage goes
// to info.problems (pe_resources.cpp).
void read_version_resource(const PeImage& image, const PeDataDirectory& dir, PeInfo& info);

} // namespace doctor::formats::detail
