// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/binary_reader.hpp>
#include <doctor/collect/sysroot_probe.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>

namespace doctor {
namespace {

using collect::SysRootProbe;

const std::filesystem::path k_libcudnn = "/usr/local/cuda/lib64/libcudnn.so.9";

std::string read_host_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What the Linux loader model reads of a BinaryInfo.
auto loader_view(const facts::BinaryInfo& b) {
  return std::make_tuple(b.path,
                         b.format,
                         b.size,
                         b.mode,
                         b.uid,
                         b.gid,
                         b.bits,
                         b.machine,
                         b.soname,
                         b.needed,
                         b.rpath,
                         b.runpath,
                         b.nodeflib,
                         b.read_error,
                         b.read_error_message);
}

TEST(sysroot_probe, the_loader_depth_reads_what_the_loader_model_reads_and_nothing_more) {
  if (!std::filesystem::is_regular_file(k_libcudnn)) {
    GTEST_SKIP() << k_libcudnn << " is not installed here";
  }
  test::TempDir t;
  const std::string elf = read_host_file(k_libcudnn);
  t.write("/lib/libcudnn.so.9", elf);
  t.link("libcudnn.so.9", "/lib/libcudnn.so");
  t.write("/lib/cut.so", elf.substr(0, 100));         // headers cut: parse_elf's problems
  t.write("/lib/script.so", "/* GNU ld script */\n"); // not ELF
  t.write("/lib/empty.so", "");
  const platform::SysRoot root = t.sysroot();
  SysRootProbe everything(root);
  SysRootProbe loader(root, SysRootProbe::Depth::loader);
  for (const char* path : {"/lib/libcudnn.so",
                           "/lib/libcudnn.so.9",
                           "/lib/cut.so",
                           "/lib/script.so",
                           "/lib/empty.so"}) {
    SCOPED_TRACE(path);
    const loader::PathState full = everything.probe(path);
    const loader::PathState headers = loader.probe(path);
    EXPECT_EQ(headers.real_path, full.real_path);
    EXPECT_EQ(headers.kind, full.kind);
    ASSERT_NE(full.binary, nullptr);
    ASSERT_NE(headers.binary, nullptr);
    EXPECT_EQ(loader_view(*headers.binary), loader_view(*full.binary));
  }
  const facts::BinaryInfo& whole = *everything.probe("/lib/libcudnn.so.9").binary;
  const facts::BinaryInfo& read = *loader.probe("/lib/libcudnn.so.9").binary;
  EXPECT_EQ(read.soname, "libcudnn.so.9");
  EXPECT_FALSE(whole.version_definitions.empty());
  EXPECT_TRUE(read.version_definitions.empty()); // not read at this depth
  // A damaged file is read as read_binary reads it, problems included.
  EXPECT_EQ(loader.probe("/lib/cut.so").binary->problems,
            everything.probe("/lib/cut.so").binary->problems);
}

TEST(sysroot_probe, records_sorted_by_path) {
  test::TempDir t;
  t.write("/b/file", "x");
  t.write("/a/file", "y");
  const platform::SysRoot root = t.sysroot();
  SysRootProbe probe(root);
  for (const char* path : {"/b/file", "/a/file", "/c/absent"}) {
    probe.probe(path);
  }
  const auto probed = probe.probed();
  ASSERT_EQ(probed.size(), 3U);
  EXPECT_EQ(probed[0].path, "/a/file");
  EXPECT_EQ(probed[1].path, "/b/file");
  EXPECT_EQ(probed[2].path, "/c/absent");
  EXPECT_FALSE(probed[2].exists);
  // The permission bits of what exists, in octal as the snapshot writes them; none otherwise.
  EXPECT_EQ(probed[0].mode.size(), 4U);
  EXPECT_EQ(probed[0].mode, probed[1].mode);
  EXPECT_EQ(probed[0].kind, "regular");
  EXPECT_TRUE(probed[2].mode.empty());
  const auto binaries = probe.binaries();
  ASSERT_EQ(binaries.size(), 2U);
  EXPECT_EQ(binaries[0].path, "/a/file");
  EXPECT_EQ(binaries[1].path, "/b/file");
}

} // namespace
} // namespace doctor
