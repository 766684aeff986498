// SPDX-License-Identifier: MIT
#include "support/ld_so_cache_file.hpp"
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/collect/ld_cache_lookup.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace doctor {
namespace {

using Libs = std::vector<std::pair<std::string, std::string>>;

// What a search of collect_linker()'s entries finds for `name`: every entry of that name, in
// cache order.
std::vector<facts::LdCacheEntry> scan(const platform::SysRoot& root, const std::string& name) {
  facts::Facts f;
  collect::collect_linker(root, collect::CollectOptions{}, f);
  std::vector<facts::LdCacheEntry> out;
  for (const facts::LdCacheEntry& e : f.linker.cache.value()) {
    if (e.name == name) {
      out.push_back(e);
    }
  }
  return out;
}

// Each name of `libs` (and a few that are not there) is answered as a scan of the facts answers it.
void expect_lookups_match_the_facts(const Libs& libs) {
  test::TempDir t;
  t.write("/etc/ld.so.cache", test::ld_so_cache(libs));
  auto lookup = collect::open_ld_cache(t.sysroot());
  ASSERT_TRUE(lookup) << lookup.error().message;
  std::vector<std::string> names = {"libabsent.so.1", "", "lib", "libz.so.01"};
  for (const auto& [name, path] : libs) {
    names.push_back(name);
  }
  for (const std::string& name : names) {
    const auto got = (*lookup)->entries_named(name);
    EXPECT_EQ(got, scan(t.sysroot(), name)) << name;
    for (const facts::LdCacheEntry& e : got) {
      EXPECT_EQ(e.name, name);
      EXPECT_EQ(e.arch, "x86-64");
    }
  }
}

TEST(ld_cache_lookup, a_cache_in_ldconfig_order_answers_as_a_scan_of_every_entry) {
  // ldconfig's order: descending by _dl_cache_libcmp, names that compare equal together
  // ("libz.so.1" and "libz.so.01" among them), the same name twice (two architectures' copies).
  const Libs libs = {{"libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"},
                     {"libz.so.01", "/opt/z/libz.so.01"},
                     {"libcudnn.so.9", "/usr/local/cuda/lib64/libcudnn.so.9"},
                     {"libcudnn.so.9", "/usr/lib/libcudnn.so.9"},
                     {"libcudnn.so.8", "/usr/lib/libcudnn.so.8"},
                     {"libcudnn.so", "/usr/lib/libcudnn.so"},
                     {"libcublas.so.12", "/usr/lib/libcublas.so.12"},
                     {"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"}};
  expect_lookups_match_the_facts(libs);
}

TEST(ld_cache_lookup, a_cache_out_of_order_answers_as_a_scan_of_every_entry) {
  expect_lookups_match_the_facts({{"libc.so.6", "/lib/libc.so.6"},
                                  {"libz.so.1", "/lib/libz.so.1"},
                                  {"libcudnn.so.9", "/a/libcudnn.so.9"},
                                  {"libc.so.6", "/lib32/libc.so.6"},
                                  {"libcudnn.so.9", "/b/libcudnn.so.9"}});
  expect_lookups_match_the_facts({});
}

TEST(ld_cache_lookup, a_cache_the_facts_cannot_use_is_refused_for_the_same_reason) {
  test::TempDir t;
  const auto reasons = [&] {
    facts::Facts f;
    collect::collect_linker(t.sysroot(), collect::CollectOptions{}, f);
    auto lookup = collect::open_ld_cache(t.sysroot());
    EXPECT_FALSE(f.linker.cache);
    EXPECT_FALSE(lookup);
    return std::pair(f.linker.cache.reason(), lookup ? std::string() : lookup.error().message);
  };
  auto [absent_facts, absent_lookup] = reasons();
  EXPECT_NE(absent_lookup.find("does not exist"), std::string::npos) << absent_lookup;
  EXPECT_EQ(absent_facts, absent_lookup);
  std::string cache = test::ld_so_cache({{"libcudnn.so.9", "/usr/lib/libcudnn.so.9"}});
  cache.resize(cache.size() - 5);
  t.write("/etc/ld.so.cache", cache);
  auto [damaged_facts, damaged_lookup] = reasons();
  EXPECT_NE(damaged_lookup.find("damaged"), std::string::npos) << damaged_lookup;
  EXPECT_EQ(damaged_facts, damaged_lookup);
}

} // namespace
} // namespace doctor
