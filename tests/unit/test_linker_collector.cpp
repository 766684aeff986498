// SPDX-License-Identifier: MIT
#include "support/ld_so_cache_file.hpp"
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace doctor {
namespace {

using facts::Facts;
using Dirs = std::vector<std::string>;

using test::ld_so_cache;

Facts collect(const platform::SysRoot& root, Facts f = {}) {
  collect::collect_linker(root, collect::CollectOptions{}, f);
  return f;
}

TEST(linker_collector, conf_reads_directories_and_includes_in_order) {
  test::TempDir t;
  t.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n/usr/local/lib64\n");
  t.write("/etc/ld.so.conf.d/x86_64-linux-gnu.conf",
          "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n");
  t.write("/etc/ld.so.conf.d/000_cuda.conf", "/usr/local/cuda/targets/x86_64-linux/lib\n");
  t.write("/etc/ld.so.conf.d/libc.conf", "/usr/local/lib\n");
  t.write("/etc/ld.so.conf.d/README", "/not/a/conf/file\n");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.linker.conf_dirs) << f.linker.conf_dirs.reason();
  EXPECT_EQ(*f.linker.conf_dirs,
            (Dirs{"/usr/local/cuda/targets/x86_64-linux/lib",
                  "/usr/local/lib",
                  "/usr/local/lib/x86_64-linux-gnu",
                  "/lib/x86_64-linux-gnu",
                  "/usr/local/lib64"}));
  EXPECT_EQ(f.linker.conf_dirs.source(), "file:/etc/ld.so.conf");
}

TEST(linker_collector, conf_lines_with_comments_separators_types_and_hwcap) {
  test::TempDir t;
  t.write("/etc/ld.so.conf",
          "  /opt/a   # trailing comment\n"
          "/opt/b,/opt/c:/opt/d\t/opt/e\n"
          "/opt/f=libc6\n"
          "hwcap 0x0000000000080000 nosegneg\n"
          "relative/dir\n"
          "/opt/g/./x/../\n"
          "/opt/a\n"
          "\r\n"
          "#/opt/commented\n");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.linker.conf_dirs);
  EXPECT_EQ(*f.linker.conf_dirs,
            (Dirs{"/opt/a", "/opt/b", "/opt/c", "/opt/d", "/opt/e", "/opt/f", "/opt/g"}));
}

TEST(linker_collector, relative_include_is_relative_to_the_including_file) {
  test::TempDir t;
  t.write("/etc/ld.so.conf", "include ld.so.conf.d/*.conf\n");
  t.write("/etc/ld.so.conf.d/a.conf", "/opt/a\n");
  t.write("/ld.so.conf.d/wrong.conf", "/opt/wrong\n");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.linker.conf_dirs);
  EXPECT_EQ(*f.linker.conf_dirs, (Dirs{"/opt/a"}));
}

TEST(linker_collector, include_of_several_patterns_and_plain_files) {
  test::TempDir t;
  t.write("/etc/ld.so.conf",
          "include /etc/one.conf  /etc/two/*.conf\ninclude\t/etc/missing.conf\n");
  t.write("/etc/one.conf", "/opt/one\n");
  t.write("/etc/two/b.conf", "/opt/two-b\n");
  t.write("/etc/two/a.conf", "/opt/two-a\n");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.linker.conf_dirs);
  EXPECT_EQ(*f.linker.conf_dirs, (Dirs{"/opt/one", "/opt/two-a", "/opt/two-b"}));
}

TEST(linker_collector, include_loops_terminate) {
  test::TempDir t;
  t.write("/etc/ld.so.conf", "include /etc/ld.so.conf\ninclude /etc/a.conf\n/opt/root\n");
  t.write("/etc/a.conf", "/opt/a\ninclude /etc/b.conf\n");
  t.write("/etc/b.conf", "include /etc/a.conf\n/opt/b\n");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.linker.conf_dirs);
  EXPECT_EQ(*f.linker.conf_dirs, (Dirs{"/opt/a", "/opt/b", "/opt/root"}));
}

TEST(linker_collector, include_glob_through_a_linked_directory_stays_inside_root) {
  test::TempDir t;
  t.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  t.link("/srv/conf", "/etc/ld.so.conf.d");
  t.write("/srv/conf/cuda.conf", "/usr/local/cuda/lib64\n");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.linker.conf_dirs);
  EXPECT_EQ(*f.linker.conf_dirs, (Dirs{"/usr/local/cuda/lib64"}));
}

TEST(linker_collector, missing_conf_is_unknown_and_empty_conf_is_known) {
  test::TempDir t;
  t.mkdir("/etc");
  const Facts missing = collect(t.sysroot());
  ASSERT_FALSE(missing.linker.conf_dirs);
  EXPECT_NE(missing.linker.conf_dirs.reason().find("does not exist"), std::string::npos);
  t.write("/etc/ld.so.conf", "");
  const Facts empty = collect(t.sysroot());
  ASSERT_TRUE(empty.linker.conf_dirs);
  EXPECT_TRUE(empty.linker.conf_dirs->empty());
}

TEST(linker_collector, binary_junk_conf_yields_no_directories) {
  test::TempDir t;
  t.write("/etc/ld.so.conf",
          std::string("\x7f"
                      "ELF\x02\x01\x01\0\0\xff\xfe junk\n",
                      17));
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.linker.conf_dirs);
  EXPECT_TRUE(f.linker.conf_dirs->empty());
}

TEST(linker_collector, cache_entries_are_read_in_order) {
  test::TempDir t;
  t.write("/etc/ld.so.cache",
          ld_so_cache({{"libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"},
                       {"libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"}}));
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.linker.cache) << f.linker.cache.reason();
  ASSERT_EQ(f.linker.cache->size(), 2U);
  EXPECT_EQ((*f.linker.cache)[0].name, "libcudnn.so.9");
  EXPECT_EQ((*f.linker.cache)[0].path, "/usr/lib/x86_64-linux-gnu/libcudnn.so.9");
  EXPECT_EQ((*f.linker.cache)[0].arch, "x86-64");
  EXPECT_EQ((*f.linker.cache)[1].name, "libcuda.so.1");
  EXPECT_EQ(f.linker.cache.source(), "file:/etc/ld.so.cache");
}

TEST(linker_collector, missing_cache_is_unknown) {
  test::TempDir t;
  t.mkdir("/etc");
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.linker.cache);
  EXPECT_NE(f.linker.cache.reason().find("does not exist"), std::string::npos);
}

TEST(linker_collector, damaged_cache_is_unknown) {
  test::TempDir t;
  std::string cache = ld_so_cache({{"libcudnn.so.9", "/usr/lib/libcudnn.so.9"}});
  cache.resize(cache.size() - 5);
  t.write("/etc/ld.so.cache", cache);
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.linker.cache);
  EXPECT_NE(f.linker.cache.reason().find("damaged"), std::string::npos) << f.linker.cache.reason();
  t.write("/etc/ld.so.cache", "not a cache at all");
  EXPECT_FALSE(collect(t.sysroot()).linker.cache);
}

TEST(linker_collector, unreadable_cache_is_unknown_with_the_reason) {
  test::TempDir t;
  t.mkdir("/etc/ld.so.cache"); // a directory cannot be read as a file, even by root
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.linker.cache);
  EXPECT_NE(f.linker.cache.reason().find("cannot read"), std::string::npos)
      << f.linker.cache.reason();
}

TEST(linker_collector, default_dirs_are_multiarch_on_debian) {
  test::TempDir t;
  t.mkdir("/usr/lib/x86_64-linux-gnu");
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.linker.default_dirs,
            (Dirs{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"}));
}

TEST(linker_collector, default_dirs_follow_the_architecture) {
  test::TempDir t;
  t.mkdir("/lib/aarch64-linux-gnu");
  Facts f;
  f.os.architecture = facts::Fact<std::string>::known("aarch64", "test");
  f = collect(t.sysroot(), f);
  EXPECT_EQ(f.linker.default_dirs,
            (Dirs{"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib", "/usr/lib"}));
}

TEST(linker_collector, default_dirs_are_lib64_on_rpm_systems) {
  test::TempDir t;
  t.mkdir("/usr/lib64");
  t.mkdir("/usr/lib/x86_64-linux-gnu-not-quite");
  const Facts f = collect(t.sysroot());
  EXPECT_EQ(f.linker.default_dirs, (Dirs{"/lib64", "/usr/lib64", "/lib", "/usr/lib"}));
}

} // namespace
} // namespace doctor
