// SPDX-License-Identifier: MIT
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/loader/linux_search.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
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
    b->size = 4096;
    auto& ref = *b;
    m_files[path] = std::move(b);
    return ref;
  }
  // A file that is no ELF file (read_binary's "unknown": text, junk, empty).
  facts::BinaryInfo& junk(const std::string& path, std::uint64_t size) {
    auto& b = file(path, 0, "");
    b.format = "unknown";
    b.size = size;
    return b;
  }
  void dir(const std::string& path) { m_dirs.insert({path, true}); }
  // A FIFO, socket or device node ("fifo", "socket", "character_device"): no headers.
  void special(const std::string& path, std::string kind) { m_special[path] = std::move(kind); }
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
      st.kind = "regular";
      st.real_path = real;
      st.binary = f->second.get();
    } else if (auto k = m_special.find(real); k != m_special.end()) {
      st.exists = true;
      st.kind = k->second;
      st.real_path = real;
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
  std::map<std::string, std::string> m_special;
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

TEST(linux_search, the_first_only_search_ends_at_the_winner_and_agrees_with_the_full_one) {
  FakeFs fs;
  auto& caller = fs.file("/app/torch/lib/libtorch_cuda.so");
  caller.rpath = {"$ORIGIN/../../nvidia/cudnn/lib", "$ORIGIN"};
  fs.file("/app/nvidia/cudnn/lib/libcudnn.so.9");
  fs.file("/opt/old/libcudnn.so.9");
  fs.file("/usr/lib/libcudnn.so.9");
  const std::vector<loader::LoaderObject> chain{{"/app/torch/lib/libtorch_cuda.so", &caller}};
  const auto full = loader::resolve_linux("libcudnn.so.9", chain, config("/opt/old"), fs);
  fs.probes.clear();
  const auto first = loader::resolve_linux_first("libcudnn.so.9", chain, config("/opt/old"), fs);
  ASSERT_TRUE(full.chosen && first.chosen);
  EXPECT_EQ(first.chosen->path, full.chosen->path);
  EXPECT_EQ(first.chosen->source, full.chosen->source);
  EXPECT_EQ(full.shadowed.size(), 2U);
  EXPECT_TRUE(first.shadowed.empty());
  EXPECT_TRUE(first.steps.empty()) << "a found name comes without the account of its search";
  EXPECT_EQ(fs.probes.back(), "/app/nvidia/cudnn/lib/libcudnn.so.9") << "nothing probed after it";

  // Not found, and a fatal candidate: the same steps and the same error as the full search.
  const auto none = loader::resolve_linux("libnone.so.1", chain, config("/opt/old"), fs);
  const auto none_first =
      loader::resolve_linux_first("libnone.so.1", chain, config("/opt/old"), fs);
  EXPECT_FALSE(none_first.chosen);
  ASSERT_EQ(none_first.steps.size(), none.steps.size());
  for (std::size_t i = 0; i < none.steps.size(); ++i) {
    EXPECT_EQ(none_first.steps[i].path, none.steps[i].path);
    EXPECT_EQ(none_first.steps[i].outcome, none.steps[i].outcome);
  }
  fs.junk("/opt/old/libbad.so.1", 10);
  fs.file("/usr/lib/libbad.so.1");
  const auto bad = loader::resolve_linux_first("libbad.so.1", chain, config("/opt/old"), fs);
  EXPECT_FALSE(bad.chosen);
  EXPECT_EQ(bad.fatal_message, "/opt/old/libbad.so.1: file too short");
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

TEST(linux_search, without_a_caller_the_process_class_and_machine_decide) {
  FakeFs fs;
  fs.file("/lib32/libz.so.1", 32, "i386");
  fs.file("/arm/libz.so.1", 64, "aarch64");
  fs.file("/ok/libz.so.1");
  auto r = loader::resolve_linux("libz.so.1", {}, config("/lib32:/arm:/ok"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/ok/libz.so.1");
  EXPECT_EQ(r.steps[0].outcome, "wrong ELF class: 32-bit");
  EXPECT_EQ(r.steps[1].outcome, "wrong machine: aarch64");

  auto arm = config("/lib32:/arm:/ok");
  arm.elf_machine = "aarch64";
  r = loader::resolve_linux("libz.so.1", {}, arm, fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/arm/libz.so.1");

  auto unknown = config("/lib32:/arm:/ok");
  unknown.elf_bits = 0;
  unknown.elf_machine.clear();
  r = loader::resolve_linux("libz.so.1", {}, unknown, fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/lib32/libz.so.1") << "an unknown process class judges nothing";
}

TEST(linux_search, config_takes_the_process_class_from_the_architecture) {
  facts::Facts f;
  f.os.architecture = facts::Fact<std::string>::known("x86_64", "test");
  auto c = loader::linux_config_from(f);
  EXPECT_EQ(c.elf_bits, 64U);
  EXPECT_EQ(c.elf_machine, "x86-64");
  f.os.architecture = facts::Fact<std::string>::known("aarch64", "test");
  c = loader::linux_config_from(f);
  EXPECT_EQ(c.elf_bits, 64U);
  EXPECT_EQ(c.elf_machine, "aarch64");
  f.os.architecture = facts::Fact<std::string>::known("i686", "test");
  c = loader::linux_config_from(f);
  EXPECT_EQ(c.elf_bits, 32U);
  EXPECT_EQ(c.elf_machine, "i386");
  f.os.architecture = facts::Fact<std::string>::known("m68k", "test");
  c = loader::linux_config_from(f);
  EXPECT_EQ(c.elf_bits, 0U);
  EXPECT_EQ(c.elf_machine, "");
}

TEST(linux_search, a_file_that_is_not_elf_ends_the_search_with_an_error) {
  FakeFs fs;
  fs.junk("/a/libcudnn.so.9", 130);
  fs.junk("/a/libcudnn_ops.so.9", 0);
  fs.file("/b/libcudnn.so.9");
  fs.file("/b/libcudnn_ops.so.9");
  const auto r = loader::resolve_linux("libcudnn.so.9", {}, config("/a:/b"), fs);
  EXPECT_FALSE(r.chosen);
  EXPECT_EQ(r.fatal_error, loader::k_error_not_elf);
  EXPECT_EQ(r.fatal_message, "/a/libcudnn.so.9: invalid ELF header");
  ASSERT_EQ(r.shadowed.size(), 1U) << "the good copy is listed as never reached";
  EXPECT_EQ(r.shadowed[0].path, "/b/libcudnn.so.9");

  const auto ops = loader::resolve_linux("libcudnn_ops.so.9", {}, config("/a:/b"), fs);
  EXPECT_FALSE(ops.chosen);
  EXPECT_EQ(ops.fatal_message, "/a/libcudnn_ops.so.9: file too short");

  // A short file with the ELF magic is too short as well; after the winner a bad file is a note.
  fs.file("/c/libz.so.1").size = 40;
  fs.file("/d/libz.so.1");
  fs.junk("/e/libz.so.1", 500);
  const auto z = loader::resolve_linux("libz.so.1", {}, config("/c:/d"), fs);
  EXPECT_EQ(z.fatal_message, "/c/libz.so.1: file too short");
  const auto late = loader::resolve_linux("libz.so.1", {}, config("/d:/e"), fs);
  ASSERT_TRUE(late.chosen);
  EXPECT_EQ(late.fatal_error, 0U);
}

TEST(linux_search, ld_preload_answers_a_request_for_its_soname_first) {
  FakeFs fs;
  fs.file("/opt/preload/libcudnn.so.9").soname = "libcudnn.so.9";
  fs.file("/opt/ldlp/libcudnn.so.9").soname = "libcudnn.so.9";
  fs.file("/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4").soname = "libtcmalloc.so.4";
  auto c = config("/opt/ldlp");
  c.ld_preload = "libtcmalloc.so.4 /opt/preload/libcudnn.so.9";
  const auto r = loader::resolve_linux("libcudnn.so.9", {}, c, fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/opt/preload/libcudnn.so.9");
  EXPECT_EQ(r.chosen->via, FoundVia::ld_preload);
  EXPECT_EQ(loader::to_string(r.chosen->via), "LD_PRELOAD");
  ASSERT_EQ(r.shadowed.size(), 1U) << "the normal search still lists the shadowed copy";
  EXPECT_EQ(r.shadowed[0].path, "/opt/ldlp/libcudnn.so.9");
  EXPECT_EQ(r.shadowed[0].via, FoundVia::ld_library_path);

  // A bare preload name is searched; it answers its own name; other names search as usual.
  const auto tc = loader::resolve_linux("libtcmalloc.so.4", {}, c, fs);
  ASSERT_TRUE(tc.chosen);
  EXPECT_EQ(tc.chosen->via, FoundVia::ld_preload);
  EXPECT_EQ(tc.chosen->path, "/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4");
  fs.file("/opt/ldlp/libz.so.1");
  const auto z = loader::resolve_linux("libz.so.1", {}, c, fs);
  ASSERT_TRUE(z.chosen);
  EXPECT_EQ(z.chosen->via, FoundVia::ld_library_path);

  // A preload that cannot load (wrong class) is ignored, as ld.so does.
  fs.file("/opt/pre32/libcudnn.so.9", 32, "i386").soname = "libcudnn.so.9";
  c.ld_preload = "/opt/pre32/libcudnn.so.9";
  const auto r32 = loader::resolve_linux("libcudnn.so.9", {}, c, fs);
  ASSERT_TRUE(r32.chosen);
  EXPECT_EQ(r32.chosen->path, "/opt/ldlp/libcudnn.so.9");
}

TEST(linux_search, search_lists_split_like_glibc) {
  EXPECT_EQ(loader::split_library_path("/a;/b:/c"),
            (std::vector<std::string_view>{"/a", "/b", "/c"}));
  EXPECT_EQ(loader::split_library_path("/a;;/b"), (std::vector<std::string_view>{"/a", "", "/b"}));
  EXPECT_EQ(loader::split_preload_list(" /a.so:/b.so  c.so "),
            (std::vector<std::string_view>{"/a.so", "/b.so", "c.so"}));
  FakeFs fs;
  fs.file("/b/libz.so.1");
  const auto r = loader::resolve_linux("libz.so.1", {}, config("/a;/b"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/b/libz.so.1");
  EXPECT_EQ(r.chosen->via, FoundVia::ld_library_path);
}

// analysis.cpp: a framework loaded into a venv's python takes the interpreter's RPATH with the
// $ORIGIN of its real file, not of the venv's link (which still names it in the source).
TEST(linux_search, the_executables_origin_is_its_real_directory) {
  FakeFs fs;
  auto& python = fs.file("/opt/py/bin/python3.11");
  python.rpath = {"$ORIGIN/../lib"};
  fs.link("/venv/bin/python3", "/opt/py/bin/python3.11");
  const std::string torch = "/venv/lib/python3.11/site-packages/torch";
  fs.file(torch + "/lib/libtorch_cuda.so").needed = {"libcudnn.so.9"};
  fs.file("/opt/py/lib/libcudnn.so.9");
  fs.file("/venv/lib/libcudnn.so.9");
  facts::Facts f;
  f.linker.default_dirs = {"/lib", "/usr/lib"};
  facts::PythonEnv env;
  env.prefix = "/venv";
  env.site_packages = facts::Fact<std::string>::known("/venv/lib/python3.11/site-packages", "test");
  facts::Framework fw;
  fw.name = "torch";
  fw.location = torch;
  fw.cuda_build = facts::Fact<bool>::known(true, "test");
  env.frameworks.push_back(fw);
  f.python_envs.push_back(env);
  const auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb);
  const auto contexts = loader::analyse_linux(f, *kb, fs);
  const loader::Resolution* cudnn = nullptr;
  for (const auto& ctx : contexts) {
    for (const auto& step : ctx.steps) {
      if (ctx.id == "torch:/venv" && step.resolution.name == "libcudnn.so.9") {
        cudnn = &step.resolution;
      }
    }
  }
  ASSERT_NE(cudnn, nullptr);
  ASSERT_TRUE(cudnn->chosen);
  EXPECT_EQ(cudnn->chosen->path, "/opt/py/lib/libcudnn.so.9");
  EXPECT_EQ(cudnn->chosen->source, "RPATH of /venv/bin/python3");
}

TEST(linux_search, tokens_expand_and_unknown_tokens_stay_literal) {
  const auto c = config();
  EXPECT_EQ(loader::expand_tokens("$ORIGIN/../lib", "/opt/x/bin/prog", c), "/opt/x/bin/../lib");
  EXPECT_EQ(loader::expand_tokens("${ORIGIN}/sub", "/opt/x/libA.so", c), "/opt/x/sub");
  EXPECT_EQ(loader::expand_tokens("${ORIGIN}x", "/opt/x/libA.so", c), "/opt/xx");
  EXPECT_EQ(loader::expand_tokens("/usr/$LIB/cuda", "/x", c), "/usr/lib/x86_64-linux-gnu/cuda");
  EXPECT_EQ(loader::expand_tokens("/p/$PLATFORM", "/x", c), "/p/x86_64");
  // glibc's _dl_dst_substitute copies a '$' that starts no token (is_dst) as it is.
  EXPECT_EQ(loader::expand_tokens("/p/$HOME", "/x", c), "/p/$HOME");
  EXPECT_EQ(loader::expand_tokens("$ORIGIN/../$FOO", "/opt/app/lib/libapp.so", c),
            "/opt/app/lib/../$FOO");
  EXPECT_EQ(loader::expand_tokens("$ORIGINx/lib", "/opt/app/libapp.so", c), "$ORIGINx/lib");
  EXPECT_EQ(loader::expand_tokens("/p/$LIBX/$LIB_2", "/x", c), "/p/$LIBX/$LIB_2");
  EXPECT_EQ(loader::expand_tokens("/p/${ORIGIN", "/x", c), "/p/${ORIGIN");
  EXPECT_EQ(loader::expand_tokens("/p/$", "/x", c), "/p/$");
  // A known token without a value drops the entry.
  EXPECT_FALSE(loader::expand_tokens("$ORIGIN/lib", "", c));
}

TEST(linux_search, an_unknown_token_entry_is_searched_literally) {
  FakeFs fs;
  auto& caller = fs.file("/opt/app/lib/libapp.so");
  caller.runpath = {"$ORIGIN/../$FOO"};
  fs.file("/opt/app/$FOO/libcudnn.so.9");
  const auto r =
      loader::resolve_linux("libcudnn.so.9", {{"/opt/app/lib/libapp.so", &caller}}, config(), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/opt/app/$FOO/libcudnn.so.9");
  EXPECT_EQ(r.chosen->via, FoundVia::runpath);
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

TEST(linux_search, nodeflib_drops_cache_entries_below_a_default_dir_and_takes_no_other) {
  FakeFs fs;
  auto& caller = fs.file("/app/libx.so");
  caller.nodeflib = true;
  fs.file("/usr/lib/cudnn9/libcudnn_adv.so.9");
  fs.file("/opt/cudnn/libcudnn_adv.so.9");
  fs.file("/opt/cudnn/libcudnn_graph.so.9");
  fs.file("/usr/library/libcudnn_graph.so.9");
  auto c = config();
  c.cache = std::vector<facts::LdCacheEntry>{
      {"libcudnn_adv.so.9", "/usr/lib/cudnn9/libcudnn_adv.so.9", "x86-64"},
      {"libcudnn_adv.so.9", "/opt/cudnn/libcudnn_adv.so.9", "x86-64"},
      {"libcudnn_graph.so.9", "/usr/library/libcudnn_graph.so.9", "x86-64"}};
  const auto adv = loader::resolve_linux("libcudnn_adv.so.9", {{"/app/libx.so", &caller}}, c, fs);
  EXPECT_FALSE(adv.chosen) << "a prefix match on /usr/lib/ drops the entry, and ld.so takes "
                              "one cache entry only";
  bool noted = false;
  for (const auto& s : adv.steps) {
    EXPECT_NE(s.path, "/opt/cudnn/libcudnn_adv.so.9");
    noted = noted
            || (s.path == "/usr/lib/cudnn9/libcudnn_adv.so.9"
                && s.outcome.find("DF_1_NODEFLIB") != std::string::npos);
  }
  EXPECT_TRUE(noted);
  // The prefix is a whole directory: /usr/library is not below /usr/lib.
  const auto graph =
      loader::resolve_linux("libcudnn_graph.so.9", {{"/app/libx.so", &caller}}, c, fs);
  ASSERT_TRUE(graph.chosen);
  EXPECT_EQ(graph.chosen->path, "/usr/library/libcudnn_graph.so.9");
  EXPECT_EQ(graph.chosen->via, FoundVia::ld_so_cache);
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

// LD_LIBRARY_PATH= is no list (glibc's _dl_init_paths skips an empty value), while
// LD_LIBRARY_PATH=: is one of two empty entries, each the current directory.
TEST(linux_search, an_empty_ld_library_path_is_not_set) {
  FakeFs fs;
  facts::Facts f;
  f.environment["LD_LIBRARY_PATH"] = "";
  const auto empty = loader::resolve_linux("libx.so", {}, loader::linux_config_from(f), fs);
  ASSERT_FALSE(empty.steps.empty());
  EXPECT_EQ(empty.steps.front().via, FoundVia::ld_library_path);
  EXPECT_EQ(empty.steps.front().outcome, "not set");
  f.environment["LD_LIBRARY_PATH"] = ":";
  const auto colon = loader::resolve_linux("libx.so", {}, loader::linux_config_from(f), fs);
  ASSERT_FALSE(colon.steps.empty());
  EXPECT_NE(colon.steps.front().outcome.find("current directory"), std::string::npos)
      << colon.steps.front().outcome;
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

// The outcome of the search step at `path`.
std::string outcome_at(const loader::Resolution& r, const std::string& path) {
  for (const loader::SearchStep& step : r.steps) {
    if (step.path == path) {
      return step.outcome;
    }
  }
  return "(not considered)";
}

TEST(linux_search, fifo_hangs_the_load_and_is_never_found) {
  FakeFs fs;
  fs.special("/opt/a/libx.so", "fifo");
  fs.file("/opt/b/libx.so");
  const auto r = loader::resolve_linux("libx.so", {}, config("/opt/a:/opt/b"), fs);
  EXPECT_FALSE(r.chosen);
  EXPECT_EQ(r.fatal_error, loader::k_error_blocks);
  EXPECT_NE(r.fatal_message.find("/opt/a/libx.so: a FIFO, not a library"), std::string::npos);
  ASSERT_EQ(r.shadowed.size(), 1U); // the good copy is named, as one the load never reaches
  EXPECT_EQ(r.shadowed[0].path, "/opt/b/libx.so");
}

TEST(linux_search, socket_ends_its_list_and_the_next_source_is_searched) {
  FakeFs fs;
  fs.special("/opt/a/libx.so", "socket");
  fs.file("/opt/b/libx.so");
  fs.file("/usr/lib/libx.so");
  const auto r = loader::resolve_linux("libx.so", {}, config("/opt/a:/opt/b"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/usr/lib/libx.so");
  EXPECT_EQ(r.fatal_error, 0U);
  EXPECT_NE(outcome_at(r, "/opt/a/libx.so").find("a socket, not a library"), std::string::npos);
  EXPECT_NE(outcome_at(r, "/opt/b/libx.so").find("not tried"), std::string::npos);
}

TEST(linux_search, device_node_fails_the_load) {
  FakeFs fs;
  fs.special("/usr/lib/libx.so", "character_device");
  const auto r = loader::resolve_linux("libx.so", {}, config(), fs);
  EXPECT_FALSE(r.chosen);
  EXPECT_EQ(r.fatal_error, loader::k_error_not_elf);
  EXPECT_NE(r.fatal_message.find("a character device, not a library"), std::string::npos);
}

TEST(linux_search, unreadable_copy_is_skipped_like_eacces) {
  FakeFs fs;
  auto& locked = fs.file("/opt/a/libx.so");
  locked.read_error = "permission_denied";
  locked.read_error_message = "/opt/a/libx.so: Permission denied";
  fs.file("/opt/b/libx.so");
  const auto r = loader::resolve_linux("libx.so", {}, config("/opt/a:/opt/b"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "/opt/b/libx.so");
  EXPECT_EQ(outcome_at(r, "/opt/a/libx.so"), "cannot be read: /opt/a/libx.so: Permission denied");
}

TEST(linux_search, resource_error_is_undetermined_not_absent) {
  FakeFs fs;
  auto& big = fs.file("/opt/a/libcublasLt.so.13");
  big.format = "unknown";
  big.read_error = "resource";
  big.read_error_message = "/opt/a/libcublasLt.so.13: Cannot allocate memory";
  fs.file("/usr/lib/libcublasLt.so.13");
  const auto r = loader::resolve_linux("libcublasLt.so.13", {}, config("/opt/a"), fs);
  EXPECT_FALSE(r.chosen) << "a later copy was chosen although the first could not be examined";
  EXPECT_EQ(r.fatal_error, 0U);
  EXPECT_TRUE(r.unknown);
  EXPECT_EQ(r.undetermined, "/opt/a/libcublasLt.so.13: Cannot allocate memory");
  EXPECT_NE(outcome_at(r, "/usr/lib/libcublasLt.so.13").find("could not be examined"),
            std::string::npos);
}

bool same_steps(const loader::Resolution& a, const loader::Resolution& b) {
  if (a.steps.size() != b.steps.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    const auto& x = a.steps[i];
    const auto& y = b.steps[i];
    if (x.via != y.via || x.source != y.source || x.path != y.path || x.outcome != y.outcome
        || x.found != y.found || x.count != y.count || x.last_path != y.last_path) {
      return false;
    }
  }
  return true;
}

// Twenty folders on LD_LIBRARY_PATH without the library, then one with it: the absent ones are one
// folded step, and a second caller of the same name takes the LD_LIBRARY_PATH part from the memo
// without probing those folders again, with the same answer and steps.
TEST(linux_search, ld_library_path_part_is_folded_and_shared_between_callers) {
  FakeFs fs;
  std::string list;
  for (int i = 0; i < 20; ++i) {
    list += fmt::format("/opt/c{}:", i);
  }
  list += "/opt/good";
  fs.file("/opt/good/libcudnn_ops.so.9");
  auto& a = fs.file("/opt/c0/libcudnn.so.9");
  auto& b = fs.file("/opt/c1/libcudnn.so.9");
  loader::LinuxLoaderConfig c = config(list);
  c.memo = loader::make_search_memo();
  const auto first = loader::resolve_linux("libcudnn_ops.so.9", {{a.path, &a}}, c, fs);
  ASSERT_TRUE(first.chosen);
  EXPECT_EQ(first.chosen->path, "/opt/good/libcudnn_ops.so.9");
  const auto run = std::find_if(
      first.steps.begin(), first.steps.end(), [](const auto& s) { return s.count > 1; });
  ASSERT_NE(run, first.steps.end());
  EXPECT_EQ(run->count, 20U);
  EXPECT_EQ(run->path, "/opt/c0/libcudnn_ops.so.9");
  EXPECT_EQ(run->last_path, "/opt/c19/libcudnn_ops.so.9");
  EXPECT_EQ(run->outcome, "absent");

  fs.probes.clear();
  const auto second = loader::resolve_linux("libcudnn_ops.so.9", {{b.path, &b}}, c, fs);
  EXPECT_EQ(std::count(fs.probes.begin(), fs.probes.end(), "/opt/c5/libcudnn_ops.so.9"), 0);
  ASSERT_TRUE(second.chosen);
  EXPECT_EQ(second.chosen->path, first.chosen->path);
  EXPECT_TRUE(same_steps(first, second));
  // Without the memo the search gives the same steps.
  const auto plain = loader::resolve_linux("libcudnn_ops.so.9", {{b.path, &b}}, config(list), fs);
  EXPECT_TRUE(same_steps(first, plain));
}

// Two callers whose RPATHs name the same folders, which lack the name: the second caller's search
// (quiet, ended at the winner) asks none of them again, and finds what it finds without the memo.
// A folder the snapshot never recorded is not taken as lacking the name.
TEST(linux_search, a_quiet_search_skips_a_name_the_memo_found_absent_in_a_folder) {
  FakeFs fs;
  auto& a = fs.file("/app/a/liba.so");
  a.rpath = {"/opt/x", "/opt/y", "/opt/good"};
  auto& b = fs.file("/app/b/libb.so");
  b.rpath = {"/opt/y", "/opt/x", "/opt/good"};
  fs.file("/opt/good/libdep.so.1");
  loader::LinuxLoaderConfig c = config();
  c.memo = loader::make_search_memo();
  const auto first = loader::resolve_linux_first("libdep.so.1", {{a.path, &a}}, c, fs);
  ASSERT_TRUE(first.chosen);
  EXPECT_EQ(first.chosen->path, "/opt/good/libdep.so.1");
  fs.probes.clear();
  const auto second = loader::resolve_linux_first("libdep.so.1", {{b.path, &b}}, c, fs);
  EXPECT_EQ(std::count(fs.probes.begin(), fs.probes.end(), "/opt/x/libdep.so.1"), 0);
  EXPECT_EQ(std::count(fs.probes.begin(), fs.probes.end(), "/opt/y/libdep.so.1"), 0);
  const auto plain = loader::resolve_linux_first("libdep.so.1", {{b.path, &b}}, config(), fs);
  ASSERT_TRUE(second.chosen && plain.chosen);
  EXPECT_EQ(second.chosen->path, plain.chosen->path);
  EXPECT_EQ(second.chosen->source, "RPATH of /app/b/libb.so");

  // Not found: the account of the second search lists every folder, as without the memo.
  const auto none = loader::resolve_linux_first("libnone.so.1", {{a.path, &a}}, c, fs);
  const auto none_again = loader::resolve_linux_first("libnone.so.1", {{b.path, &b}}, c, fs);
  const auto none_plain = loader::resolve_linux_first("libnone.so.1", {{b.path, &b}}, config(), fs);
  EXPECT_FALSE(none.chosen || none_again.chosen);
  EXPECT_TRUE(same_steps(none_again, none_plain));

  // A probe that cannot say (a snapshot without the path) leaves the name unremembered.
  class Unrecorded final : public loader::FileProbe {
  public:
    loader::PathState probe(const std::string& path) override {
      ++asked[path];
      loader::PathState st;
      st.known = false;
      return st;
    }
    std::map<std::string, int> asked;
  } unrecorded;
  loader::LinuxLoaderConfig u = config();
  u.memo = loader::make_search_memo();
  const auto r1 = loader::resolve_linux_first("libdep.so.1", {{a.path, &a}}, u, unrecorded);
  const auto r2 = loader::resolve_linux_first("libdep.so.1", {{b.path, &b}}, u, unrecorded);
  EXPECT_TRUE(r1.unknown && r2.unknown);
  // Each search asks twice (quietly, then again for its account, having chosen nothing).
  EXPECT_EQ(unrecorded.asked["/opt/x/libdep.so.1"], 4);
}

} // namespace
} // namespace doctor
