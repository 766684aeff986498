// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/hash_cache.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/file_stat.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace doctor {
namespace {

using collect::FileIdentity;
using collect::HashCache;
using platform::HashAlgorithm;

constexpr const char* k_digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

FileIdentity identity(const std::filesystem::path& p) {
  return collect::identity_of(platform::stat_path(p).value());
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
  for (const std::string& junk :
       {std::string("{not json"),
        std::string("[]"),
        std::string("{\"schema\":\"other/9\",\"entries\":[]}"),
        std::string("{\"schema\":{},\"entries\":[]}"),
        std::string("{\"schema\":2,\"entries\":[]}"),
        std::string("{\"schema\":null}"),
        std::string("{\"schema\":\"cudnn-doctor-hashes/2\",\"entries\":{}}"),
        std::string("{\"schema\":\"cudnn-doctor-hashes/2\",\"entries\":"),
        std::string("{\"schema\":\"cudnn-doctor-hashes/2\",\"entries\":[1,"
                    "{\"path\":2},{\"path\":{}},[],null,\"x\"]}"),
        std::string("{\"schema\":\"cudnn-doctor-hashes/1\",\"entries\":[]}"),
        std::string("\x00\xff\xfe\x89PNG\r\n", 10),
        std::string(100000, '['),
        std::string()}) {
    Fixture f;
    test::write_file(f.dir / HashCache::k_file_name, junk);
    HashCache cache = HashCache::open(f.dir);
    EXPECT_TRUE(cache.enabled());
    EXPECT_EQ(cache.size(), 0U) << junk.substr(0, 80);
    ASSERT_TRUE(cache.save()) << "a damaged cache is rewritten even with nothing new";
    EXPECT_EQ(platform::read_file(f.dir / HashCache::k_file_name, 1 << 20).value(),
              "{\n \"schema\": \"cudnn-doctor-hashes/2\",\n \"entries\": []\n}\n");
    EXPECT_FALSE(cache.find(f.lib.string(), identity(f.lib), HashAlgorithm::sha256));
    cache.store(f.lib.string(), identity(f.lib), HashAlgorithm::sha256, k_digest);
    EXPECT_TRUE(cache.save());
    EXPECT_EQ(HashCache::open(f.dir).size(), 1U);
  }
}

// An entry of the right shape but one field of the wrong type or range is dropped, its
// neighbours kept: a negative size or inode means nothing, a float is no identity.
TEST(hash_cache, entry_with_a_field_of_the_wrong_type_is_dropped) {
  Fixture f;
  const auto id = identity(f.lib);
  auto entry = [&](const std::string& size, const std::string& ctime) {
    return "{\"path\":\"" + f.lib.string() + "\",\"device\":" + std::to_string(id.device)
           + ",\"inode\":" + std::to_string(id.inode) + ",\"size\":" + size
           + ",\"mtime_ns\":" + std::to_string(id.mtime_ns) + ",\"ctime_ns\":" + ctime
           + ",\"algorithm\":\"sha256\",\"digest\":\"" + k_digest + "\"}";
  };
  const std::string good = entry("3", std::to_string(id.ctime_ns));
  for (const std::string& bad : {entry("-3", std::to_string(id.ctime_ns)),
                                 entry("3.0", std::to_string(id.ctime_ns)),
                                 entry("\"3\"", std::to_string(id.ctime_ns)),
                                 entry("3", "null"),
                                 entry("3", "18446744073709551615")}) {
    test::write_file(f.dir / HashCache::k_file_name,
                     "{\"schema\":\"cudnn-doctor-hashes/2\",\"entries\":[" + bad + "]}");
    EXPECT_EQ(HashCache::open(f.dir).size(), 0U) << bad;
  }
  test::write_file(f.dir / HashCache::k_file_name,
                   "{\"schema\":\"cudnn-doctor-hashes/2\",\"entries\":[" + good + "]}");
  HashCache cache = HashCache::open(f.dir);
  EXPECT_EQ(cache.find(f.lib.string(), id, HashAlgorithm::sha256), k_digest);
}

// The tamper the mtime alone does not see: bytes changed in place (same inode, same size) and
// the mtime set back. The ctime moved, which no unprivileged call can set back.
TEST(hash_cache, file_changed_with_its_mtime_restored_is_a_miss) {
  Fixture f;
  const auto before = identity(f.lib);
  const auto mtime = std::filesystem::last_write_time(f.lib);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  {
    std::fstream out(f.lib, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(0);
    out.write("x", 1);
  }
  std::filesystem::last_write_time(f.lib, mtime);
  const auto after = identity(f.lib);
  ASSERT_EQ(after.inode, before.inode);
  ASSERT_EQ(after.size, before.size);
  ASSERT_EQ(after.mtime_ns, before.mtime_ns) << "the mtime is forged back";
#ifdef _WIN32
  GTEST_SKIP() << "Windows has no status-change time: the cache trusts the mtime there";
#endif
  ASSERT_NE(after.ctime_ns, before.ctime_ns);
  HashCache cache = HashCache::open(f.dir);
  EXPECT_FALSE(cache.find(f.lib.string(), after, HashAlgorithm::sha256));
}

TEST(hash_cache, entry_with_a_malformed_digest_is_skipped) {
  Fixture f;
  const auto id = identity(f.lib);
  test::write_file(
      f.dir / HashCache::k_file_name,
      "{\"schema\":\"cudnn-doctor-hashes/2\",\"entries\":[{\"path\":\"" + f.lib.string()
          + "\",\"device\":" + std::to_string(id.device) + ",\"inode\":" + std::to_string(id.inode)
          + ",\"size\":3,\"mtime_ns\":" + std::to_string(id.mtime_ns) + ",\"ctime_ns\":"
          + std::to_string(id.ctime_ns) + ",\"algorithm\":\"sha256\",\"digest\":\"XYZ\"}]}");
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
