// SPDX-License-Identifier: MIT
#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/ld_so_cache.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

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

// Visits the `nlibs` records of the table at `table` in `r`, `entry` bytes each (flags, key,
// value, and the hwcap at `hwcap_at` when it is not 0), their string offsets counted from
// `strings`; each string NUL-terminated within the file and k_max_string.
// The NUL-terminated string at `offset` of `data`, its NUL within k_max_string bytes; nullopt
// otherwise.
std::optional<std::string_view> cache_string(std::string_view data, std::uint64_t offset) {
  if (offset >= data.size()) {
    return std::nullopt;
  }
  const char* p = data.data() + offset;
  const auto room =
      static_cast<std::size_t>(std::min<std::uint64_t>(data.size() - offset, k_max_string));
  const void* nul = std::memchr(p, '\0', room);
  if (nul == nullptr) {
    return std::nullopt;
  }
  return std::string_view(p, static_cast<std::size_t>(static_cast<const char*>(nul) - p));
}

Expected<std::size_t> visit_table(const ByteReader& r,
                                  std::size_t table,
                                  std::size_t entry,
                                  std::size_t hwcap_at,
                                  std::size_t strings,
                                  std::uint32_t nlibs,
                                  const LdCacheVisitor& visit) {
  // The caller checked that the whole table lies inside the data: each field is read as it is.
  const std::string_view data = r.data();
  LdCacheView rec;
  rec.count = nlibs;
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    const std::size_t at = table + std::size_t{i} * entry;
    const std::uint32_t flags = r.u32(at);
    const std::uint32_t key = r.u32(at + 4);
    const std::uint32_t value = r.u32(at + 8);
    if (hwcap_at != 0) {
      rec.hwcap = r.u64(at + hwcap_at);
    }
    const auto name = cache_string(data, std::uint64_t{strings} + key);
    const auto path = cache_string(data, std::uint64_t{strings} + value);
    if (!name || !path) {
      return make_error(ErrorCode::parse,
                        fmt::format("ld.so.cache: entry {} points outside the file", i));
    }
    rec.name = *name;
    rec.path = *path;
    rec.flags = static_cast<std::int32_t>(flags);
    visit(rec);
  }
  return nlibs;
}

Expected<std::size_t>
visit_new(std::string_view data, std::size_t base, const LdCacheVisitor& visit) {
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
  // In the new format string offsets count from the start of the new header.
  return visit_table(r, k_new_header, k_new_entry, 16, 0, nlibs, visit);
}

} // namespace

int ld_cache_libcmp(std::string_view a, std::string_view b) {
  const auto at = [](std::string_view s, std::size_t i) {
    return i < s.size() ? static_cast<signed char>(s[i]) : static_cast<signed char>(0);
  };
  const auto digit = [](signed char c) { return c >= '0' && c <= '9'; };
  // A run of digits from `i` as a number, saturated (glibc's int would overflow; a name with a
  // run of more than 18 digits is not a library's).
  const auto number = [&](std::string_view s, std::size_t& i) {
    std::uint64_t value = 0;
    for (; digit(at(s, i)); ++i) {
      value = std::min<std::uint64_t>(value * 10 + static_cast<std::uint64_t>(at(s, i) - '0'),
                                      std::uint64_t{1} << 60U);
    }
    return value;
  };
  // The common prefix without digits first (names share "lib" and more): byte by byte.
  std::size_t i = 0;
  const std::size_t common = std::min(a.size(), b.size());
  while (i < common && a[i] == b[i] && a[i] != '\0' && !digit(static_cast<signed char>(a[i]))) {
    ++i;
  }
  std::size_t j = i;
  while (at(a, i) != 0) {
    const signed char c = at(a, i);
    const signed char d = at(b, j);
    if (digit(c)) {
      if (!digit(d)) {
        return 1;
      }
      const std::uint64_t x = number(a, i);
      const std::uint64_t y = number(b, j);
      if (x != y) {
        return x < y ? -1 : 1;
      }
    } else if (digit(d)) {
      return -1;
    } else if (c != d) {
      return c - d;
    } else {
      ++i;
      ++j;
    }
  }
  return 0 - at(b, j);
}

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
  std::vector<LdCacheRecord> out;
  auto visited = visit_ld_so_cache(data, [&](const LdCacheView& v) {
    if (out.empty()) {
      out.reserve(v.count);
    }
    out.push_back(LdCacheRecord{
        std::string(v.name), std::string(v.path), v.flags, v.hwcap, ld_cache_arch(v.flags)});
  });
  if (!visited) {
    return tl::unexpected(visited.error());
  }
  return out;
}

Expected<std::size_t> visit_ld_so_cache(std::string_view data, const LdCacheVisitor& visit) {
  if (data.starts_with(k_magic_new)) {
    return visit_new(data, 0, visit);
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
    return visit_new(data, new_at, visit);
  }
  // In the old format string offsets count from the end of the entry table.
  return visit_table(ByteReader(data), k_old_header, k_old_entry, 0, table_end, nlibs, visit);
}

} // namespace doctor::formats
