// SPDX-License-Identifier: MIT
// Headers, sections, import tables and the certificate table; the resource tree and its
// VS_VERSIONINFO are read in pe_resources.cpp.
#include <doctor/formats/pe.hpp>
#include <doctor/formats/pe_reader.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace doctor::formats {

namespace detail {

PeImage::PeImage(std::string_view data, const PeHeaders& headers)
    : m_data(data)
    , m_headers(headers) {
  for (const auto& s : headers.sections) {
    m_by_address.push_back(&s);
  }
  std::stable_sort(m_by_address.begin(), m_by_address.end(), [](const auto* a, const auto* b) {
    return a->virtual_address < b->virtual_address;
  });
}

PeImage::Where PeImage::locate(std::uint32_t rva, std::string_view& out) const {
  const auto after = std::upper_bound(
      m_by_address.begin(), m_by_address.end(), rva, [](std::uint32_t r, const auto* s) {
        return r < s->virtual_address;
      });
  if (after != m_by_address.begin()) {
    const PeSection& s = **std::prev(after);
    const std::uint64_t span =
        align_up(s.virtual_size != 0 ? s.virtual_size : s.raw_size, m_headers.section_alignment);
    const std::uint64_t offset = rva - std::uint64_t{s.virtual_address};
    if (offset < span) {
      const std::uint64_t backed = std::min<std::uint64_t>(s.raw_size, span);
      if (offset >= backed) {
        return Where::zero_filled;
      }
      return slice(raw_pointer(s) + offset, backed - offset, out);
    }
  }
  // The headers are mapped at RVA 0; some small images keep their tables there.
  if (rva < m_headers.size_of_headers) {
    return slice(rva, m_headers.size_of_headers - std::uint64_t{rva}, out);
  }
  return Where::not_mapped;
}

std::uint64_t PeImage::raw_pointer(const PeSection& s) const {
  constexpr std::uint32_t k_sector = 512;
  if (m_headers.file_alignment < k_sector) {
    return s.raw_pointer;
  }
  return std::uint64_t{s.raw_pointer} / k_sector * k_sector;
}

PeImage::Where
PeImage::slice(std::uint64_t offset, std::uint64_t length, std::string_view& out) const {
  if (offset >= m_data.size()) {
    return Where::past_eof;
  }
  out = m_data.substr(offset, std::min<std::uint64_t>(length, m_data.size() - offset));
  return Where::in_file;
}

std::string unreadable(std::string_view what, std::uint32_t rva, PeImage::Where where) {
  switch (where) {
  case PeImage::Where::not_mapped:
    return fmt::format("{} at rva {:#x} is not in any section", what, rva);
  case PeImage::Where::zero_filled:
    return fmt::format("{} at rva {:#x} lies in zero-filled memory, not in the file", what, rva);
  case PeImage::Where::past_eof:
  default:
    return fmt::format("{} at rva {:#x} lies past the end of the file (truncated?)", what, rva);
  }
}

} // namespace detail

namespace {

using detail::k_data_directories;
using detail::PeDataDirectory;
using detail::PeHeaders;
using detail::PeImage;
using detail::PeSection;
using detail::read_version_resource;
using detail::unreadable;

// Layouts from the PE/COFF specification (Microsoft, "PE Format") and winnt.h.
constexpr std::size_t k_dos_header = 64;
constexpr std::size_t k_lfanew_at = 0x3c;
constexpr std::size_t k_coff_header = 20; // after the 4-byte signature
constexpr std::size_t k_section_header = 40;
constexpr std::uint16_t k_magic_pe32 = 0x10b;
constexpr std::uint16_t k_magic_pe32_plus = 0x20b;
constexpr std::uint16_t k_file_dll = 0x2000; // IMAGE_FILE_DLL
constexpr std::size_t k_dir_import = 1;
constexpr std::size_t k_dir_resource = 2;
constexpr std::size_t k_dir_security = 4;
constexpr std::size_t k_dir_delay_import = 13;
constexpr std::size_t k_import_descriptor = 20;
constexpr std::size_t k_delay_descriptor = 32;

// Limits: Windows loads at most 96 sections; real DLLs import a few dozen DLLs; MAX_PATH bounds a
// DLL name. Anything beyond is damage, and cutting it off keeps the work bounded.
constexpr std::size_t k_max_sections = 96;
constexpr std::size_t k_max_sections_read = 1024;
constexpr std::size_t k_max_imports = 4096;
constexpr std::size_t k_max_dll_name = 260;
constexpr std::size_t k_max_section_name = 256;

// Reads a DLL name at `rva`; records a problem and returns false when it cannot.
bool read_dll_name(const PeImage& image,
                   std::uint32_t rva,
                   std::string_view what,
                   std::string& out,
                   std::vector<std::string>& problems) {
  std::string_view view;
  const auto where = image.locate(rva, view);
  if (where != PeImage::Where::in_file) {
    problems.push_back(unreadable(what, rva, where));
    return false;
  }
  const auto name = ByteReader(view).c_string(0, k_max_dll_name + 1);
  if (!name) {
    problems.push_back(fmt::format("{} at rva {:#x} is unterminated", what, rva));
    return false;
  }
  out.assign(*name);
  return true;
}

// The import directory (IMAGE_IMPORT_DESCRIPTOR: 20 bytes, Name at 12, FirstThunk at 16) or the
// delay-load directory (IMAGE_DELAYLOAD_DESCRIPTOR: 32 bytes, Attributes at 0, DllNameRVA at 4,
// ImportAddressTableRVA at 12). Like the loader, the walk ignores the directory's size and ends at
// the first entry without a name or an address table, or at the cap. In a delay-load descriptor,
// attribute bit 0 set means its fields are RVAs; the old Visual C++ 6 form (bit clear) holds
// virtual addresses, which become RVAs by subtracting the image base.
void read_import_table(const PeImage& image,
                       const PeDataDirectory& dir,
                       bool delay,
                       std::uint64_t image_base,
                       PeInfo& info) {
  const std::string_view what = delay ? "delay-load directory" : "import directory";
  const std::size_t entry = delay ? k_delay_descriptor : k_import_descriptor;
  auto& out = delay ? info.delay_imports : info.imports;
  if (dir.rva == 0) {
    return;
  }
  std::string_view table;
  const auto where = image.locate(dir.rva, table);
  if (where != PeImage::Where::in_file) {
    info.problems.push_back(unreadable(what, dir.rva, where));
    return;
  }
  for (std::size_t i = 0;; ++i) {
    if (i == k_max_imports) {
      info.problems.push_back(
          fmt::format("{} has more than {} entries; the rest are ignored", what, k_max_imports));
      return;
    }
    const std::uint64_t at = i * entry;
    std::uint32_t attributes = 1;
    std::uint32_t name = 0;
    std::uint32_t thunks = 0;
    if ((delay && !read_le(table, at, attributes)) || !read_le(table, at + (delay ? 4 : 12), name)
        || !read_le(table, at + (delay ? 12 : 16), thunks)) {
      info.problems.push_back(
          fmt::format("{} at rva {:#x} ends after {} entries without a "
                      "terminator (its section's data ends first)",
                      what,
                      dir.rva,
                      i));
      return;
    }
    if (name == 0 || thunks == 0) {
      return;
    }
    const std::string_view kind = delay ? "delay import" : "import";
    if ((attributes & 1U) == 0) {
      // A 32-bit field holds the VA, so only an image based below 4 GiB can use this form.
      if (name < image_base) {
        info.problems.push_back(fmt::format(
            "{} {} name address {:#x} is below the image base {:#x}", kind, i, name, image_base));
        continue;
      }
      name = static_cast<std::uint32_t>(name - image_base);
    }
    std::string dll;
    if (read_dll_name(image, name, fmt::format("{} {} name", kind, i), dll, info.problems)) {
      out.push_back(std::move(dll));
    }
  }
}

// The certificate table: the one data directory whose "RVA" is a file offset. Authenticode puts
// it at the end of the file, so a download cut short loses it first.
void read_certificates(std::string_view data, const PeDataDirectory& dir, PeInfo& info) {
  constexpr std::uint32_t k_win_certificate = 8;
  if (dir.size == 0) {
    return;
  }
  const std::uint64_t end = std::uint64_t{dir.rva} + dir.size;
  if (end > data.size()) {
    info.problems.push_back(
        fmt::format("certificate table (offset {}, {} bytes) ends at {}, past "
                    "the end of the {}-byte file (truncated?)",
                    dir.rva,
                    dir.size,
                    end,
                    data.size()));
    return;
  }
  std::uint32_t length = 0;
  if (dir.size < k_win_certificate || !read_le(data, dir.rva, length) || length < k_win_certificate
      || length > dir.size) {
    info.problems.push_back(
        fmt::format("certificate table at offset {} ({} bytes) holds no valid WIN_CERTIFICATE",
                    dir.rva,
                    dir.size));
    return;
  }
  info.has_signature = true;
}

// A section's name: 8 bytes padded with NULs, or "/123", an offset into the COFF string table
// (mingw writes long names such as ".debug_info" this way).
std::string section_name(std::string_view data,
                         std::string_view raw,
                         std::uint32_t symbols,
                         std::uint32_t symbol_count) {
  constexpr std::uint64_t k_symbol = 18;
  std::string name(raw.substr(0, raw.find('\0')));
  if (name.size() < 2 || name[0] != '/' || symbols == 0) {
    return name;
  }
  std::uint64_t offset = 0;
  for (std::size_t i = 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') {
      return name;
    }
    offset = offset * 10 + static_cast<std::uint64_t>(name[i] - '0');
  }
  const std::uint64_t strings = symbols + std::uint64_t{symbol_count} * k_symbol;
  if (const auto long_name = ByteReader(data).c_string(strings + offset, k_max_section_name + 1)) {
    return std::string(*long_name);
  }
  return name;
}

} // namespace

std::string pe_machine_name(std::uint32_t machine) {
  switch (machine) {
  case 0x8664:
    return "x64";
  case 0x14c:
    return "x86";
  case 0xaa64:
    return "arm64";
  default:
    return fmt::format("machine {:#x}", machine);
  }
}

bool is_pe(std::string_view data) {
  std::uint32_t lfanew = 0;
  std::uint32_t signature = 0;
  return data.size() >= k_dos_header && data.starts_with("MZ") && read_le(data, k_lfanew_at, lfanew)
         && read_le(data, lfanew, signature) && signature == 0x00004550;
}

Expected<PeInfo> parse_pe(std::string_view data) {
  if (data.size() < k_dos_header || !data.starts_with("MZ")) {
    return make_error(ErrorCode::parse, "not a pe file (no MZ header)");
  }
  std::uint32_t lfanew = 0;
  read_le(data, k_lfanew_at, lfanew);
  std::uint32_t signature = 0;
  if (!read_le(data, lfanew, signature)) {
    return make_error(ErrorCode::parse,
                      fmt::format("pe header offset {} is past the end of the {}-byte file",
                                  lfanew,
                                  data.size()));
  }
  if (signature != 0x00004550) {
    return make_error(ErrorCode::parse,
                      fmt::format("not a pe file (no PE signature at offset {})", lfanew));
  }
  const std::uint64_t coff = std::uint64_t{lfanew} + 4;
  const std::uint64_t opt = coff + k_coff_header;
  PeInfo info;
  std::uint16_t machine = 0;
  std::uint16_t section_count = 0;
  std::uint32_t symbols = 0;
  std::uint32_t symbol_count = 0;
  std::uint16_t opt_size = 0;
  std::uint16_t characteristics = 0;
  std::uint16_t magic = 0;
  if (!read_le(data, coff, machine) || !read_le(data, coff + 2, section_count)
      || !read_le(data, coff + 4, info.timestamp) || !read_le(data, coff + 8, symbols)
      || !read_le(data, coff + 12, symbol_count) || !read_le(data, coff + 16, opt_size)
      || !read_le(data, coff + 18, characteristics) || !read_le(data, opt, magic)) {
    return make_error(ErrorCode::parse,
                      fmt::format("coff header at offset {} runs past the end of the {}-byte file",
                                  coff,
                                  data.size()));
  }
  info.machine = machine;
  info.machine_name = pe_machine_name(machine);
  info.is_dll = (characteristics & k_file_dll) != 0;
  if (magic != k_magic_pe32 && magic != k_magic_pe32_plus) {
    return make_error(ErrorCode::parse, fmt::format("unknown optional header magic {:#x}", magic));
  }
  info.pe32_plus = magic == k_magic_pe32_plus;

  // The optional header's fixed part differs between PE32 and PE32+ only in BaseOfData and the
  // widths of ImageBase and the stack and heap sizes.
  PeHeaders h;
  const std::uint64_t dirs_at = opt + (info.pe32_plus ? 112 : 96);
  std::uint32_t dir_count = 0;
  bool ok = read_le(data, opt + 32, h.section_alignment)
            && read_le(data, opt + 36, h.file_alignment)
            && read_le(data, opt + 60, h.size_of_headers) && read_le(data, dirs_at - 4, dir_count);
  if (info.pe32_plus) {
    ok = ok && read_le(data, opt + 24, h.image_base);
  } else {
    std::uint32_t base = 0;
    ok = ok && read_le(data, opt + 28, base);
    h.image_base = base;
  }
  if (!ok) {
    return make_error(
        ErrorCode::parse,
        fmt::format("optional header at offset {} runs past the end of the {}-byte file",
                    opt,
                    data.size()));
  }
  if (dirs_at - opt > opt_size) {
    info.problems.push_back(
        fmt::format("optional header size {} is smaller than its fixed fields ({} bytes)",
                    opt_size,
                    dirs_at - opt));
  }
  if (dir_count > k_data_directories) {
    info.problems.push_back(fmt::format(
        "optional header declares {} data directories (at most 16 are defined)", dir_count));
  }
  const std::uint64_t dirs_fit = opt_size > dirs_at - opt ? (opt_size - (dirs_at - opt)) / 8 : 0;
  const std::uint64_t dir_read = std::min<std::uint64_t>({dir_count, k_data_directories, dirs_fit});
  for (std::size_t i = 0; i < dir_read; ++i) {
    auto& d = h.directories.at(i);
    if (!read_le(data, dirs_at + i * 8, d.rva) || !read_le(data, dirs_at + i * 8 + 4, d.size)) {
      info.problems.push_back(
          fmt::format("data directory {} lies past the end of the {}-byte file", i, data.size()));
      d = {};
      break;
    }
  }

  const std::uint64_t table = opt + opt_size;
  if (section_count > k_max_sections) {
    info.problems.push_back(
        fmt::format("{} sections (windows loads at most {})", section_count, k_max_sections));
  }
  if (section_count > k_max_sections_read) {
    info.problems.push_back(
        fmt::format("only the first {} sections are read", k_max_sections_read));
  }
  for (std::size_t i = 0; i < std::min<std::size_t>(section_count, k_max_sections_read); ++i) {
    const std::uint64_t at = table + i * k_section_header;
    PeSection s;
    if (at > data.size() || data.size() - at < k_section_header) {
      info.problems.push_back(
          fmt::format("section table ({} entries at offset {}) ends at {}, "
                      "past the end of the {}-byte file (truncated?)",
                      section_count,
                      table,
                      table + section_count * k_section_header,
                      data.size()));
      break;
    }
    read_le(data, at + 8, s.virtual_size);
    read_le(data, at + 12, s.virtual_address);
    read_le(data, at + 16, s.raw_size);
    read_le(data, at + 20, s.raw_pointer);
    s.name = section_name(data, data.substr(at, 8), symbols, symbol_count);
    info.section_names.push_back(s.name);
    h.sections.push_back(std::move(s));
  }
  const PeImage image(data, h);
  for (const auto& s : h.sections) {
    info.section_ranges.push_back(
        {image.raw_pointer(s),
         s.virtual_size != 0 ? std::min(s.raw_size, s.virtual_size) : s.raw_size});
    const std::uint64_t end = image.raw_pointer(s) + s.raw_size;
    if (s.raw_size != 0 && end > data.size()) {
      info.problems.push_back(
          fmt::format("section {} ends at {}, past the end of the {}-byte file "
                      "(truncated?)",
                      util::sanitize(s.name, 64),
                      end,
                      data.size()));
    }
  }

  read_import_table(image, h.directories[k_dir_import], false, h.image_base, info);
  read_import_table(image, h.directories[k_dir_delay_import], true, h.image_base, info);
  read_version_resource(image, h.directories[k_dir_resource], info);
  read_certificates(data, h.directories[k_dir_security], info);
  return info;
}

} // namespace doctor::formats
