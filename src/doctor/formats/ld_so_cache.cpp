// SPDX-License-Identifier: MIT
#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/ld_so_cache.hpp>

#include <fmt/format.h>

#include <cstring>

namespace doctor::formats {

namespace {

// Layouts from glibc sysdeps/generic/dl-cache.h.
constexpr std::string_view k_magic_old = "ld.so-1.7.0";          // 11 bytes, then nlibs at 12
constexpr std::string_view k_magic_new = "glibc-ld.so.cache1.1"; // magic[17] + version[3]
constexpr std::size_t k_old_header = 16;                         // magic (padded to 12) + nlibs
constexpr std::size_t k_old_entry = 12;                          // flags, key, value
constexpr std::size_t k_new_header = 48;
constexpr std::size_t k_new_entry = 24; // flags, key, value, osver, hwcap
constexpr std::uint8_t k_flags_big_endian = 3;
constexpr std::uint32_t k_max_records = 1U << 20;
constexpr std::size_t k_max_string = 4096;

// A NUL-terminated string at `offset`, bounded by the file and k_max_string.
bool cache_string(const ByteReader& r, std::uint64_t offset, std::string& out) {
  const auto s = r.c_string(offset, k_max_string);
  if (!s) {
    return false;
  }
  out.assign(*s);
  return true;
}

Expected<std::vector<LdCacheRecord>> parse_new(std::string_view data, std::size_t base) {
  const std::string_view part = data.substr(base);
  if (part.size() < k_new_header) {
    return make_error(ErrorCode::parse, "ld.so.cache: truncated header");
  }
  const bool big = static_cast<std::uint8_t>(part[28]) == k_flags_big_endian;
  const ByteReader r(part, big ? ByteOrder::big : ByteOrder::little);
  std::uint32_t nlibs = 0;
  r.read(20, nlibs);
  if (nlibs > k_max_records || k_new_header + std::size_t{nlibs} * k_new_entry > part.size()) {
    return make_error(
        ErrorCode::parse,
        fmt::format("ld.so.cache: {} entries do not fit in {} bytes", nlibs, part.size()));
  }
  std::vector<LdCacheRecord> out;
  out.reserve(nlibs);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    const std::size_t at = k_new_header + std::size_t{i} * k_new_entry;
    std::uint32_t flags = 0;
    std::uint32_t key = 0;
    std::uint32_t value = 0;
    LdCacheRecord rec;
    r.read(at, flags);
    r.read(at + 4, key);
    r.read(at + 8, value);
    r.read(at + 16, rec.hwcap);
    // In the new format string offsets count from the start of the new header.
    if (!cache_string(r, key, rec.name) || !cache_string(r, value, rec.path)) {
      return make_error(ErrorCode::parse,
                        fmt::format("ld.so.cache: entry {} points outside the file", i));
    }
    rec.flags = static_cast<std::int32_t>(flags);
    rec.arch = ld_cache_arch(rec.flags);
    out.push_back(std::move(rec));
  }
  return out;
}

Expected<std::vector<LdCacheRecord>> parse_old(std::string_view data, std::uint32_t nlibs) {
  const ByteReader r(data);
  const std::size_t strings = k_old_header + std::size_t{nlibs} * k_old_entry;
  std::vector<LdCacheRecord> out;
  out.reserve(nlibs);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    const std::size_t at = k_old_header + std::size_t{i} * k_old_entry;
    std::uint32_t flags = 0;
    std::uint32_t key = 0;
    std::uint32_t value = 0;
    r.read(at, flags);
    r.read(at + 4, key);
    r.read(at + 8, value);
    LdCacheRecord rec;
    // In the old format string offsets count from the end of the entry table.
    if (!cache_string(r, strings + key, rec.name) || !cache_string(r, strings + value, rec.path)) {
      return make_error(ErrorCode::parse,
                        fmt::format("ld.so.cache: entry {} points outside the file", i));
    }
    rec.flags = static_cast<std::int32_t>(flags);
    rec.arch = ld_cache_arch(rec.flags);
    out.push_back(std::move(rec));
  }
  return out;
}

} // namespace

std::string ld_cache_arch(std::int32_t flags) {
  const auto type = static_cast<std::uint32_t>(flags) & 0xffU;
  const auto arch = static_cast<std::uint32_t>(flags) & 0xff00U;
  if (type == 1) {
    return "libc5";
  }
  if (type == 0) {
    return "libc4";
  }
  switch (arch) {
  case 0x0000:
    return "i386";
  case 0x0100:
    return "sparc64";
  case 0x0200:
    return "ia64";
  case 0x0300:
    return "x86-64";
  case 0x0400:
    return "s390x";
  case 0x0500:
    return "ppc64";
  case 0x0800:
    return "x32";
  case 0x0900:
    return "armhf";
  case 0x0a00:
    return "aarch64";
  case 0x0b00:
    return "armsf";
  case 0x1000:
    return "riscv64";
  default:
    return fmt::format("flags {:#x}", static_cast<std::uint32_t>(flags));
  }
}

Expected<std::vector<LdCacheRecord>> parse_ld_so_cache(std::string_view data) {
  if (data.starts_with(k_magic_new)) {
    return parse_new(data, 0);
  }
  if (!data.starts_with(k_magic_old)) {
    return make_error(ErrorCode::parse, "ld.so.cache: unknown format (no glibc cache magic)");
  }
  if (data.size() < k_old_header) {
    return make_error(ErrorCode::parse, "ld.so.cache: truncated header");
  }
  std::uint32_t nlibs = 0;
  ByteReader(data).read(12, nlibs);
  const std::size_t table_end = k_old_header + std::size_t{nlibs} * k_old_entry;
  if (nlibs > k_max_records || table_end > data.size()) {
    return make_error(
        ErrorCode::parse,
        fmt::format("ld.so.cache: {} entries do not fit in {} bytes", nlibs, data.size()));
  }
  // The compat layout puts a new-format cache after the old table, 8-byte aligned; ld.so prefers
  // it, and so do we.
  const std::size_t new_at = (table_end + 7U) & ~std::size_t{7};
  if (new_at < data.size() && data.substr(new_at).starts_with(k_magic_new)) {
    return parse_new(data, new_at);
  }
  return parse_old(data, nlibs);
}

} // namespace doctor::formats
