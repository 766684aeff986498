// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/platform/sysroot.hpp>
#include <doctor/util/paths.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace doctor {
namespace {

namespace fs = std::filesystem;
using platform::SysRoot;

// A temp dir holding "root/" (the examined machine) and "outside/" (host files next to it that
// no path of the examined machine may reach).
struct Tree {
  test::TempDir tmp;
  fs::path root = tmp.path() / "root";
  Tree() {
    test::mkdirs(root);
    test::write_file(tmp.path() / "outside/secret", "host secret");
  }
  void write(const std::string& inner, const std::string& contents) const {
    test::write_file(root / inner.substr(1), contents);
  }
  void link(const std::string& target, const std::string& inner) const {
    test::make_symlink(target, root / inner.substr(1));
  }
  SysRoot sysroot() const { return test::fake_root(root, {{"PATH", "/usr/bin:/bin"}}); }
};

std::vector<std::string> names(const std::vector<platform::DirEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) {
    out.push_back(e.name);
  }
  return out;
}

TEST(sysroot, keeps_root_environment_family_and_liveness) {
  Tree t;
  const SysRoot s = t.sysroot();
  EXPECT_EQ(s.root(), t.root);
  EXPECT_EQ(s.env().get("PATH"), "/usr/bin:/bin");
  EXPECT_FALSE(s.env().get("HOME"));
  EXPECT_EQ(s.os(), platform::OsFamily::linux);
  EXPECT_FALSE(s.is_live());
  EXPECT_EQ(platform::to_string(platform::OsFamily::linux), "linux");
  EXPECT_EQ(platform::to_string(platform::OsFamily::windows), "windows");
}

TEST(sysroot, host_path_joins_inner_path_under_root) {
  Tree t;
  const SysRoot s = t.sysroot();
  EXPECT_EQ(s.host_path("/etc/os-release"), t.root / "etc" / "os-release");
  EXPECT_EQ(s.host_path("//etc/./os-release"), t.root / "etc" / "os-release");
  EXPECT_EQ(s.host_path("/"), t.root);
}

TEST(sysroot, host_path_never_climbs_above_root) {
  Tree t;
  const SysRoot s = t.sysroot();
  EXPECT_EQ(s.host_path("/../outside/secret"), t.root / "outside" / "secret");
  EXPECT_EQ(s.host_path("/etc/../../../x"), t.root / "x");
}

TEST(sysroot, reads_a_plain_file) {
  Tree t;
  t.write("/etc/os-release", "ID=debian\n");
  const SysRoot s = t.sysroot();
  EXPECT_EQ(s.resolve("/etc/os-release"), "/etc/os-release");
  auto text = s.read_file("/etc/os-release", 1024);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "ID=debian\n");
}

TEST(sysroot, resolve_removes_dot_components_and_duplicate_slashes) {
  Tree t;
  t.write("/usr/lib/libx.so", "x");
  EXPECT_EQ(t.sysroot().resolve("//usr/./lib//libx.so"), "/usr/lib/libx.so");
  EXPECT_EQ(t.sysroot().resolve("/"), "/");
  EXPECT_EQ(t.sysroot().resolve(""), "/");
}

TEST(sysroot, relative_link_is_followed_within_its_directory) {
  Tree t;
  t.write("/usr/lib/libcuda.so.535.104.05", "elf");
  t.link("libcuda.so.535.104.05", "/usr/lib/libcuda.so.1");
  t.link("libcuda.so.1", "/usr/lib/libcuda.so");
  const SysRoot s = t.sysroot();
  EXPECT_EQ(s.resolve("/usr/lib/libcuda.so"), "/usr/lib/libcuda.so.535.104.05");
  EXPECT_EQ(s.read_file("/usr/lib/libcuda.so", 100), "elf");
}

TEST(sysroot, absolute_link_stays_inside_root) {
  Tree t;
  t.write("/usr/local/cuda-13.0/version.json", "{}");
  t.link("/usr/local/cuda-13.0", "/usr/local/cuda");
  const SysRoot s = t.sysroot();
  EXPECT_EQ(s.resolve("/usr/local/cuda/version.json"), "/usr/local/cuda-13.0/version.json");
  EXPECT_EQ(s.read_file("/usr/local/cuda/version.json", 100), "{}");
  EXPECT_TRUE(s.is_dir("/usr/local/cuda"));
}

TEST(sysroot, absolute_link_to_a_host_path_is_re_rooted) {
  Tree t;
  const std::string host_secret = (t.tmp.path() / "outside/secret").string();
  t.link(host_secret, "/etc/escape");
  const SysRoot s = t.sysroot();
  auto text = s.read_file("/etc/escape", 100);
  ASSERT_FALSE(text) << "read the host file through a link: " << *text;
  EXPECT_EQ(text.error().code, ErrorCode::not_found);
  // The same path inside the root is what the link means.
  t.write(host_secret, "inner copy");
  EXPECT_EQ(s.read_file("/etc/escape", 100), "inner copy");
}

TEST(sysroot, dot_dot_in_a_link_target_never_climbs_above_root) {
  Tree t;
  t.link("../../../../../outside/secret", "/etc/escape");
  const SysRoot s = t.sysroot();
  EXPECT_FALSE(s.read_file("/etc/escape", 100));
  EXPECT_FALSE(s.exists("/etc/escape"));
  t.write("/outside/secret", "inner");
  EXPECT_EQ(s.resolve("/etc/escape"), "/outside/secret");
  EXPECT_EQ(s.read_file("/etc/escape", 100), "inner");
}

TEST(sysroot, dot_dot_in_an_inner_path_never_climbs_above_root) {
  Tree t;
  const SysRoot s = t.sysroot();
  auto text = s.read_file("/../outside/secret", 100);
  ASSERT_FALSE(text) << "read the host file: " << *text;
  EXPECT_EQ(text.error().code, ErrorCode::not_found);
  EXPECT_FALSE(s.exists("/../../outside/secret"));
  EXPECT_FALSE(s.list_dir("/../outside"));
  EXPECT_FALSE(s.lstat("/../outside/secret"));
  EXPECT_FALSE(s.read_link("/../outside/secret"));
  t.write("/etc/passwd", "root:x:0:0\n");
  EXPECT_EQ(s.read_file("/../../etc/passwd", 100), "root:x:0:0\n");
}

TEST(sysroot, dot_dot_after_a_link_applies_to_the_link_target) {
  Tree t;
  t.write("/opt/cuda-13.0/lib/libcudart.so", "x");
  t.write("/opt/marker", "opt");
  t.link("/opt/cuda-13.0", "/usr/local/cuda");
  const SysRoot s = t.sysroot();
  // As the kernel does: ".." of the link's target, not of the link's directory.
  EXPECT_EQ(s.resolve("/usr/local/cuda/../marker"), "/opt/marker");
}

TEST(sysroot, links_through_several_directories_resolve) {
  Tree t;
  t.write("/real/dir/file", "deep");
  t.link("/real", "/a");
  t.link("../a/dir", "/b/c");
  const SysRoot s = t.sysroot();
  EXPECT_EQ(s.resolve("/b/c/file"), "/real/dir/file");
  EXPECT_EQ(s.read_file("/b/c/file", 100), "deep");
}

TEST(sysroot, symlink_loop_is_reported) {
  Tree t;
  t.link("b", "/a");
  t.link("a", "/b");
  t.link("self", "/self");
  const SysRoot s = t.sysroot();
  auto r = s.resolve("/a");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::symlink_loop);
  EXPECT_EQ(s.resolve("/self/x").error().code, ErrorCode::symlink_loop);
  auto text = s.read_file("/a", 100);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::symlink_loop);
  EXPECT_FALSE(s.exists("/a"));
  EXPECT_FALSE(s.is_file("/a"));
  auto st = s.lstat("/a");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->kind, platform::FileKind::symlink);
}

// Builds /l1 -> /l2 -> ... -> /l<n> -> /target: resolving /l1 follows n links.
void make_chain(const Tree& t, int n) {
  t.write("/target", "end");
  for (int i = 1; i <= n; ++i) {
    t.link(i == n ? "/target" : "/l" + std::to_string(i + 1), "/l" + std::to_string(i));
  }
}

TEST(sysroot, forty_links_are_followed) {
  Tree t;
  make_chain(t, 40);
  EXPECT_EQ(t.sysroot().resolve("/l1"), "/target");
}

TEST(sysroot, forty_one_links_are_a_loop) {
  Tree t;
  make_chain(t, 41);
  auto r = t.sysroot().resolve("/l1");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::symlink_loop);
  EXPECT_EQ(t.sysroot().resolve("/l2"), "/target");
}

TEST(sysroot, dangling_link_is_not_found_but_can_be_examined) {
  Tree t;
  t.link("libcudnn.so.9.1.0", "/usr/lib/libcudnn.so.9");
  const SysRoot s = t.sysroot();
  auto r = s.resolve("/usr/lib/libcudnn.so.9");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::not_found);
  EXPECT_FALSE(s.exists("/usr/lib/libcudnn.so.9"));
  EXPECT_FALSE(s.stat("/usr/lib/libcudnn.so.9"));
  auto st = s.lstat("/usr/lib/libcudnn.so.9");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->kind, platform::FileKind::symlink);
  EXPECT_EQ(s.read_link("/usr/lib/libcudnn.so.9"), "libcudnn.so.9.1.0");
}

TEST(sysroot, missing_component_is_not_found_with_inner_path_in_message) {
  Tree t;
  const SysRoot s = t.sysroot();
  auto text = s.read_file("/proc/driver/nvidia/version", 100);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::not_found);
  EXPECT_NE(text.error().message.find("/proc"), std::string::npos) << text.error().message;
  EXPECT_EQ(text.error().message.find(t.root.string()), std::string::npos) << text.error().message;
}

TEST(sysroot, path_through_a_regular_file_is_not_found) {
  Tree t;
  t.write("/etc/os-release", "x");
  auto r = t.sysroot().resolve("/etc/os-release/more");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::not_found);
}

TEST(sysroot, read_file_enforces_size_limit_or_truncates) {
  Tree t;
  t.write("/big", std::string(100000, 'z'));
  const SysRoot s = t.sysroot();
  auto text = s.read_file("/big", 1000);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::too_large);
  EXPECT_EQ(text.error().message.find(t.root.string()), std::string::npos) << text.error().message;
  auto cut = s.read_file("/big", 1000, /*allow_truncate=*/true);
  ASSERT_TRUE(cut);
  EXPECT_EQ(*cut, std::string(1000, 'z'));
  EXPECT_EQ(s.read_file("/big", 100000)->size(), 100000U);
}

TEST(sysroot, read_file_of_a_directory_is_an_error) {
  Tree t;
  t.write("/etc/x", "");
  auto text = t.sysroot().read_file("/etc", 100);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::not_regular);
  EXPECT_EQ(text.error().message, "/etc: is a directory, not a regular file");
}

TEST(sysroot, read_file_of_empty_file_is_empty) {
  Tree t;
  t.write("/empty", "");
  EXPECT_EQ(t.sysroot().read_file("/empty", 100), "");
}

TEST(sysroot, read_file_keeps_binary_bytes) {
  Tree t;
  const std::string junk(
      "\x7f"
      "ELF\0\0\xff\xfe\n\r",
      10);
  t.write("/bin/junk", junk);
  EXPECT_EQ(t.sysroot().read_file("/bin/junk", 100), junk);
}

TEST(sysroot, unreadable_file_is_permission_denied) {
  if (test::running_as_root()) {
    GTEST_SKIP() << "root reads files whatever their mode";
  }
  Tree t;
  t.write("/etc/shadow", "secret");
  fs::permissions(t.root / "etc/shadow", fs::perms::none);
  auto text = t.sysroot().read_file("/etc/shadow", 100);
  fs::permissions(t.root / "etc/shadow", fs::perms::owner_all);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::permission_denied);
}

TEST(sysroot, unlistable_directory_is_permission_denied) {
  if (test::running_as_root()) {
    GTEST_SKIP() << "root lists directories whatever their mode";
  }
  Tree t;
  t.write("/secret/file", "x");
  fs::permissions(t.root / "secret", fs::perms::none);
  auto entries = t.sysroot().list_dir("/secret");
  auto text = t.sysroot().read_file("/secret/file", 100);
  fs::permissions(t.root / "secret", fs::perms::owner_all);
  ASSERT_FALSE(entries);
  EXPECT_EQ(entries.error().code, ErrorCode::permission_denied);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::permission_denied);
}

TEST(sysroot, list_dir_is_sorted_and_reports_entry_kinds_without_following) {
  Tree t;
  t.write("/d/zeta", "");
  t.write("/d/alpha", "");
  t.link("alpha", "/d/mid");
  test::mkdirs(t.root / "d/sub");
  auto entries = t.sysroot().list_dir("/d");
  ASSERT_TRUE(entries) << entries.error().message;
  EXPECT_EQ(names(*entries), (std::vector<std::string>{"alpha", "mid", "sub", "zeta"}));
  EXPECT_EQ((*entries)[0].kind, platform::FileKind::regular);
  EXPECT_EQ((*entries)[1].kind, platform::FileKind::symlink);
  EXPECT_EQ((*entries)[2].kind, platform::FileKind::directory);
}

TEST(sysroot, list_dir_follows_links_inside_root) {
  Tree t;
  t.write("/usr/local/cuda-13.0/lib64/libcudart.so.13", "");
  t.link("/usr/local/cuda-13.0", "/usr/local/cuda");
  auto entries = t.sysroot().list_dir("/usr/local/cuda/lib64");
  ASSERT_TRUE(entries) << entries.error().message;
  EXPECT_EQ(names(*entries), (std::vector<std::string>{"libcudart.so.13"}));
}

TEST(sysroot, list_dir_of_missing_or_file_is_an_error) {
  Tree t;
  t.write("/file", "");
  const SysRoot s = t.sysroot();
  auto missing = s.list_dir("/nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_FALSE(s.list_dir("/file"));
}

TEST(sysroot, lstat_does_not_follow_the_final_link_but_stat_does) {
  Tree t;
  t.write("/usr/lib/real", "12345");
  t.link("real", "/usr/lib/link");
  const SysRoot s = t.sysroot();
  auto l = s.lstat("/usr/lib/link");
  auto st = s.stat("/usr/lib/link");
  ASSERT_TRUE(l);
  ASSERT_TRUE(st);
  EXPECT_EQ(l->kind, platform::FileKind::symlink);
  EXPECT_EQ(st->kind, platform::FileKind::regular);
  EXPECT_EQ(st->size, 5U);
}

TEST(sysroot, lstat_follows_links_in_the_directory_part) {
  Tree t;
  t.write("/opt/cuda/lib/libcudart.so.13.0.48", "x");
  t.link("libcudart.so.13.0.48", "/opt/cuda/lib/libcudart.so.13");
  t.link("/opt/cuda", "/usr/local/cuda");
  auto l = t.sysroot().lstat("/usr/local/cuda/lib/libcudart.so.13");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->kind, platform::FileKind::symlink);
  EXPECT_EQ(t.sysroot().read_link("/usr/local/cuda/lib/libcudart.so.13"), "libcudart.so.13.0.48");
}

TEST(sysroot, lstat_resolved_names_the_real_path_of_anything_but_a_link) {
  Tree t;
  t.write("/opt/cuda/lib/libcudart.so.13.0.48", "x");
  t.link("libcudart.so.13.0.48", "/opt/cuda/lib/libcudart.so.13");
  t.link("/opt/cuda", "/usr/local/cuda");
  const SysRoot s = t.sysroot();
  for (const char* file : {"/usr/local/cuda/lib/libcudart.so.13.0.48", "/usr/local/cuda/lib"}) {
    SCOPED_TRACE(file);
    auto l = s.lstat_resolved(file);
    ASSERT_TRUE(l);
    EXPECT_EQ(l->stat.kind, s.lstat(file)->kind);
    EXPECT_EQ(l->real_path, s.resolve(file).value());
  }
  // A link's own target is not looked at; neither is a path that is not normalised.
  auto link = s.lstat_resolved("/usr/local/cuda/lib/libcudart.so.13");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->stat.kind, platform::FileKind::symlink);
  EXPECT_EQ(link->real_path, "");
  auto dotted = s.lstat_resolved("/usr/local/cuda/lib/../lib/libcudart.so.13.0.48");
  ASSERT_TRUE(dotted);
  EXPECT_EQ(dotted->real_path, "");
  EXPECT_EQ(s.lstat_resolved("/").value().real_path, "/");
  auto missing = s.lstat_resolved("/usr/local/cuda/lib/absent");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
}

TEST(sysroot, a_folder_resolved_once_answers_again_without_looking) {
  Tree t;
  t.write("/opt/a/lib/x", "");
  t.link("/opt/a", "/usr/local/a");
  const SysRoot s = t.sysroot();
  ASSERT_EQ(s.lstat_resolved("/usr/local/a/lib/x").value().real_path, "/opt/a/lib/x");
  // The folder's answer is kept (resolve() would give the same from the components it keeps),
  // while the last component is looked at afresh.
  fs::remove(t.root / "opt/a/lib/x");
  EXPECT_FALSE(s.lstat_resolved("/usr/local/a/lib/x"));
  t.write("/opt/a/lib/y", "");
  EXPECT_EQ(s.lstat_resolved("/usr/local/a/lib/y").value().real_path, "/opt/a/lib/y");
}

TEST(sysroot, lstat_of_root_is_the_root_directory) {
  Tree t;
  auto st = t.sysroot().lstat("/");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->kind, platform::FileKind::directory);
}

TEST(sysroot, read_link_of_a_regular_file_is_an_error) {
  Tree t;
  t.write("/file", "");
  EXPECT_FALSE(t.sysroot().read_link("/file"));
  EXPECT_FALSE(t.sysroot().read_link("/missing"));
}

TEST(sysroot, is_dir_is_file_and_exists_follow_links) {
  Tree t;
  t.write("/dir/file", "");
  t.link("/dir", "/dirlink");
  t.link("/dir/file", "/filelink");
  const SysRoot s = t.sysroot();
  EXPECT_TRUE(s.is_dir("/dirlink"));
  EXPECT_FALSE(s.is_file("/dirlink"));
  EXPECT_TRUE(s.is_file("/filelink"));
  EXPECT_FALSE(s.is_dir("/filelink"));
  EXPECT_TRUE(s.exists("/dir/file"));
  EXPECT_FALSE(s.exists("/dir/other"));
  EXPECT_TRUE(s.is_dir("/"));
}

TEST(sysroot, join_path_uses_exactly_one_slash) {
  EXPECT_EQ(util::join_path("/usr/lib", "libc.so.6"), "/usr/lib/libc.so.6");
  EXPECT_EQ(util::join_path("/usr/lib/", "/libc.so.6"), "/usr/lib/libc.so.6");
  EXPECT_EQ(util::join_path("/usr/lib//", "//x"), "/usr/lib/x");
  EXPECT_EQ(util::join_path("/", "etc"), "/etc");
  EXPECT_EQ(util::join_path("/usr", "lib/x86_64-linux-gnu"), "/usr/lib/x86_64-linux-gnu");
}

TEST(sysroot, parent_path_of_inner_paths) {
  EXPECT_EQ(util::parent_path("/a/b/c"), "/a/b");
  EXPECT_EQ(util::parent_path("/a"), "/");
  EXPECT_EQ(util::parent_path("/"), "/");
  EXPECT_EQ(util::parent_path("/a/b/"), "/a");
  EXPECT_EQ(util::parent_path("/a/./b/../c/d"), "/a/c");
}

TEST(sysroot, file_name_is_the_last_component) {
  EXPECT_EQ(util::file_name("/usr/lib/libcudnn.so.9"), "libcudnn.so.9");
  EXPECT_EQ(util::file_name("/usr/lib/"), "lib");
  EXPECT_EQ(util::file_name("name"), "name");
}

TEST(sysroot, normalize_path_is_lexical_and_clamped_at_root) {
  EXPECT_EQ(util::normalize_path("/a//b/./c/"), "/a/b/c");
  EXPECT_EQ(util::normalize_path("/a/b/../../.."), "/");
  EXPECT_EQ(util::normalize_path("../../etc/passwd"), "/etc/passwd");
  EXPECT_EQ(util::normalize_path("relative/x"), "/relative/x");
  EXPECT_EQ(util::normalize_path(""), "/");
  EXPECT_EQ(util::normalize_path("/..."), "/...");
}

} // namespace
} // namespace doctor
