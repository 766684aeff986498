// SPDX-License-Identifier: MIT
#include <doctor/formats/ld_so_cache.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace doctor {
namespace {

using formats::parse_ld_so_cache;

constexpr std::int32_t k_x86_64_libc6 = 0x0303; // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
constexpr std::int32_t k_aarch64_libc6 = 0x0a03;
constexpr std::int32_t k_i386_libc6 = 0x0003;

struct Lib {
  std::int32_t flags = k_x86_64_libc6;
  std::string key;
  std::string value;
  std::uint64_t hwcap = 0;
};

// Writes glibc ld.so.cache files byte by byte, as ldconfig lays them out (glibc
// sysdeps/generic/dl-cache.h), so that the parser is tested against the format, not itself.
class CacheWriter {
public:
  explicit CacheWriter(bool big_endian = false)
      : m_big(big_endian) {}

  void u8(std::string& out, std::uint8_t v) const { out.push_back(static_cast<char>(v)); }

  void u32(std::string& out, std::uint32_t v) const {
    for (int i = 0; i < 4; ++i) {
      const int shift = m_big ? 8 * (3 - i) : 8 * i;
      out.push_back(static_cast<char>((v >> shift) & 0xFFU));
    }
  }

  void u64(std::string& out, std::uint64_t v) const {
    for (int i = 0; i < 8; ++i) {
      const int shift = m_big ? 8 * (7 - i) : 8 * i;
      out.push_back(static_cast<char>((v >> shift) & 0xFFU));
    }
  }

  using Offsets = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

  // Returns the string table for `libs` and each lib's (key, value) offset inside it.
  static std::string strings(const std::vector<Lib>& libs, Offsets& offsets) {
    std::string table;
    for (const Lib& lib : libs) {
      const auto key = static_cast<std::uint32_t>(table.size());
      table += lib.key;
      table.push_back('\0');
      const auto value = static_cast<std::uint32_t>(table.size());
      table += lib.value;
      table.push_back('\0');
      offsets.emplace_back(key, value);
    }
    return table;
  }

  // The new format ("glibc-ld.so.cache1.1"): 48-byte header, 24-byte entries, string offsets
  // relative to the header. The strings follow the entries.
  std::string new_format(const std::vector<Lib>& libs) const {
    Offsets offsets;
    const std::string table = strings(libs, offsets);
    return new_part(libs, offsets, table.size()) + table;
  }

  // The old format ("ld.so-1.7.0"): 16-byte header, 12-byte entries, string offsets relative to
  // the end of the entry table, where the strings start.
  std::string old_format(const std::vector<Lib>& libs) const {
    Offsets offsets;
    const std::string table = strings(libs, offsets);
    return old_part(libs, offsets, 0) + table;
  }

  // The compat layout ldconfig writes: the old header and table, then (8-byte aligned) the new
  // header and table, then one string table that both use. Old offsets count from the end of the
  // old table, so they skip the new part. The new entries' strings come last, so that any
  // truncation of the file damages what the new part needs.
  std::string compat_format(const std::vector<Lib>& old_libs,
                            const std::vector<Lib>& new_libs) const {
    std::vector<Lib> all = old_libs;
    all.insert(all.end(), new_libs.begin(), new_libs.end());
    Offsets offsets;
    const std::string table = strings(all, offsets);
    const Offsets old_offsets(offsets.begin(), offsets.begin() + old_libs.size());
    const Offsets new_offsets(offsets.begin() + old_libs.size(), offsets.end());
    const std::size_t table_end = 16 + 12 * old_libs.size();
    const std::size_t pad = ((table_end + 7) & ~std::size_t{7}) - table_end;
    const std::string new_bytes = new_part(new_libs, new_offsets, table.size());
    return old_part(old_libs, old_offsets, pad + new_bytes.size()) + std::string(pad, '\0')
           + new_bytes + table;
  }

  // Overwrites the 32-bit field at `offset` of `data`.
  void patch_u32(std::string& data, std::size_t offset, std::uint32_t v) const {
    std::string bytes;
    u32(bytes, v);
    data.replace(offset, 4, bytes);
  }

private:
  // The new header and entries; the string table (`table_size` bytes) follows the entries.
  std::string
  new_part(const std::vector<Lib>& libs, const Offsets& offsets, std::size_t table_size) const {
    const auto string_base = static_cast<std::uint32_t>(48 + 24 * libs.size());
    std::string out = "glibc-ld.so.cache1.1";
    u32(out, static_cast<std::uint32_t>(libs.size())); // nlibs
    u32(out, static_cast<std::uint32_t>(table_size));  // len_strings
    u8(out, m_big ? 3 : 2);                            // flags: endianness
    out.append(3, '\0');                               // padding
    u32(out, 0);                                       // extension_offset
    out.append(12, '\0');                              // unused[3]
    EXPECT_EQ(out.size(), 48U);
    for (std::size_t i = 0; i < libs.size(); ++i) {
      u32(out, static_cast<std::uint32_t>(libs[i].flags));
      u32(out, string_base + offsets[i].first);
      u32(out, string_base + offsets[i].second);
      u32(out, 0); // osversion
      u64(out, libs[i].hwcap);
    }
    return out;
  }

  // The old header and entries; `gap` bytes sit between the entries and the string table.
  std::string
  old_part(const std::vector<Lib>& libs, const Offsets& offsets, std::size_t gap) const {
    std::string out = "ld.so-1.7.0";
    out.push_back('\0'); // magic padded to 12 bytes
    u32(out, static_cast<std::uint32_t>(libs.size()));
    for (std::size_t i = 0; i < libs.size(); ++i) {
      u32(out, static_cast<std::uint32_t>(libs[i].flags));
      u32(out, static_cast<std::uint32_t>(gap + offsets[i].first));
      u32(out, static_cast<std::uint32_t>(gap + offsets[i].second));
    }
    return out;
  }

  bool m_big;
};

const std::vector<Lib> k_libs = {
    {k_x86_64_libc6, "libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", 0},
    {k_x86_64_libc6, "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", 0},
    {k_i386_libc6, "libc.so.6", "/lib/i386-linux-gnu/libc.so.6", 0},
    {k_aarch64_libc6, "libz.so.1", "/usr/lib/aarch64-linux-gnu/libz.so.1", 0x1234567890ULL},
};

void expect_libs(const std::vector<formats::LdCacheRecord>& got, const std::vector<Lib>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].key) << "entry " << i;
    EXPECT_EQ(got[i].path, want[i].value) << "entry " << i;
    EXPECT_EQ(got[i].flags, want[i].flags) << "entry " << i;
    EXPECT_EQ(got[i].arch, formats::ld_cache_arch(want[i].flags)) << "entry " << i;
  }
}

void expect_parse_error(const std::string& data, const std::string& what) {
  auto r = parse_ld_so_cache(data);
  ASSERT_FALSE(r) << what << ": parsed " << r->size() << " entries";
  EXPECT_EQ(r.error().code, ErrorCode::parse) << what << ": " << r.error().message;
}

TEST(ld_so_cache, new_format_little_endian) {
  auto r = parse_ld_so_cache(CacheWriter(false).new_format(k_libs));
  ASSERT_TRUE(r) << r.error().message;
  expect_libs(*r, k_libs);
  EXPECT_EQ((*r)[3].hwcap, 0x1234567890ULL);
  EXPECT_EQ((*r)[0].arch, "x86-64");
}

TEST(ld_so_cache, new_format_big_endian) {
  auto r = parse_ld_so_cache(CacheWriter(true).new_format(k_libs));
  ASSERT_TRUE(r) << r.error().message;
  expect_libs(*r, k_libs);
  EXPECT_EQ((*r)[3].hwcap, 0x1234567890ULL);
}

TEST(ld_so_cache, new_format_with_no_entries_is_empty) {
  auto r = parse_ld_so_cache(CacheWriter().new_format({}));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->empty());
}

TEST(ld_so_cache, old_format) {
  auto r = parse_ld_so_cache(CacheWriter().old_format(k_libs));
  ASSERT_TRUE(r) << r.error().message;
  expect_libs(*r, k_libs);
}

TEST(ld_so_cache, compat_format_prefers_the_new_part) {
  const std::vector<Lib> old_libs = {{k_x86_64_libc6, "libold.so.1", "/old/libold.so.1", 0}};
  for (std::size_t n_old : {1U, 2U}) { // 28 and 40 bytes of old table: padding 4 and 0
    std::vector<Lib> olds(n_old, old_libs[0]);
    auto r = parse_ld_so_cache(CacheWriter().compat_format(olds, k_libs));
    ASSERT_TRUE(r) << r.error().message;
    expect_libs(*r, k_libs);
  }
}

TEST(ld_so_cache, compat_old_part_alone_is_still_valid_old_format) {
  // An old-only reader of a compat file sees the old entries: the writer's offsets are right.
  const std::vector<Lib> old_libs = {{k_x86_64_libc6, "libold.so.1", "/old/libold.so.1", 0}};
  std::string data = CacheWriter().compat_format(old_libs, k_libs);
  data[16 + 12 + 4] = 'X'; // break the new magic: the parser falls back to the old table
  auto r = parse_ld_so_cache(data);
  ASSERT_TRUE(r) << r.error().message;
  expect_libs(*r, old_libs);
}

TEST(ld_so_cache, records_keep_cache_order) {
  std::vector<Lib> libs;
  for (int i = 0; i < 50; ++i) {
    libs.push_back(
        {k_x86_64_libc6, "lib" + std::to_string(49 - i) + ".so", "/p/" + std::to_string(i), 0});
  }
  auto r = parse_ld_so_cache(CacheWriter().new_format(libs));
  ASSERT_TRUE(r);
  expect_libs(*r, libs);
}

TEST(ld_so_cache, the_visitor_sees_each_record_in_order_with_the_count) {
  for (const std::string& data :
       {CacheWriter(true).new_format(k_libs), CacheWriter().old_format(k_libs)}) {
    const auto parsed = parse_ld_so_cache(data);
    ASSERT_TRUE(parsed) << parsed.error().message;
    std::vector<formats::LdCacheView> seen;
    const auto visited =
        formats::visit_ld_so_cache(data, [&](const formats::LdCacheView& v) { seen.push_back(v); });
    ASSERT_TRUE(visited) << visited.error().message;
    ASSERT_EQ(*visited, parsed->size());
    ASSERT_EQ(seen.size(), parsed->size());
    for (std::size_t i = 0; i < seen.size(); ++i) {
      EXPECT_EQ(seen[i].name, (*parsed)[i].name);
      EXPECT_EQ(seen[i].path, (*parsed)[i].path);
      EXPECT_EQ(seen[i].flags, (*parsed)[i].flags);
      EXPECT_EQ(seen[i].hwcap, (*parsed)[i].hwcap);
      EXPECT_EQ(seen[i].count, parsed->size());
    }
  }
  // A record at fault ends the visit with parse_ld_so_cache's error, after the ones before it.
  const CacheWriter w;
  std::string bad = w.new_format(k_libs);
  w.patch_u32(bad, 48 + 24 * 2 + 4, 0xFFFFFFF0U); // entry 2's key
  std::size_t before = 0;
  const auto visited =
      formats::visit_ld_so_cache(bad, [&](const formats::LdCacheView&) { ++before; });
  ASSERT_FALSE(visited);
  EXPECT_EQ(visited.error().message, parse_ld_so_cache(bad).error().message);
  EXPECT_EQ(before, 2U);
}

TEST(ld_so_cache, empty_or_no_magic_is_a_parse_error) {
  expect_parse_error("", "empty");
  expect_parse_error("garbage that is long enough to be a header, but is not one at all", "junk");
  expect_parse_error("glibc-ld.so.cache1.0" + std::string(100, '\0'), "other new version");
  expect_parse_error("ld.so-1.6.9" + std::string(100, '\0'), "other old version");
  expect_parse_error(std::string(1, '\0') + CacheWriter().new_format(k_libs), "shifted");
}

TEST(ld_so_cache, truncated_new_header_is_a_parse_error) {
  expect_parse_error("glibc-ld.so.cache1.1", "magic only");
  expect_parse_error(CacheWriter().new_format({}).substr(0, 47), "47 bytes");
}

TEST(ld_so_cache, truncated_old_header_is_a_parse_error) {
  expect_parse_error("ld.so-1.7.0", "magic only");
  expect_parse_error(CacheWriter().old_format({}).substr(0, 15), "15 bytes");
}

// Every proper prefix of a valid file loses entries or string bytes, and must be rejected.
TEST(ld_so_cache, every_truncation_is_a_parse_error) {
  const std::vector<Lib> old_libs = {{k_x86_64_libc6, "libold.so.1", "/old/libold.so.1", 0}};
  const std::vector<std::pair<std::string, std::string>> files = {
      {"new", CacheWriter(false).new_format(k_libs)},
      {"new big-endian", CacheWriter(true).new_format(k_libs)},
      {"old", CacheWriter().old_format(k_libs)},
      {"compat", CacheWriter().compat_format(old_libs, k_libs)},
  };
  for (const auto& [name, data] : files) {
    ASSERT_TRUE(parse_ld_so_cache(data)) << name;
    for (std::size_t len = 0; len < data.size(); ++len) {
      auto r = parse_ld_so_cache(std::string_view(data).substr(0, len));
      ASSERT_FALSE(r) << name << " cut to " << len << " of " << data.size() << " bytes";
      EXPECT_EQ(r.error().code, ErrorCode::parse) << name << " cut to " << len;
    }
  }
}

TEST(ld_so_cache, new_nlibs_beyond_the_file_is_a_parse_error) {
  const CacheWriter w;
  std::string data = w.new_format(k_libs);
  w.patch_u32(data, 20, 1000);
  expect_parse_error(data, "nlibs 1000");
  w.patch_u32(data, 20, 0xFFFFFFFFU);
  expect_parse_error(data, "nlibs 2^32-1");
  w.patch_u32(data, 20, 0x80000000U);
  expect_parse_error(data, "nlibs 2^31");
}

TEST(ld_so_cache, old_nlibs_beyond_the_file_is_a_parse_error) {
  const CacheWriter w;
  std::string data = w.old_format(k_libs);
  w.patch_u32(data, 12, 1000);
  expect_parse_error(data, "nlibs 1000");
  w.patch_u32(data, 12, 0xFFFFFFFFU);
  expect_parse_error(data, "nlibs 2^32-1");
}

TEST(ld_so_cache, new_string_offsets_out_of_range_are_a_parse_error) {
  const CacheWriter w;
  const std::string good = w.new_format(k_libs);
  for (std::uint32_t bad : {static_cast<std::uint32_t>(good.size()), 0xFFFFFFF0U, 0xFFFFFFFFU}) {
    std::string key = good;
    w.patch_u32(key, 48 + 24 * 2 + 4, bad); // entry 2's key
    expect_parse_error(key, "key offset " + std::to_string(bad));
    std::string value = good;
    w.patch_u32(value, 48 + 24 * 3 + 8, bad); // entry 3's value
    expect_parse_error(value, "value offset " + std::to_string(bad));
  }
}

TEST(ld_so_cache, old_string_offsets_out_of_range_are_a_parse_error) {
  const CacheWriter w;
  const std::string good = w.old_format(k_libs);
  for (std::uint32_t bad : {static_cast<std::uint32_t>(good.size()), 0xFFFFFFF0U, 0xFFFFFFFFU}) {
    std::string key = good;
    w.patch_u32(key, 16 + 12 * 1 + 4, bad);
    expect_parse_error(key, "key offset " + std::to_string(bad));
    std::string value = good;
    w.patch_u32(value, 16 + 12 * 0 + 8, bad);
    expect_parse_error(value, "value offset " + std::to_string(bad));
  }
}

TEST(ld_so_cache, string_without_terminator_is_a_parse_error) {
  std::string data = CacheWriter().new_format(k_libs);
  data.back() = 'x'; // the last path loses its NUL
  expect_parse_error(data, "unterminated");
}

TEST(ld_so_cache, compat_with_truncated_new_part_is_a_parse_error) {
  const std::vector<Lib> old_libs = {{k_x86_64_libc6, "libold.so.1", "/old/libold.so.1", 0}};
  const std::string full = CacheWriter().compat_format(old_libs, k_libs);
  // Keep the old table and the new magic, drop the rest of the new header.
  expect_parse_error(full.substr(0, 32 + 30), "new header cut");
}

// Flipped bytes anywhere give records or a parse error, never a crash.
TEST(ld_so_cache, corrupted_bytes_never_crash) {
  const std::vector<Lib> old_libs = {{k_x86_64_libc6, "libold.so.1", "/old/libold.so.1", 0}};
  const std::vector<std::string> files = {CacheWriter(false).new_format(k_libs),
                                          CacheWriter(true).new_format(k_libs),
                                          CacheWriter().old_format(k_libs),
                                          CacheWriter().compat_format(old_libs, k_libs)};
  std::mt19937 gen(42);
  for (const std::string& good : files) {
    std::uniform_int_distribution<std::size_t> pos(0, good.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int round = 0; round < 2000; ++round) {
      std::string data = good;
      for (int k = 0; k < 3; ++k) {
        data[pos(gen)] = static_cast<char>(byte(gen));
      }
      auto r = parse_ld_so_cache(data);
      if (!r) {
        EXPECT_EQ(r.error().code, ErrorCode::parse) << r.error().message;
      } else {
        EXPECT_LE(r->size(), 1U << 20);
      }
    }
  }
}

TEST(ld_so_cache, libcmp_orders_names_as_glibc_does) {
  using formats::ld_cache_libcmp;
  // Digit runs compare as numbers, so "so.10" sorts after "so.9" and "01" equals "1".
  EXPECT_LT(ld_cache_libcmp("libcudnn.so.9", "libcudnn.so.10"), 0);
  EXPECT_GT(ld_cache_libcmp("libcudnn.so.10", "libcudnn.so.9"), 0);
  EXPECT_EQ(ld_cache_libcmp("libz.so.01", "libz.so.1"), 0);
  EXPECT_EQ(ld_cache_libcmp("libz.so.1", "libz.so.1"), 0);
  // A digit is greater than any other character; the end of a name is a 0.
  EXPECT_GT(ld_cache_libcmp("lib1", "libz"), 0);
  EXPECT_LT(ld_cache_libcmp("libz", "lib1"), 0);
  EXPECT_LT(ld_cache_libcmp("libc.so", "libc.so.6"), 0);
  EXPECT_GT(ld_cache_libcmp("libc.so.6", "libc.so"), 0);
  EXPECT_LT(ld_cache_libcmp("", "a"), 0);
  EXPECT_EQ(ld_cache_libcmp("", ""), 0);
  // Other characters as signed chars: a byte above 0x7f is below the end of a name.
  EXPECT_LT(ld_cache_libcmp("lib\xe9", "lib"), 0);
  EXPECT_LT(ld_cache_libcmp("libA", "liba"), 0);
  // A run too long for any integer still orders by its value.
  EXPECT_GT(ld_cache_libcmp("lib99999999999999999999999", "lib1"), 0);
}

TEST(ld_so_cache, arch_names_follow_ldconfig) {
  EXPECT_EQ(formats::ld_cache_arch(0x0303), "x86-64");
  EXPECT_EQ(formats::ld_cache_arch(0x0a03), "aarch64");
  EXPECT_EQ(formats::ld_cache_arch(0x0003), "i386");
  EXPECT_EQ(formats::ld_cache_arch(0x0503), "ppc64");
  EXPECT_EQ(formats::ld_cache_arch(0x0803), "x32");
  EXPECT_EQ(formats::ld_cache_arch(0x0001), "libc5");
  EXPECT_EQ(formats::ld_cache_arch(0x0000), "libc4");
  EXPECT_EQ(formats::ld_cache_arch(0x7f03), "flags 0x7f03");
}

} // namespace
} // namespace doctor
