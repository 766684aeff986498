// SPDX-License-Identifier: MIT
// The fatbinary layout. NVIDIA documents only the section names and the container magic; the entry
// header is known from reverse engineering, and what this file relies on was checked against nvcc
// 13.0 output and cuobjdump 13.1 (tests/unit/test_fatbin.cpp builds such libraries at test time).
//
// - Section names: FATBIN_DATA_SECTION_NAME ".nv_fatbin" in the toolkit's fatbinary_section.h.
//   PE images keep at most 8 bytes of a section name (PE/COFF specification, "Section Table"),
//   so MSVC-linked DLLs (torch_cuda.dll) carry ".nv_fatb"; mingw may keep the long name.
// - The section holds containers end to end, each a 16-byte fatBinaryHeader (fatbinary_section.h
//   in CUDA's include/ and n-eiling/cuda-fatbin-decompression fatbin-decompress.h): u32 magic
//   0xBA55ED50, u16 version (1), u16 headerSize (16, where the first entry starts), u64 fatSize
//   (bytes of entries after the header).
// - Each entry: a header of at least 64 bytes (n-eiling's fat_text_header, the same in
//   jiegec/fatbinary src/lib.rs), its payload right after the header. Little-endian fields:
//     0 u16 kind (1 PTX, 2 ELF)      2 u16 format version (0x0101)   4 u32 header size (64, 80,
//     96, 104 or 112: sm_100 and later add an extension)               8 u64 payload size, padded
//     16 u32 compressed size          24 u16 minor, 26 u16 major (PTX ISA "9.0"; cubin code "1.8")
//     28 u32 arch (75)                32 u32/36 u32 object name offset and length
//     40 u64 flags                    56 u64 uncompressed size
//   The next entry starts at header size + payload size (GrigoryEvko/nvopen-tools
//   fatbin/FORMAT_SPECIFICATION.md, "Traversal Algorithm"); the last one ends at fatSize.
// - Flags: 0x1 64-bit, 0x2 debug, 0x10 Linux host (n-eiling); compressed is 0x2000 in CUDA 11-12
//   (n-eiling) and 0x8000 in CUDA 12.8+ output (nvopen-tools, "bit 15"; seen in nvcc 13.0 PTX and
//   the torch wheel's cubins). The architecture suffix is not in `arch`: nvcc 13.0 sets 0x100000
//   for an arch-specific target (sm_90a, compute_100a) and 0x200000 for a family-specific one
//   (sm_100f, compute_100f), as cuobjdump's names for the same entries show.
#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/elf.hpp>
#include <doctor/formats/fatbin.hpp>
#include <doctor/formats/pe.hpp>
#include <doctor/util/byte_source.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

namespace doctor::formats {

namespace {

constexpr std::uint32_t k_magic = 0xBA55ED50U;
constexpr std::uint64_t k_container_header = 16;
constexpr std::uint64_t k_entry_header = 64;
constexpr std::uint64_t k_max_containers = std::uint64_t{1} << 20U;
constexpr std::uint64_t k_max_entries = std::uint64_t{1} << 20U;
constexpr std::size_t k_max_problems = 64;
// Zero bytes a linker may put between containers to align the next one.
constexpr std::uint64_t k_max_padding = 4096;

constexpr unsigned k_kind_ptx = 1;
constexpr unsigned k_kind_elf = 2;
constexpr std::uint64_t k_flag_compressed_old = 0x2000;
constexpr std::uint64_t k_flag_compressed = 0x8000;
constexpr std::uint64_t k_flag_arch_specific = 0x100000;
constexpr std::uint64_t k_flag_family_specific = 0x200000;

// A window [offset, offset + size) of a larger source: the section inside its file.
class WindowSource final : public util::ByteSource {
public:
  WindowSource(util::ByteSource& inner, std::uint64_t offset, std::uint64_t size)
      : m_inner(inner)
      , m_offset(offset)
      , m_size(size) {}
  std::uint64_t size() const override { return m_size; }
  std::string_view read(std::uint64_t offset, std::size_t length) override {
    if (offset >= m_size) {
      return {};
    }
    length = static_cast<std::size_t>(std::min<std::uint64_t>(length, m_size - offset));
    return m_inner.read(m_offset + offset, length);
  }

private:
  util::ByteSource& m_inner;
  std::uint64_t m_offset;
  std::uint64_t m_size;
};

// Walks the containers and entries of a section, reading each header once into a small buffer.
// Every field is read through a ByteReader over that buffer, so a short read (a truncated file)
// only gives zeros, never an out-of-bounds access.
class FatbinReader {
public:
  explicit FatbinReader(util::ByteSource& source)
      : m_source(source) {}

  FatbinInfo run() {
    std::uint64_t at = 0;
    while (at < m_source.size()) {
      at = skip_padding(at);
      if (at >= m_source.size()) {
        break;
      }
      if (m_info.containers == k_max_containers) {
        problem("more than {} containers; the rest are not read", k_max_containers);
        break;
      }
      const auto next = read_container(at);
      if (!next) {
        break;
      }
      at = *next;
    }
    if (m_omitted > 0) {
      m_info.problems.push_back(fmt::format("{} more problems not listed", m_omitted));
    }
    return std::move(m_info);
  }

private:
  template<typename... Args>
  void problem(fmt::format_string<Args...> format, Args&&... args) {
    if (m_info.problems.size() < k_max_problems) {
      m_info.problems.push_back(fmt::format(format, std::forward<Args>(args)...));
    } else {
      ++m_omitted;
    }
  }

  // Skips the zero bytes at `at`, at most k_max_padding of them.
  std::uint64_t skip_padding(std::uint64_t at) {
    const std::string_view bytes = m_source.read(at, k_max_padding);
    const std::size_t zeros = bytes.find_first_not_of('\0');
    return at + (zeros == std::string_view::npos ? bytes.size() : zeros);
  }

  // Reads the container at `at`; returns where the next one may start, or nothing to stop.
  std::optional<std::uint64_t> read_container(std::uint64_t at) {
    const std::uint64_t index = m_info.containers;
    const ByteReader header(m_source.read(at, k_container_header));
    if (header.size() < k_container_header) {
      problem(
          "container {} at offset {} has a {}-byte header, past the end of the {}-byte "
          "section (truncated?)",
          index,
          at,
          k_container_header,
          m_source.size());
      return std::nullopt;
    }
    const auto magic = static_cast<std::uint32_t>(header.uint(0, 4));
    if (magic != k_magic) {
      problem(
          "container {} at offset {} has magic {:#010x}, not {:#010x}", index, at, magic, k_magic);
      return std::nullopt;
    }
    ++m_info.containers;
    const std::uint64_t header_size = header.uint(6, 2);
    const std::uint64_t fat_size = header.uint(8, 8);
    if (header_size < k_container_header) {
      problem("container {} at offset {} has a {}-byte header, less than {}",
              index,
              at,
              header_size,
              k_container_header);
      return std::nullopt;
    }
    std::uint64_t end = 0;
    bool truncated = false;
    const std::uint64_t size = m_source.size();
    if (header_size > size - at || fat_size > size - at - header_size) {
      problem(
          "container {} at offset {} declares {} bytes of entries, past the end of the "
          "{}-byte section (truncated?)",
          index,
          at,
          fat_size,
          size);
      end = size;
      truncated = true;
    } else {
      end = at + header_size + fat_size;
    }
    const bool complete = read_entries(index, std::min(at + header_size, end), end);
    if (truncated || !complete) {
      return std::nullopt;
    }
    return end;
  }

  // Reads the entries in [at, end); false if the walk had to stop early.
  bool read_entries(std::uint64_t container, std::uint64_t at, std::uint64_t end) {
    while (at < end) {
      if (m_info.entries.size() == k_max_entries) {
        problem("more than {} entries; the rest are not read", k_max_entries);
        return false;
      }
      if (end - at < k_entry_header) {
        problem("entry at offset {} in container {} needs {} header bytes, {} are left",
                at,
                container,
                k_entry_header,
                end - at);
        return false;
      }
      const ByteReader header(m_source.read(at, k_entry_header));
      const std::uint64_t header_size = header.uint(4, 4);
      const std::uint64_t payload_size = header.uint(8, 8);
      if (header_size < k_entry_header) {
        problem("entry at offset {} in container {} has a {}-byte header, less than {}",
                at,
                container,
                header_size,
                k_entry_header);
        return false;
      }
      m_info.entries.push_back(entry_at(header, at, container));
      if (header_size > end - at || payload_size > end - at - header_size) {
        problem(
            "entry at offset {} in container {} ({}-byte header, {}-byte payload) ends past "
            "its container's end at {}",
            at,
            container,
            header_size,
            payload_size,
            end);
        return false;
      }
      at += header_size + payload_size;
    }
    return true;
  }

  // The entry whose header at section offset `at` is `header`.
  static FatbinEntry entry_at(const ByteReader& header, std::uint64_t at, std::uint64_t container) {
    FatbinEntry e;
    e.kind_code = static_cast<unsigned>(header.uint(0, 2));
    e.kind = e.kind_code == k_kind_ptx   ? FatbinKind::ptx
             : e.kind_code == k_kind_elf ? FatbinKind::sass
                                         : FatbinKind::other;
    e.version_minor = static_cast<unsigned>(header.uint(24, 2));
    e.version_major = static_cast<unsigned>(header.uint(26, 2));
    e.arch = static_cast<unsigned>(header.uint(28, 4));
    const std::uint64_t flags = header.uint(40, 8);
    e.compressed = (flags & (k_flag_compressed | k_flag_compressed_old)) != 0;
    if ((flags & k_flag_arch_specific) != 0) {
      e.arch_suffix = "a";
    } else if ((flags & k_flag_family_specific) != 0) {
      e.arch_suffix = "f";
    }
    e.payload_size = header.uint(8, 8);
    e.container = container;
    e.offset = at;
    return e;
  }

  util::ByteSource& m_source;
  FatbinInfo m_info;
  std::size_t m_omitted = 0;
};

// Sort key of an entry's architecture: SASS before PTX, then number, then suffix.
using ArchKey = std::tuple<int, unsigned, std::string>;

std::optional<ArchKey> arch_key(const FatbinEntry& e) {
  if (e.kind == FatbinKind::other) {
    return std::nullopt;
  }
  return ArchKey{e.kind == FatbinKind::sass ? 0 : 1, e.arch, e.arch_suffix};
}

std::string key_name(const ArchKey& k) {
  return fmt::format(
      "{}_{}{}", std::get<0>(k) == 0 ? "sm" : "compute", std::get<1>(k), std::get<2>(k));
}

// Where `names` holds `name`.
std::optional<std::size_t> section_index(const std::vector<std::string>& names,
                                         std::string_view name) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) {
      return i;
    }
  }
  return std::nullopt;
}

// Finds the fatbin section of the ELF or PE file in `data`; its bytes are not read. The result's
// FatbinInfo is empty.
Expected<FatbinFile> locate_section(std::string_view data) {
  auto found = [](std::string format, std::string name, const SectionRange& range) {
    return FatbinFile{std::move(format), std::move(name), range.offset, range.size, {}};
  };
  if (is_elf(data)) {
    auto elf = parse_elf(data);
    if (!elf) {
      return tl::unexpected(elf.error());
    }
    const auto i = section_index(elf->section_names, ".nv_fatbin");
    if (!i || *i >= elf->section_ranges.size()) {
      return make_error(ErrorCode::not_found,
                        elf->problems.empty()
                            ? std::string("no .nv_fatbin section (no CUDA device code)")
                            : fmt::format("no .nv_fatbin section found ({})", elf->problems[0]));
    }
    return found("elf", ".nv_fatbin", elf->section_ranges[*i]);
  }
  if (is_pe(data)) {
    auto pe = parse_pe(data);
    if (!pe) {
      return tl::unexpected(pe.error());
    }
    for (const std::string_view name : {".nv_fatb", ".nv_fatbin"}) {
      const auto i = section_index(pe->section_names, name);
      if (i && *i < pe->section_ranges.size()) {
        return found("pe", std::string(name), pe->section_ranges[*i]);
      }
    }
    return make_error(ErrorCode::not_found,
                      pe->problems.empty()
                          ? std::string("no .nv_fatb section (no CUDA device code)")
                          : fmt::format("no .nv_fatb section found ({})", pe->problems[0]));
  }
  return make_error(ErrorCode::parse, "neither an ELF nor a PE file");
}

// The part of `file`'s section that lies inside a `file_size`-byte file.
std::uint64_t bytes_in_file(const FatbinFile& file, std::uint64_t file_size) {
  return file.section_offset >= file_size
             ? 0
             : std::min(file.section_size, file_size - file.section_offset);
}

// Reads the section through `source` (the bytes_in_file part of it) into file.fatbin.
void read_section(FatbinFile& file, std::uint64_t file_size, util::ByteSource& source) {
  file.fatbin = FatbinReader(source).run();
  if (source.size() < file.section_size) {
    file.fatbin.problems.insert(
        file.fatbin.problems.begin(),
        fmt::format("section {} at offset {} ({} bytes) ends past the end of the {}-byte file "
                    "(truncated?)",
                    file.section_name,
                    file.section_offset,
                    file.section_size,
                    file_size));
  }
}

} // namespace

std::string FatbinEntry::arch_name() const {
  switch (kind) {
  case FatbinKind::sass:
    return fmt::format("sm_{}{}", arch, arch_suffix);
  case FatbinKind::ptx:
    return fmt::format("compute_{}{}", arch, arch_suffix);
  case FatbinKind::other:
    break;
  }
  return fmt::format("kind {} arch {}", kind_code, arch);
}

FatbinInfo parse_fatbin(std::string_view section) {
  util::MemorySource source(section);
  return FatbinReader(source).run();
}

std::vector<std::string> fatbin_archs(const FatbinInfo& info) {
  std::set<ArchKey> keys;
  for (const FatbinEntry& e : info.entries) {
    if (auto k = arch_key(e)) {
      keys.insert(std::move(*k));
    }
  }
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const ArchKey& k : keys) {
    out.push_back(key_name(k));
  }
  return out;
}

std::vector<std::string> fatbin_common_archs(const FatbinInfo& info) {
  // Per kind (0 SASS, 1 PTX): the containers holding that kind, and per architecture the
  // containers holding it. Entries come in container order, so a container is counted once by
  // comparing with the last one seen.
  std::array<std::uint64_t, 2> holders{};
  std::array<std::optional<std::uint64_t>, 2> last_holder{};
  std::map<ArchKey, std::pair<std::uint64_t, std::uint64_t>> seen; // containers, last container
  for (const FatbinEntry& e : info.entries) {
    auto k = arch_key(e);
    if (!k) {
      continue;
    }
    const auto kind = static_cast<std::size_t>(std::get<0>(*k));
    if (last_holder.at(kind) != e.container) {
      last_holder.at(kind) = e.container;
      ++holders.at(kind);
    }
    auto [it, inserted] = seen.try_emplace(std::move(*k), 1, e.container);
    if (!inserted && it->second.second != e.container) {
      ++it->second.first;
      it->second.second = e.container;
    }
  }
  std::vector<std::string> out;
  for (const auto& [k, count] : seen) {
    if (count.first == holders.at(static_cast<std::size_t>(std::get<0>(k)))) {
      out.push_back(key_name(k));
    }
  }
  return out;
}

Expected<FatbinFile> read_fatbin_image(std::string_view data) {
  util::MemorySource whole(data);
  return read_fatbin_image(data, whole);
}

Expected<FatbinFile> read_fatbin_image(std::string_view headers, util::ByteSource& file) {
  auto located = locate_section(headers);
  if (located) {
    WindowSource section(file, located->section_offset, bytes_in_file(*located, file.size()));
    read_section(*located, file.size(), section);
  }
  return located;
}

} // namespace doctor::formats
