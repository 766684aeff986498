// SPDX-License-Identifier: MIT
// The resource directory walk to RT_VERSION and the VS_VERSIONINFO it holds.
#include <doctor/formats/pe.hpp>
#include <doctor/formats/pe_reader.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace doctor::formats::detail {

namespace {

// Layouts from the PE/COFF specification and winnt.h (VS_FIXEDFILEINFO).
constexpr std::uint32_t k_rt_version = 16;
constexpr std::uint32_t k_fixed_info_signature = 0xfeef04bd;
constexpr std::size_t k_fixed_info_size = 52;

// Entries read from one resource directory: anything beyond is damage, and cutting it off keeps
// the work bounded.
constexpr std::size_t k_max_resource_entries = 4096;

// Decodes UTF-16LE code units to UTF-8; an unpaired surrogate becomes U+FFFD (in
// util::append_utf8).
std::string utf16_to_utf8(const std::vector<std::uint16_t>& units) {
  std::string out;
  out.reserve(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) {
    const std::uint32_t u = units[i];
    if (u >= 0xd800 && u < 0xdc00 && i + 1 < units.size() && units[i + 1] >= 0xdc00
        && units[i + 1] < 0xe000) {
      util::append_utf8(out, 0x10000 + ((u - 0xd800) << 10U) + (units[i + 1] - 0xdc00U));
      ++i;
    } else {
      util::append_utf8(out, u);
    }
  }
  return out;
}

// One node of the version resource: wLength, wValueLength, wType, a NUL-terminated UTF-16 key,
// padding to 32 bits, the value, padding, then children up to wLength. Offsets count from the
// start of VS_VERSIONINFO, which is what the 32-bit alignment refers to.
struct VersionBlock {
  std::size_t end = 0;  // one past its last byte, inside the parent
  std::size_t next = 0; // where the next sibling starts
  std::string key;
  std::uint16_t value_length = 0;
  std::size_t value = 0;
  std::size_t children = 0;
};

std::optional<VersionBlock>
read_version_block(std::string_view buf, std::size_t at, std::size_t limit) {
  constexpr std::size_t k_block_header = 6;
  std::uint16_t length = 0;
  std::uint16_t type = 0;
  VersionBlock b;
  if (at + k_block_header > limit || !read_le(buf, at, length)
      || !read_le(buf, at + 2, b.value_length) || !read_le(buf, at + 4, type)
      || length < k_block_header) {
    return std::nullopt;
  }
  b.end = std::min<std::size_t>(at + length, limit);
  b.next = align_up(at + length, 4);
  std::vector<std::uint16_t> key;
  std::size_t p = at + k_block_header;
  for (;; p += 2) {
    std::uint16_t unit = 0;
    if (p + 2 > b.end || !read_le(buf, p, unit)) {
      return std::nullopt; // an unterminated key
    }
    if (unit == 0) {
      break;
    }
    key.push_back(unit);
  }
  b.key = utf16_to_utf8(key);
  b.value = align_up(p + 2, 4);
  // Text values count UTF-16 units, binary ones bytes.
  const std::size_t value_bytes = type == 1 ? std::size_t{b.value_length} * 2 : b.value_length;
  b.children = align_up(b.value + value_bytes, 4);
  return b;
}

// A String's value: UTF-16 from its value offset to the first NUL or the end of the block. The
// declared wValueLength is not trusted (resource compilers disagree on whether it counts the NUL,
// and some count bytes).
std::string version_string_value(std::string_view buf, const VersionBlock& b) {
  std::vector<std::uint16_t> units;
  for (std::size_t p = b.value; p + 2 <= b.end; p += 2) {
    std::uint16_t unit = 0;
    if (!read_le(buf, p, unit) || unit == 0) {
      break;
    }
    units.push_back(unit);
  }
  return utf16_to_utf8(units);
}

std::string version_quad(std::uint32_t ms, std::uint32_t ls) {
  return fmt::format("{}.{}.{}.{}", ms >> 16U, ms & 0xffffU, ls >> 16U, ls & 0xffffU);
}

// Parses VS_VERSIONINFO in `buf`: the fixed file info, then the first StringTable of its
// StringFileInfo. Each level advances by at least the 6-byte header, and wLength is 16 bits, so
// the walk is bounded.
PeVersionInfo parse_version_info(std::string_view buf, std::vector<std::string>& problems) {
  PeVersionInfo v;
  const auto root = read_version_block(buf, 0, buf.size());
  if (!root || root->key != "VS_VERSION_INFO") {
    problems.emplace_back("version resource does not start with a VS_VERSION_INFO block");
    return v;
  }
  if (root->value_length >= k_fixed_info_size) {
    std::uint32_t signature = 0;
    std::array<std::uint32_t, 4> numbers{};
    bool ok = read_le(buf, root->value, signature) && root->value + k_fixed_info_size <= root->end;
    for (std::size_t i = 0; ok && i < numbers.size(); ++i) {
      ok = read_le(buf, root->value + 8 + i * 4, numbers.at(i));
    }
    if (!ok) {
      problems.emplace_back("version resource: fixed file info runs past the block");
    } else if (signature != k_fixed_info_signature) {
      problems.push_back(fmt::format(
          "version resource: fixed file info signature {:#x} (expected 0xfeef04bd)", signature));
    } else {
      v.fixed_file_version = version_quad(numbers[0], numbers[1]);
      v.fixed_product_version = version_quad(numbers[2], numbers[3]);
    }
  }
  for (std::size_t at = root->children; at < root->end;) {
    const auto child = read_version_block(buf, at, root->end);
    if (!child) {
      problems.emplace_back(
          "version resource: a block is shorter than its header or has an "
          "unterminated key");
      break;
    }
    at = child->next;
    if (child->key != "StringFileInfo") {
      continue;
    }
    const auto table = read_version_block(buf, child->children, child->end);
    if (!table) {
      break; // a StringFileInfo without string tables
    }
    for (std::size_t s = table->children; s < table->end;) {
      const auto entry = read_version_block(buf, s, table->end);
      if (!entry) {
        problems.emplace_back(
            "version resource: a string entry is shorter than its header or "
            "has an unterminated key");
        break;
      }
      s = entry->next;
      std::string* field = nullptr;
      if (entry->key == "FileVersion") {
        field = &v.file_version;
      } else if (entry->key == "ProductVersion") {
        field = &v.product_version;
      } else if (entry->key == "ProductName") {
        field = &v.product_name;
      } else if (entry->key == "FileDescription") {
        field = &v.file_description;
      } else if (entry->key == "CompanyName") {
        field = &v.company_name;
      } else if (entry->key == "OriginalFilename") {
        field = &v.original_filename;
      }
      if (field != nullptr && entry->value_length != 0) {
        *field = version_string_value(buf, *entry);
      }
    }
    break; // the first StringFileInfo is the one
  }
  return v;
}

// One entry of an IMAGE_RESOURCE_DIRECTORY: an id (or a name's offset, high bit set) and the
// offset of a subdirectory (high bit set) or a data entry, both from the resource section start.
struct ResourceEntry {
  std::uint32_t id = 0;
  std::uint32_t target = 0;
};

// Reads the entries of the resource directory at `offset`; records a problem if they do not fit.
std::vector<ResourceEntry>
resource_entries(std::string_view rsrc, std::uint32_t offset, std::vector<std::string>& problems) {
  constexpr std::size_t k_directory = 16;
  constexpr std::size_t k_entry = 8;
  std::uint16_t named = 0;
  std::uint16_t ids = 0;
  std::vector<ResourceEntry> out;
  if (!read_le(rsrc, std::uint64_t{offset} + 12, named)
      || !read_le(rsrc, std::uint64_t{offset} + 14, ids)) {
    problems.push_back(
        fmt::format("resource directory at offset {:#x} lies past the resource "
                    "data",
                    offset));
    return out;
  }
  std::size_t count = std::size_t{named} + ids;
  if (count > k_max_resource_entries) {
    problems.push_back(
        fmt::format("resource directory at offset {:#x} claims {} entries; only "
                    "the first {} are read",
                    offset,
                    count,
                    k_max_resource_entries));
    count = k_max_resource_entries;
  }
  for (std::size_t i = 0; i < count; ++i) {
    ResourceEntry e;
    const std::uint64_t at = std::uint64_t{offset} + k_directory + i * k_entry;
    if (!read_le(rsrc, at, e.id) || !read_le(rsrc, at + 4, e.target)) {
      problems.push_back(
          fmt::format("resource directory at offset {:#x}: {} entries run past "
                      "the resource data",
                      offset,
                      count));
      break;
    }
    out.push_back(e);
  }
  return out;
}

} // namespace

// Finds RT_VERSION in the resource tree (type 16 -> its first name -> its first language) and
// parses it. The tree has exactly three levels (type, name, language) as Windows defines it; a
// subdirectory where a data entry belongs, or an offset seen before, ends the walk, so a tree that
// loops or nests deeper costs at most three directory reads.
void read_version_resource(const PeImage& image, const PeDataDirectory& dir, PeInfo& info) {
  constexpr std::uint32_t k_is_directory = 0x80000000;
  constexpr std::uint32_t k_is_name = 0x80000000;
  if (dir.rva == 0) {
    return;
  }
  std::string_view rsrc;
  const auto where = image.locate(dir.rva, rsrc);
  if (where != PeImage::Where::in_file) {
    info.problems.push_back(unreadable("resource directory", dir.rva, where));
    return;
  }
  std::set<std::uint32_t> seen;
  std::uint32_t offset = 0;
  for (int level = 0;; ++level) {
    if (!seen.insert(offset).second) {
      info.problems.push_back(
          fmt::format("resource tree loops back to the directory at offset {:#x}", offset));
      return;
    }
    const auto entries = resource_entries(rsrc, offset, info.problems);
    std::optional<ResourceEntry> pick;
    for (const auto& e : entries) {
      if (level > 0 || ((e.id & k_is_name) == 0 && e.id == k_rt_version)) {
        pick = e;
        break;
      }
    }
    if (!pick) {
      return; // no version resource (or an empty name or language level)
    }
    if (level < 2) {
      if ((pick->target & k_is_directory) == 0) {
        info.problems.push_back(
            fmt::format("resource tree: level {} entry at offset {:#x} is "
                        "data, not a directory",
                        level + 1,
                        offset));
        return;
      }
      offset = pick->target & ~k_is_directory;
      continue;
    }
    if ((pick->target & k_is_directory) != 0) {
      info.problems.emplace_back(
          "resource tree is deeper than 3 levels (type, name, language) under RT_VERSION");
      return;
    }
    offset = pick->target;
    break;
  }
  // IMAGE_RESOURCE_DATA_ENTRY: the data's RVA (not an offset) and its size.
  std::uint32_t data_rva = 0;
  std::uint32_t data_size = 0;
  if (!read_le(rsrc, offset, data_rva) || !read_le(rsrc, std::uint64_t{offset} + 4, data_size)) {
    info.problems.push_back(
        fmt::format("resource data entry at offset {:#x} lies past the resource data", offset));
    return;
  }
  std::string_view buf;
  const auto data_where = image.locate(data_rva, buf);
  if (data_where != PeImage::Where::in_file) {
    info.problems.push_back(unreadable("version resource", data_rva, data_where));
    return;
  }
  if (data_size > buf.size()) {
    info.problems.push_back(
        fmt::format("version resource at rva {:#x} ({} bytes) runs past its "
                    "section's data ({} bytes left; truncated?)",
                    data_rva,
                    data_size,
                    buf.size()));
  }
  info.version = parse_version_info(buf.substr(0, data_size), info.problems);
}

} // namespace doctor::formats::detail
