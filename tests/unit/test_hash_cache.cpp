// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/hash_cache.hpp>
#include <doctor/platform/file_stat.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace doctor {
namespace {

using collect::FileIdentity;
using collect::HashCache;
using platform::HashAlgorithm;

constexpr const char* k_digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

FileIdentity identity(const std::filesystem::path& p) {
  const auto st = platform::stat_path(p).value();
  return FileIdentity{st.device, st.inode, st.size, st.mtime_ns};
}

// A cache directory and one library file in it, the digest stored and saved.
struct Fixture {
  test::TempDir t;
  std::filesystem::path dir = t.at("/cache");
  std::filesystem::path lib = t.at("/lib/libcudnn.so.9");
  Fixture() {
    t.write("/lib/libcudnn.so.9", "abc");
    HashCache cache = HashCache::open(dir);
    cache.store(lib.string(), identity(lib), HashAlgorithm::sha256, k_digest);
    EXPECT_TRUE(cache.save());
  }
};

TEST(hash_cache, stored_digest_is_found_after_reopening) {
  Fixture f;
  EXPECT_TRUE(std::filesystem::is_regular_file(f.dir / HashCache::k_file_name));
  HashCache cache = HashCache::open(f.dir);
  EXPECT_EQ(cache.size(), 1U);
  EXPECT_EQ(cache.find(f.lib.string(), identity(f.lib), HashAlgorithm::sha256), k_digest);
  // Another algorithm is another entry.
  EXPECT_FALSE(cache.find(f.lib.string(), identity(f.lib), HashAlgorithm::md5));
}

TEST(hash_cache, changed_mtime_is_a_miss_and_drops_the_entry) {
  Fixture f;
  auto id = identity(f.lib);
  std::filesystem::last_write_time(
      f.lib, std::filesystem::last_write_time(f.lib) + std::chrono::seconds(5));
  ASSERT_NE(identity(f.lib), id);
  HashCache cache = HashCache::open(f.dir);
  EXPECT_FALSE(cache.find(f.lib.string(), identity(f.lib), HashAlgorithm::sha256));
  EXPECT_EQ(cache.size(), 0U) << "the stale entry is dropped";
  // And the old identity no longer finds it either.
  EXPECT_FALSE(cache.find(f.lib.string(), id, HashAlgorithm::sha256));
}

TEST(hash_cache, changed_size_is_a_miss) {
  Fixture f;
  auto id = identity(f.lib);
  id.size += 1;
  HashCache cache = HashCache::open(f.dir);
  EXPECT_FALSE(cache.find(f.lib.string(), id, HashAlgorithm::sha256));
}

TEST(hash_cache, replaced_file_is_a_miss) {
  Fixture f;
  const auto old_id = identity(f.lib);
  // A new file with the same name: a new inode (kept apart by holding on to the old one).
  std::filesystem::rename(f.lib, f.t.at("/old"));
  f.t.write("/lib/libcudnn.so.9", "abc");
  const auto new_id = identity(f.lib);
  ASSERT_NE(old_id.inode, new_id.inode);
  HashCache cache = HashCache::open(f.dir);
  EXPECT_FALSE(cache.find(f.lib.string(), new_id, HashAlgorithm::sha256));
}

TEST(hash_cache, corrupt_cache_is_ignored_and_rewritten) {
  for (const char* junk : {"{not json",
                           "[]",
                           "{\"schema\":\"other/9\",\"entries\":[]}",
                           "{\"schema\":\"cudnn-doctor-hashes/1\",\"entries\":[1,{\"path\":2}]}"}) {
    Fixture f;
    test::write_file(f.dir / HashCache::k_file_name, junk);
    HashCache cache = HashCache::open(f.dir);
    EXPECT_TRUE(cache.enabled());
    EXPECT_EQ(cache.size(), 0U) << junk;
    EXPECT_FALSE(cache.find(f.lib.string(), identity(f.lib), HashAlgorithm::sha256));
    cache.store(f.lib.string(), identity(f.lib), HashAlgorithm::sha256, k_digest);
    EXPECT_TRUE(cache.save());
    EXPECT_EQ(HashCache::open(f.dir).size(), 1U);
  }
}

TEST(hash_cache, entry_with_a_malformed_digest_is_skipped) {
  Fixture f;
  const auto id = identity(f.lib);
  test::write_file(f.dir / HashCache::k_file_name,
                   "{\"schema\":\"cudnn-doctor-hashes/1\",\"entries\":[{\"path\":\""
                       + f.lib.string() + "\",\"device\":" + std::to_string(id.device)
                       + ",\"inode\":" + std::to_string(id.inode)
                       + ",\"size\":3,\"mtime_ns\":" + std::to_string(id.mtime_ns)
                       + ",\"algorithm\":\"sha256\",\"digest\":\"XYZ\"}]}");
  EXPECT_EQ(HashCache::open(f.dir).size(), 0U);
}

TEST(hash_cache, disabled_cache_neither_reads_nor_writes) {
  Fixture f;
  HashCache cache; // --no-cache
  EXPECT_FALSE(cache.enabled());
  EXPECT_FALSE(cache.find(f.lib.string(), identity(f.lib), HashAlgorithm::sha256));
  cache.store(f.lib.string(), identity(f.lib), HashAlgorithm::sha256, k_digest);
  EXPECT_FALSE(cache.find(f.lib.string(), identity(f.lib), HashAlgorithm::sha256));
  EXPECT_TRUE(cache.save());
  // An empty directory name disables it too.
  EXPECT_FALSE(HashCache::open({}).enabled());
}

TEST(hash_cache, save_drops_entries_of_vanished_files_and_leaves_no_temporary) {
  Fixture f;
  f.t.write("/lib/other.so", "x");
  const auto other = f.t.at("/lib/other.so");
  {
    HashCache cache = HashCache::open(f.dir);
    cache.store(
        other.string(), identity(other), HashAlgorithm::md5, "900150983cd24fb0d6963f7d28e17f72");
    ASSERT_TRUE(cache.save());
  }
  EXPECT_EQ(HashCache::open(f.dir).size(), 2U);
  std::filesystem::remove(f.lib);
  {
    HashCache cache = HashCache::open(f.dir);
    cache.store(other.string(), identity(other), HashAlgorithm::sha256, k_digest);
    ASSERT_TRUE(cache.save());
  }
  EXPECT_EQ(HashCache::open(f.dir).size(), 2U) << "other.so twice, libcudnn.so.9 gone";
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(f.dir)) {
    EXPECT_EQ(e.path().filename(), HashCache::k_file_name);
    ++files;
  }
  EXPECT_EQ(files, 1U);
}

TEST(hash_cache, unwritable_cache_directory_is_an_error_not_a_crash) {
  test::TempDir t;
  t.write("/file", "x");
  HashCache cache = HashCache::open(t.at("/file/cache")); // a path below a regular file
  EXPECT_EQ(cache.size(), 0U);
  cache.store(t.at("/file").string(), identity(t.at("/file")), HashAlgorithm::sha256, k_digest);
  EXPECT_FALSE(cache.save());
}

platform::Environment env_of(std::map<std::string, std::string> vars) {
  return platform::Environment(std::move(vars));
}

TEST(hash_cache, directory_comes_from_option_then_xdg_then_home) {
  EXPECT_EQ(collect::cache_dir("/opt/c", env_of({{"XDG_CACHE_HOME", "/x"}})), "/opt/c");
  EXPECT_EQ(collect::cache_dir({}, env_of({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}})),
            std::filesystem::path("/x/cudnn-doctor"));
  EXPECT_EQ(collect::cache_dir({}, env_of({{"XDG_CACHE_HOME", "rel"}, {"HOME", "/h"}})),
            std::filesystem::path("/h/.cache/cudnn-doctor"))
      << "a relative XDG_CACHE_HOME is ignored (XDG base directory spec)";
  EXPECT_EQ(collect::cache_dir({}, env_of({{"LOCALAPPDATA", "C:/Users/u/AppData/Local"}})),
            std::filesystem::path("C:/Users/u/AppData/Local/cudnn-doctor"));
  EXPECT_TRUE(collect::cache_dir({}, env_of({})).empty());
}

} // namespace
} // namespace doctor
