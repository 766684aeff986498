// SPDX-License-Identifier: MIT
#include <doctor/loader/linux_search.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>

namespace doctor {
namespace {

using loader::FoundVia;

// An in-memory file system for the loader model: files with ELF headers, directories, links.
class FakeFs final : public loader::FileProbe {
public:
  facts::BinaryInfo&
  file(const std::string& path, unsigned bits = 64, std::string machine = "x86-64") {
    auto b = std::make_unique<facts::BinaryInfo>();
    b->path = path;
    b->format = "elf";
    b->bits = bits;
    b->machine = std::move(machine);
    auto& ref = *b;
    m_files[path] = std::move(b);
    return ref;
  }
  void dir(const std::string& path) { m_dirs.insert({path, true}); }
  void link(const std::string& path, const std::string& target) { m_links[path] = target; }

  loader::PathState probe(const std::string& path) override {
    probes.push_back(path);
    loader::PathState st;
    std::string real = path;
    if (auto l = m_links.find(path); l != m_links.end()) {
      real = l->second;
    }
    if (auto f = m_files.find(real); f != m_files.end()) {
      st.exists = true;
      st.real_path = real;
      st.binary = f->second.get();
    } else if (m_dirs.count(path) != 0) {
      st.exists = true;
      st.is_dir = true;
      st.real_path = path;
    }
    return st;
  }

  std::vector<std::string> probes;

private:
  std::map<std::string, std::unique_ptr<facts::BinaryInfo>> m_files;
  std::map<std::string, bool> m_dirs;
  std::map<std::string, std::string> m_links;
};

loader::LinuxLoaderConfig config(std::string ld_library_path = {}) {
  loader::LinuxLoaderConfig c;
  c.ld_library_path = std::move(ld_library_path);
  c.ld_library_path_set = !c.ld_library_path.empty();
  c.cache = std::vector<facts::LdCacheEntry>{};
  c.default_dirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"};
  c.lib_token = "lib/x86_64-linux-gnu";
  return c;
}

TEST(linux_search, rpath_wins_over_ld_library_path_which_is_listed_as_shadowed) {
  FakeFs fs;
  auto& caller = fs.file("/app/torch/lib/libtorch_cuda.so");
  caller.rpath = {"$ORIGIN/../../nvidia/cudnn/lib"};
  fs.file("/app/nvidia/cudnn/lib/libcudnn.so.9");
  fs.file("/opt/old/libcudnn.so.9");
  const auto r = loader::resolve_linux(
      "libcudnn.so.9", {{"/app/torch/lib/libtorch_cuda.so", &caller}}, config("/opt/old"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/app/nvidia/cudnn/lib/libcudnn.so.9");
  EXPECT_EQ(r.chosen->via, FoundVia::rpath);
  EXPECT_EQ(r.chosen->source, "RPATH of /app/torch/lib/libtorch_cuda.so");
  ASSERT_EQ(r.shadowed.size(), 1U);
  EXPECT_EQ(r.shadowed[0].path, "/opt/old/libcudnn.so.9");
  EXPECT_EQ(r.shadowed[0].via, FoundVia::ld_library_path);
}

TEST(linux_search, runpath_disables_rpath_and_comes_after_ld_library_path) {
  FakeFs fs;
  auto& caller = fs.file("/cudnn/lib/libcudnn.so.9");
  caller.rpath = {"/rpath-dir"};
  caller.runpath = {"$ORIGIN"};
  fs.file("/rpath-dir/libcudnn_ops.so.9");
  fs.file("/cudnn/lib/libcudnn_ops.so.9");
  fs.file("/other/libcudnn_ops.so.9");
  const auto r = loader::resolve_linux(
      "libcudnn_ops.so.9", {{"/cudnn/lib/libcudnn.so.9", &caller}}, config("/other"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/other/libcudnn_ops.so.9");
  EXPECT_EQ(r.chosen->via, FoundVia::ld_library_path);
  ASSERT_EQ(r.shadowed.size(), 1U);
  EXPECT_EQ(r.shadowed[0].via, FoundVia::runpath);
  EXPECT_EQ(r.steps.front().outcome, "skipped: the caller has a RUNPATH, so no RPATH is used");
  for (const std::string& p : fs.probes) {
    EXPECT_NE(p, "/rpath-dir/libcudnn_ops.so.9") << "RPATH searched despite RUNPATH";
  }
}

TEST(linux_search, rpath_of_loaders_is_inherited_but_runpath_is_not) {
  FakeFs fs;
  auto& lib = fs.file("/a/libmid.so");
  auto& exe_rpath = fs.file("/bin/app");
  exe_rpath.rpath = {"/exe-rpath"};
  fs.file("/exe-rpath/libz.so.1");
  auto r = loader::resolve_linux(
      "libz.so.1", {{"/a/libmid.so", &lib}, {"/bin/app", &exe_rpath}}, config(), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->via, FoundVia::rpath);
  EXPECT_EQ(r.chosen->source, "RPATH of /bin/app");

  auto& exe_runpath = fs.file("/bin/app2");
  exe_runpath.runpath = {"/exe-rpath"};
  r = loader::resolve_linux(
      "libz.so.1", {{"/a/libmid.so", &lib}, {"/bin/app2", &exe_runpath}}, config(), fs);
  EXPECT_FALSE(r.chosen) << "a loader's RUNPATH must not be inherited";
}

TEST(linux_search, loader_with_runpath_contributes_no_rpath) {
  FakeFs fs;
  auto& lib = fs.file("/a/libmid.so");
  auto& loader_obj = fs.file("/b/libloader.so");
  loader_obj.rpath = {"/rp"};
  loader_obj.runpath = {"/rn"};
  fs.file("/rp/libx.so");
  const auto r = loader::resolve_linux(
      "libx.so", {{"/a/libmid.so", &lib}, {"/b/libloader.so", &loader_obj}}, config(), fs);
  EXPECT_FALSE(r.chosen);
}

TEST(linux_search, wrong_class_and_machine_are_skipped_silently_like_ld_so) {
  FakeFs fs;
  auto& caller = fs.file("/app/libx.so");
  fs.file("/lib32/libz.so.1", 32, "i386");
  fs.file("/arm/libz.so.1", 64, "aarch64");
  fs.file("/ok/libz.so.1");
  const auto r = loader::resolve_linux(
      "libz.so.1", {{"/app/libx.so", &caller}}, config("/lib32:/arm:/ok"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/ok/libz.so.1");
  EXPECT_EQ(r.steps[0].outcome, "wrong ELF class: 32-bit");
  EXPECT_EQ(r.steps[1].outcome, "wrong machine: aarch64");
}

TEST(linux_search, tokens_expand_and_unknown_tokens_are_skipped) {
  const auto c = config();
  EXPECT_EQ(loader::expand_tokens("$ORIGIN/../lib", "/opt/x/bin/prog", c), "/opt/x/bin/../lib");
  EXPECT_EQ(loader::expand_tokens("${ORIGIN}/sub", "/opt/x/libA.so", c), "/opt/x/sub");
  EXPECT_EQ(loader::expand_tokens("/usr/$LIB/cuda", "/x", c), "/usr/lib/x86_64-linux-gnu/cuda");
  EXPECT_EQ(loader::expand_tokens("/p/$PLATFORM", "/x", c), "/p/x86_64");
  EXPECT_FALSE(loader::expand_tokens("/p/$HOME", "/x", c));
  EXPECT_FALSE(loader::expand_tokens("/p/${ORIGIN", "/x", c));
}

TEST(linux_search, cache_takes_one_entry_of_the_right_architecture) {
  FakeFs fs;
  fs.file("/usr/lib/i386-linux-gnu/libcudnn.so.8", 32, "i386");
  fs.file("/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
  fs.file("/opt/second/libcudnn.so.8");
  auto c = config();
  c.cache = std::vector<facts::LdCacheEntry>{
      {"libcudnn.so.8", "/usr/lib/i386-linux-gnu/libcudnn.so.8", "i386"},
      {"libcudnn.so.8", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "x86-64"},
      {"libcudnn.so.8", "/opt/second/libcudnn.so.8", "x86-64"}};
  const auto r = loader::resolve_linux("libcudnn.so.8", {}, c, fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/usr/lib/x86_64-linux-gnu/libcudnn.so.8");
  EXPECT_EQ(r.chosen->via, FoundVia::ld_so_cache);
  for (const std::string& p : fs.probes) {
    EXPECT_NE(p, "/opt/second/libcudnn.so.8") << "ld.so uses a single cache entry";
  }
}

TEST(linux_search, nodeflib_ignores_cache_entries_in_default_dirs_and_the_defaults) {
  FakeFs fs;
  auto& caller = fs.file("/app/libx.so");
  caller.nodeflib = true;
  fs.file("/usr/lib/x86_64-linux-gnu/libz.so.1");
  auto c = config();
  c.cache = std::vector<facts::LdCacheEntry>{
      {"libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1", "x86-64"}};
  const auto r = loader::resolve_linux("libz.so.1", {{"/app/libx.so", &caller}}, c, fs);
  EXPECT_FALSE(r.chosen);
}

TEST(linux_search, not_found_lists_every_path_in_order) {
  FakeFs fs;
  const auto r = loader::resolve_linux("libcudnn_ops.so.9", {}, config("/a:/b"), fs);
  EXPECT_FALSE(r.chosen);
  std::vector<std::string> paths;
  for (const auto& s : r.steps) {
    if (!s.path.empty() && s.outcome == "absent") {
      paths.push_back(s.path);
    }
  }
  EXPECT_EQ(paths,
            (std::vector<std::string>{"/a/libcudnn_ops.so.9",
                                      "/b/libcudnn_ops.so.9",
                                      "/lib/x86_64-linux-gnu/libcudnn_ops.so.9",
                                      "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9",
                                      "/lib/libcudnn_ops.so.9",
                                      "/usr/lib/libcudnn_ops.so.9"}));
}

TEST(linux_search, empty_ld_library_path_entry_is_the_current_directory) {
  FakeFs fs;
  const auto r = loader::resolve_linux("libx.so", {}, config("/a::/b"), fs);
  bool noted = false;
  for (const auto& s : r.steps) {
    noted = noted || s.outcome.find("current directory") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

TEST(linux_search, a_name_with_a_slash_is_opened_as_given) {
  FakeFs fs;
  fs.file("/opt/lib/libcudnn.so.9");
  const auto r = loader::resolve_linux("/opt/lib/libcudnn.so.9", {}, config("/else"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->via, FoundVia::direct);
  EXPECT_EQ(r.steps.size(), 1U);
}

TEST(linux_search, glibc_hwcaps_subdirectories_come_first) {
  FakeFs fs;
  fs.dir("/opt/lib/glibc-hwcaps");
  fs.file("/opt/lib/glibc-hwcaps/x86-64-v3/libz.so.1");
  fs.file("/opt/lib/libz.so.1");
  const auto r = loader::resolve_linux("libz.so.1", {}, config("/opt/lib"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/opt/lib/glibc-hwcaps/x86-64-v3/libz.so.1");
  ASSERT_EQ(r.shadowed.size(), 1U);
  EXPECT_EQ(r.shadowed[0].path, "/opt/lib/libz.so.1");
}

TEST(linux_search, symlinked_copies_of_the_same_file_are_not_shadows) {
  FakeFs fs;
  fs.file("/usr/local/cuda-13.0/lib/libcudnn.so.9");
  fs.link("/usr/local/cuda/lib64/libcudnn.so.9", "/usr/local/cuda-13.0/lib/libcudnn.so.9");
  const auto r = loader::resolve_linux(
      "libcudnn.so.9", {}, config("/usr/local/cuda/lib64:/usr/local/cuda-13.0/lib"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/usr/local/cuda/lib64/libcudnn.so.9");
  EXPECT_EQ(r.chosen->real_path, "/usr/local/cuda-13.0/lib/libcudnn.so.9");
  EXPECT_TRUE(r.shadowed.empty());
}

} // namespace
} // namespace doctor
