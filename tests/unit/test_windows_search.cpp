// SPDX-License-Identifier: MIT
#include <doctor/loader/windows_search.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

namespace doctor {
namespace {

using loader::FoundVia;

// An in-memory Windows file system: DLLs with PE headers and directories, keyed by the
// case-folded, backslashed form the model asks with.
class FakeWinFs final : public loader::FileProbe {
public:
  facts::BinaryInfo& dll(const std::string& path, unsigned bits = 64) {
    auto b = std::make_unique<facts::BinaryInfo>();
    b->path = path;
    b->format = "pe";
    b->bits = bits;
    b->machine = bits == 64 ? "x64" : "x86";
    auto& ref = *b;
    m_files[loader::windows_path_key(path)] = {path, std::move(b)};
    return ref;
  }
  void dir(const std::string& path) { m_dirs.insert(loader::windows_path_key(path)); }

  loader::PathState probe(const std::string& key) override {
    probes.push_back(key);
    EXPECT_EQ(key, loader::windows_path_key(key)) << "the probe is asked with normalised keys";
    loader::PathState st;
    if (auto f = m_files.find(key); f != m_files.end()) {
      st.exists = true;
      st.real_path = f->second.first;
      st.binary = f->second.second.get();
    } else if (m_dirs.count(key) != 0) {
      st.exists = true;
      st.is_dir = true;
      st.real_path = key;
    }
    return st;
  }

  bool probed(const std::string& path) const {
    const std::string key = loader::windows_path_key(path);
    for (const std::string& p : probes) {
      if (p == key) {
        return true;
      }
    }
    return false;
  }

  std::vector<std::string> probes;

private:
  std::map<std::string, std::pair<std::string, std::unique_ptr<facts::BinaryInfo>>> m_files;
  std::set<std::string> m_dirs;
};

loader::WindowsLoaderConfig config(std::string path = {}) {
  loader::WindowsLoaderConfig c;
  c.windows_dir = "C:\\Windows";
  c.application_dir = "C:\\Python310";
  c.current_dir = "C:\\Users\\me\\proj";
  c.path = std::move(path);
  c.known_dlls = {"kernel32.dll", "ole32.dll"};
  return c;
}

// The files the search probed and found absent, in order.
std::vector<std::string> absent_paths(const loader::Resolution& r) {
  std::vector<std::string> out;
  for (const auto& s : r.steps) {
    if (s.outcome == "absent") {
      out.push_back(s.path);
    }
  }
  return out;
}

TEST(windows_search, paths_normalise_and_compare_without_case) {
  EXPECT_EQ(loader::normalize_windows_path("c:/Tools//cuda/./bin/"), "c:\\Tools\\cuda\\bin");
  EXPECT_EQ(loader::normalize_windows_path("C:\\a\\b\\..\\c.dll"), "C:\\a\\c.dll");
  EXPECT_EQ(loader::normalize_windows_path("\\\\srv\\share\\x"), "\\\\srv\\share\\x");
  EXPECT_EQ(loader::windows_path_key("C:\\Windows\\System32\\NVCUDA.dll"),
            "c:\\windows\\system32\\nvcuda.dll");
  EXPECT_EQ(loader::windows_parent("C:\\a\\b.dll"), "C:\\a");
  EXPECT_EQ(loader::windows_parent("C:\\b.dll"), "C:\\");
  EXPECT_EQ(loader::windows_file_name("C:\\a\\B.dll"), "B.dll");
  EXPECT_TRUE(loader::is_absolute_windows_path("d:/x"));
  EXPECT_FALSE(loader::is_absolute_windows_path("x\\y"));
  EXPECT_EQ(loader::with_default_extension("nvcuda"), "nvcuda.dll");
  EXPECT_EQ(loader::with_default_extension("mod."), "mod");
  EXPECT_EQ(loader::with_default_extension("x.pyd"), "x.pyd");
  EXPECT_EQ(loader::split_windows_path_list("C:\\a;;\"C:\\Program Files\\b\"; "),
            (std::vector<std::string>{"C:\\a", "C:\\Program Files\\b"}));

  FakeWinFs fs;
  fs.dll("C:\\Tools\\CUDA\\bin\\CUDNN64_8.DLL");
  const auto r = loader::resolve_windows("cudnn64_8.dll", {}, config("c:\\tools\\cuda\\BIN"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->via, FoundVia::path);
  EXPECT_EQ(r.chosen->real_path, "C:\\Tools\\CUDA\\bin\\CUDNN64_8.DLL");
}

// Rule 1: a module of the same name already loaded is used, wherever it came from.
TEST(windows_search, an_already_loaded_module_is_used_without_searching) {
  FakeWinFs fs;
  fs.dll("C:\\venv\\Lib\\site-packages\\torch\\lib\\zlibwapi.dll");
  fs.dll("C:\\Python310\\zlibwapi.dll");
  loader::WindowsLoadRequest req;
  req.loaded = {{"ZLIBWAPI.DLL", "C:\\venv\\Lib\\site-packages\\torch\\lib\\zlibwapi.dll"}};
  const auto r = loader::resolve_windows("zlibwapi.dll", req, config(), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->via, FoundVia::loaded_module);
  EXPECT_EQ(r.chosen->path, "C:\\venv\\Lib\\site-packages\\torch\\lib\\zlibwapi.dll");
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_FALSE(fs.probed("C:\\Python310\\zlibwapi.dll")) << "no search once loaded";
  EXPECT_EQ(loader::to_string(r.chosen->via), "already loaded");
}

// Rule 2: a KnownDLL is always the System32 copy, even with one in the application directory.
TEST(windows_search, known_dlls_are_always_taken_from_system32) {
  FakeWinFs fs;
  fs.dll("C:\\Python310\\kernel32.dll");
  fs.dll("C:\\Windows\\System32\\kernel32.dll");
  const auto r = loader::resolve_windows("KERNEL32.dll", {}, config(), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->via, FoundVia::known_dlls);
  EXPECT_EQ(r.chosen->path, "C:\\Windows\\System32\\KERNEL32.dll");
  EXPECT_FALSE(fs.probed("C:\\Python310\\kernel32.dll"));
}

// Rule 3: the standard order with SafeDllSearchMode on; off, the current directory moves up.
TEST(windows_search, standard_order_is_app_system32_system_windows_cwd_path) {
  FakeWinFs fs;
  fs.dll("D:\\cuda\\bin\\cudart64_110.dll");
  fs.dll("E:\\old\\cudart64_110.dll");
  const auto r =
      loader::resolve_windows("cudart64_110.dll", {}, config("D:\\cuda\\bin;E:\\old"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "D:\\cuda\\bin\\cudart64_110.dll");
  EXPECT_EQ(r.chosen->via, FoundVia::path);
  ASSERT_EQ(r.shadowed.size(), 1U);
  EXPECT_EQ(r.shadowed[0].path, "E:\\old\\cudart64_110.dll");
  EXPECT_EQ(absent_paths(r),
            (std::vector<std::string>{"C:\\Python310\\cudart64_110.dll",
                                      "C:\\Windows\\System32\\cudart64_110.dll",
                                      "C:\\Windows\\System\\cudart64_110.dll",
                                      "C:\\Windows\\cudart64_110.dll",
                                      "C:\\Users\\me\\proj\\cudart64_110.dll"}));

  auto unsafe = config("D:\\cuda\\bin");
  unsafe.safe_dll_search_mode = false;
  const auto u = loader::resolve_windows("cudart64_110.dll", {}, unsafe, fs);
  const auto absent = absent_paths(u);
  ASSERT_GE(absent.size(), 2U);
  EXPECT_EQ(absent[1], "C:\\Users\\me\\proj\\cudart64_110.dll");
}

// Rule 4: LOAD_WITH_ALTERED_SEARCH_PATH with a full path starts the dependencies' search in the
// loaded DLL's directory instead of the application's; with a bare name it changes nothing.
TEST(windows_search, altered_search_path_replaces_the_application_directory) {
  FakeWinFs fs;
  fs.dll("C:\\ort\\capi\\cudnn64_9.dll");
  fs.dll("C:\\Python310\\cudnn64_9.dll");
  loader::WindowsLoadRequest req;
  req.flags = loader::k_load_with_altered_search_path;
  req.load_dir = "C:\\ort\\capi";
  const auto r = loader::resolve_windows("cudnn64_9.dll", req, config(), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->via, FoundVia::dll_load_dir);
  EXPECT_EQ(r.chosen->path, "C:\\ort\\capi\\cudnn64_9.dll");
  EXPECT_FALSE(fs.probed("C:\\Python310\\cudnn64_9.dll")) << "the app dir is replaced";

  req.load_dir.clear();
  const auto bare = loader::resolve_windows("cudnn64_9.dll", req, config(), fs);
  ASSERT_TRUE(bare.chosen);
  EXPECT_EQ(bare.chosen->via, FoundVia::app_dir);
}

// Rule 5: LOAD_LIBRARY_SEARCH_* order is DLL load dir, app dir, user dirs, System32; PATH and the
// current directory are not searched, and a copy there is pointed out.
TEST(windows_search, search_flags_use_their_own_order_and_never_path) {
  FakeWinFs fs;
  fs.dll("C:\\nv\\cudnn\\bin\\cudnn_ops64_9.dll");
  fs.dll("C:\\tools\\bin\\cudnn_ops64_9.dll");
  auto c = config("C:\\tools\\bin");
  c.user_dirs = {"C:\\nv\\cudnn\\bin"};
  loader::WindowsLoadRequest req;
  req.flags =
      loader::k_load_library_search_dll_load_dir | loader::k_load_library_search_default_dirs;
  req.load_dir = "C:\\ext";
  const auto r = loader::resolve_windows("cudnn_ops64_9.dll", req, c, fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->via, FoundVia::user_dirs);
  EXPECT_EQ(loader::to_string(r.chosen->via), "add_dll_directory");
  EXPECT_TRUE(r.shadowed.empty()) << "the PATH copy is not a candidate";
  EXPECT_EQ(absent_paths(r),
            (std::vector<std::string>{"C:\\ext\\cudnn_ops64_9.dll",
                                      "C:\\Python310\\cudnn_ops64_9.dll",
                                      "C:\\Windows\\System32\\cudnn_ops64_9.dll"}));
  bool path_noted = false;
  for (const auto& s : r.steps) {
    if (s.path == "C:\\tools\\bin\\cudnn_ops64_9.dll") {
      path_noted = s.outcome.find("the file is here, but not searched") == 0 && !s.found;
    }
  }
  EXPECT_TRUE(path_noted);

  // Only SYSTEM32: nothing else.
  req.flags = loader::k_load_library_search_system32;
  const auto s32 = loader::resolve_windows("cudnn_ops64_9.dll", req, c, fs);
  EXPECT_FALSE(s32.chosen);
  EXPECT_EQ(absent_paths(s32),
            (std::vector<std::string>{"C:\\Windows\\System32\\cudnn_ops64_9.dll"}));
}

TEST(windows_search, the_order_among_user_directories_is_unspecified_and_said_so) {
  FakeWinFs fs;
  fs.dll("C:\\a\\zlibwapi.dll");
  fs.dll("C:\\b\\zlibwapi.dll");
  auto c = config();
  c.user_dirs = {"C:\\a", "C:\\b"};
  loader::WindowsLoadRequest req;
  req.flags = loader::k_load_library_search_user_dirs;
  const auto r = loader::resolve_windows("zlibwapi.dll", req, c, fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "C:\\a\\zlibwapi.dll");
  ASSERT_EQ(r.shadowed.size(), 1U);
  bool said = false;
  for (const auto& s : r.steps) {
    said = said || (s.found && s.outcome.find("does not specify the order") != std::string::npos);
  }
  EXPECT_TRUE(said);
  EXPECT_NE(r.steps.front().source.find("unspecified"), std::string::npos);
}

// SetDefaultDllDirectories makes the LOAD_LIBRARY_SEARCH order the process default for plain
// LoadLibrary calls; SetDllDirectory puts its directory second and drops the current directory.
TEST(windows_search, process_defaults_change_plain_loadlibrary) {
  FakeWinFs fs;
  fs.dll("C:\\tools\\bin\\nvrtc64_112_0.dll");
  auto c = config("C:\\tools\\bin");
  c.default_dll_directories = loader::k_load_library_search_default_dirs;
  EXPECT_FALSE(loader::resolve_windows("nvrtc64_112_0.dll", {}, c, fs).chosen);

  auto d = config("C:\\tools\\bin");
  d.dll_directory = "C:\\extra";
  const auto r = loader::resolve_windows("nvrtc64_112_0.dll", {}, d, fs);
  ASSERT_TRUE(r.chosen);
  const auto absent = absent_paths(r);
  ASSERT_GE(absent.size(), 2U);
  EXPECT_EQ(absent[1], "C:\\extra\\nvrtc64_112_0.dll");
  for (const std::string& p : absent) {
    EXPECT_NE(p, "C:\\Users\\me\\proj\\nvrtc64_112_0.dll") << "SetDllDirectory drops the cwd";
  }
}

// Rule 6: an import-table dependency is resolved in its parent's load mode (here Python's 0x1100
// with the parent's directory), while a LoadLibrary(name) made later by that DLL uses the process
// default: the standard order, with PATH and without the add_dll_directory directories.
TEST(windows_search, imports_follow_the_parent_flags_but_run_time_loads_the_process_default) {
  FakeWinFs fs;
  fs.dll("C:\\sp\\torch\\lib\\cublas64_11.dll");
  fs.dll("C:\\cuda\\bin\\cublas64_11.dll");
  auto c = config("C:\\cuda\\bin");
  c.user_dirs = {"C:\\sp\\torch\\lib"};
  loader::WindowsLoadRequest import_req;
  import_req.flags =
      loader::k_load_library_search_dll_load_dir | loader::k_load_library_search_default_dirs;
  import_req.load_dir = "C:\\sp\\torch\\lib";
  const auto imp = loader::resolve_windows("cublas64_11.dll", import_req, c, fs);
  ASSERT_TRUE(imp.chosen);
  EXPECT_EQ(imp.chosen->via, FoundVia::dll_load_dir);

  loader::WindowsLoadRequest runtime;
  runtime.requested_by = "C:\\sp\\torch\\lib\\cudnn_ops_infer64_8.dll";
  const auto rt = loader::resolve_windows("cublas64_11.dll", runtime, c, fs);
  ASSERT_TRUE(rt.chosen);
  EXPECT_EQ(rt.chosen->via, FoundVia::path);
  EXPECT_EQ(rt.chosen->path, "C:\\cuda\\bin\\cublas64_11.dll");
  for (const auto& s : rt.steps) {
    EXPECT_NE(s.via, FoundVia::user_dirs) << "the standard order has no add_dll_directory dirs";
    EXPECT_NE(s.path, "C:\\sp\\torch\\lib\\cublas64_11.dll");
  }
}

// Rule 7: the first file of the name is used even when it cannot load: a 32-bit DLL fails with
// 193 and Windows does not go on to the 64-bit copy later on PATH.
TEST(windows_search, a_32_bit_dll_found_first_is_fatal_193) {
  FakeWinFs fs;
  fs.dll("C:\\old32\\zlibwapi.dll", 32);
  fs.dll("C:\\good\\zlibwapi.dll", 64);
  const auto r = loader::resolve_windows("zlibwapi.dll", {}, config("C:\\old32;C:\\good"), fs);
  ASSERT_TRUE(r.chosen);
  EXPECT_EQ(r.chosen->path, "C:\\old32\\zlibwapi.dll");
  EXPECT_EQ(r.fatal_error, loader::k_error_bad_exe_format);
  ASSERT_EQ(r.shadowed.size(), 1U);
  EXPECT_EQ(r.shadowed[0].path, "C:\\good\\zlibwapi.dll");
  bool explained = false;
  for (const auto& s : r.steps) {
    explained = explained
                || (s.path == "C:\\old32\\zlibwapi.dll" && !s.found
                    && s.outcome.find("32-bit DLL in a 64-bit process") != std::string::npos
                    && s.outcome.find("193") != std::string::npos);
  }
  EXPECT_TRUE(explained);

  fs.dll("C:\\first\\zlibwapi.dll").format = "unknown";
  const auto junk = loader::resolve_windows("zlibwapi.dll", {}, config("C:\\first"), fs);
  EXPECT_EQ(junk.fatal_error, loader::k_error_bad_exe_format);
}

// Rule 8: CPython 3.8+ loads .pyd files with DEFAULT_DIRS | DLL_LOAD_DIR and ctypes with
// DEFAULT_DIRS (plus DLL_LOAD_DIR for a path): PATH is not searched for either.
TEST(windows_search, python_38_extension_and_ctypes_loads_do_not_search_path) {
  const auto pyd = loader::python_extension_request("C:\\sp\\torch\\_C.cp310-win_amd64.pyd", 10);
  EXPECT_EQ(pyd.flags, 0x1100U);
  EXPECT_EQ(pyd.load_dir, "C:\\sp\\torch");
  EXPECT_EQ(loader::python_extension_request("C:\\x\\m.pyd", 7).flags,
            loader::k_load_with_altered_search_path);

  const auto bare = loader::ctypes_load("nvcuda.dll", std::nullopt, 10, "C:\\work");
  EXPECT_EQ(bare.request.flags, loader::k_load_library_search_default_dirs);
  EXPECT_TRUE(bare.request.load_dir.empty());
  const auto rel = loader::ctypes_load("libs\\x.dll", std::nullopt, 10, "C:\\work");
  EXPECT_EQ(rel.name, "C:\\work\\libs\\x.dll");
  EXPECT_EQ(rel.request.flags, 0x1100U);
  EXPECT_EQ(rel.request.load_dir, "C:\\work\\libs");
  EXPECT_EQ(loader::ctypes_load("x.dll", 0U, 10, "").request.flags, 0U);

  FakeWinFs fs;
  fs.dll("C:\\tools\\cuda\\bin\\cudart64_110.dll");
  const auto r =
      loader::resolve_windows("cudart64_110.dll", bare.request, config("C:\\tools\\cuda\\bin"), fs);
  EXPECT_FALSE(r.chosen);
}

// Rule 9: the driver's nvcuda.dll and nvml.dll are found in System32 in both modes.
TEST(windows_search, the_driver_dlls_come_from_system32) {
  FakeWinFs fs;
  fs.dll("C:\\Windows\\System32\\nvcuda.dll");
  fs.dll("C:\\Windows\\System32\\nvml.dll");
  for (const std::uint32_t flags : {0U, loader::k_load_library_search_default_dirs}) {
    loader::WindowsLoadRequest req;
    req.flags = flags;
    for (const char* name : {"nvcuda.dll", "nvml.dll"}) {
      const auto r = loader::resolve_windows(name, req, config(), fs);
      ASSERT_TRUE(r.chosen) << name << " " << flags;
      EXPECT_EQ(r.chosen->via, FoundVia::system32);
      EXPECT_EQ(loader::to_string(r.chosen->via), "System32");
    }
  }
}

TEST(windows_search, a_full_path_is_the_only_place_looked_at) {
  FakeWinFs fs;
  fs.dll("C:\\Python310\\cudnn64_8.dll");
  const auto r = loader::resolve_windows("D:/cudnn/bin/cudnn64_8.dll", {}, config(), fs);
  EXPECT_FALSE(r.chosen);
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_EQ(r.steps[0].path, "D:\\cudnn\\bin\\cudnn64_8.dll");
  EXPECT_EQ(r.steps[0].via, FoundVia::direct);
}

TEST(windows_search, unknown_current_directory_is_skipped_not_guessed) {
  FakeWinFs fs;
  auto c = config("relative\\bin");
  c.current_dir.clear();
  const auto r = loader::resolve_windows("cudnn64_8.dll", {}, c, fs);
  EXPECT_FALSE(r.chosen);
  EXPECT_FALSE(r.unknown);
  int skipped = 0;
  for (const auto& s : r.steps) {
    skipped += s.outcome.rfind("not judged", 0) == 0 || s.outcome.rfind("skipped", 0) == 0;
  }
  EXPECT_EQ(skipped, 2);
}

} // namespace
} // namespace doctor
