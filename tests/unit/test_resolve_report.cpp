// SPDX-License-Identifier: MIT
// The output of `resolve`, from resolutions built in memory: text, JSON and the --tree text.
#include <doctor/report/resolve_report.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace doctor {
namespace {

using loader::Candidate;
using loader::FoundVia;
using loader::LoadStep;
using loader::Resolution;
using loader::SearchStep;

facts::BinaryInfo elf64(std::string soname) {
  facts::BinaryInfo b;
  b.format = "elf";
  b.bits = 64;
  b.machine = "x86-64";
  b.soname = std::move(soname);
  return b;
}

// libcudnn.so.9 from ld.so.cache (a link to a file of the inventory), losing a copy in /opt that
// the inventory does not list; libcudnn_ops.so.9 not found; libz.so.1 failing on a non-ELF file.
struct Scenario {
  facts::BinaryInfo cudnn = elf64("libcudnn.so.9");
  report::ResolveReport report;

  Scenario() {
    report.context = "as loaded by a program without RPATH or RUNPATH";

    facts::CudnnInstall inst;
    inst.dir = "/usr/lib";
    inst.package = facts::Fact<std::string>::known("pip nvidia-cudnn-cu12 9.1.0.70", "RECORD");
    facts::CudnnLibrary lib;
    lib.name = "libcudnn.so.9";
    lib.real_path = "/usr/lib/libcudnn.so.9.1.0";
    lib.version = facts::Fact<Version>::known(*Version::parse("9.1.0"), "file name");
    inst.libraries.push_back(lib);
    report.cudnn.push_back(inst);

    Resolution found;
    found.name = "libcudnn.so.9";
    found.chosen = Candidate{"/usr/lib/libcudnn.so.9",
                             "/usr/lib/libcudnn.so.9.1.0",
                             FoundVia::ld_so_cache,
                             "ld.so.cache",
                             &cudnn};
    found.steps = {
        {FoundVia::runpath,
         "RUNPATH of /opt/very/long/path/libtorch_cuda.so",
         "/opt/x/libcudnn.so.9",
         "absent",
         false},
        {FoundVia::ld_so_cache, "ld.so.cache", "/usr/lib/libcudnn.so.9", "found", true},
        {FoundVia::ld_library_path,
         "LD_LIBRARY_PATH_FROM_A_VERY_LONG_PLACE",
         "",
         "skipped: not set",
         false},
    };
    found.shadowed = {Candidate{"/opt/other/libcudnn.so.9",
                                "/opt/other/libcudnn.so.9",
                                FoundVia::default_dirs,
                                "default",
                                &cudnn}};
    report.steps.push_back(LoadStep{found, loader::LibraryRole::cudnn_dispatcher, ""});

    Resolution missing;
    missing.name = "libcudnn_ops.so.9";
    missing.requested_by = "/usr/lib/libcudnn.so.9.1.0";
    missing.steps = {
        {FoundVia::default_dirs, "default", "/usr/lib/libcudnn_ops.so.9", "absent", false}};
    report.steps.push_back(LoadStep{missing,
                                    loader::LibraryRole::cudnn_sublibrary,
                                    "opened by /usr/lib/libcudnn.so.9.1.0 at run time"});

    Resolution fails;
    fails.name = "libz.so.1";
    fails.fatal_error = 1;
    fails.fatal_message = "/a/libz.so.1: invalid ELF header";
    fails.steps = {
        {FoundVia::ld_so_cache, "ld.so.cache", "/a/libz.so.1", "invalid ELF header", false}};
    report.steps.push_back(LoadStep{fails, loader::LibraryRole::zlib, ""});
  }
};

TEST(resolve_report, files_outside_inventory_are_those_whose_version_the_file_must_tell) {
  Scenario s;
  EXPECT_EQ(report::files_outside_inventory(s.report),
            (std::vector<std::string>{"/opt/other/libcudnn.so.9"}));
  // A copy named twice is asked for once; a candidate without a real path never.
  s.report.steps[1].resolution.shadowed = {
      Candidate{"/opt/other/libcudnn.so.9",
                "/opt/other/libcudnn.so.9",
                FoundVia::rpath,
                "RPATH",
                nullptr},
      Candidate{"/gone/libcudnn.so.9", "", FoundVia::rpath, "RPATH", nullptr}};
  EXPECT_EQ(report::files_outside_inventory(s.report),
            (std::vector<std::string>{"/opt/other/libcudnn.so.9"}));
}

TEST(resolve_report, describe_copy_takes_the_version_from_the_inventory_else_from_the_file) {
  Scenario s;
  const Candidate& chosen = *s.report.steps[0].resolution.chosen;
  const Candidate& other = s.report.steps[0].resolution.shadowed[0];
  EXPECT_EQ(report::describe_copy(s.report, chosen),
            "version 9.1.0 (pip nvidia-cudnn-cu12 9.1.0.70), ELF 64-bit x86-64, soname "
            "libcudnn.so.9");
  EXPECT_EQ(report::describe_copy(s.report, other), "ELF 64-bit x86-64, soname libcudnn.so.9");
  s.report.file_versions.emplace("/opt/other/libcudnn.so.9", *Version::parse("9.0.0"));
  EXPECT_EQ(report::describe_copy(s.report, other),
            "cuDNN 9.0.0, ELF 64-bit x86-64, soname libcudnn.so.9");
  // The inventory wins over what the file says, and an unknown version is said to be unknown.
  s.report.file_versions.emplace("/usr/lib/libcudnn.so.9.1.0", *Version::parse("8.0.0"));
  s.report.cudnn[0].libraries[0].version = facts::Fact<Version>::unknown("no version object");
  s.report.cudnn[0].package = facts::Fact<std::string>::unknown("no package record");
  EXPECT_EQ(report::describe_copy(s.report, chosen),
            "version unknown, ELF 64-bit x86-64, soname libcudnn.so.9");
  EXPECT_EQ(
      report::describe_copy(
          s.report, Candidate{"/x/liby.so", "/x/liby.so", FoundVia::direct, "direct", nullptr}),
      "");
}

TEST(resolve_report, text_names_winner_paths_considered_and_losers) {
  Scenario s;
  s.report.file_versions.emplace("/opt/other/libcudnn.so.9", *Version::parse("9.0.0"));
  EXPECT_EQ(
      report::render_resolve_text(s.report),
      "as loaded by a program without RPATH or RUNPATH\n"
      "\n"
      "libcudnn.so.9 => /usr/lib/libcudnn.so.9 [ld.so.cache]\n"
      "  version 9.1.0 (pip nvidia-cudnn-cu12 9.1.0.70), ELF 64-bit x86-64, soname "
      "libcudnn.so.9\n"
      "  real file /usr/lib/libcudnn.so.9.1.0\n"
      "  asked for by a program without RPATH or RUNPATH\n"
      "  paths considered, in order:\n"
      "     1. RUNPATH                      /opt/x/libcudnn.so.9: absent\n"
      "        (RUNPATH of /opt/very/long/path/libtorch_cuda.so)\n"
      "     2. ld.so.cache                  /usr/lib/libcudnn.so.9: found\n"
      "     3. LD_LIBRARY_PATH_FROM_A_VERY_ skipped: not set\n"
      "        (LD_LIBRARY_PATH_FROM_A_VERY_LONG_PLACE)\n"
      "  other copies, which lose:\n"
      "    /opt/other/libcudnn.so.9 (cuDNN 9.0.0, ELF 64-bit x86-64, soname libcudnn.so.9) "
      "[default]\n"
      "\n"
      "libcudnn_ops.so.9 => not found\n"
      "  asked for by /usr/lib/libcudnn.so.9.1.0 (opened by /usr/lib/libcudnn.so.9.1.0 at run "
      "time)\n"
      "  paths considered, in order:\n"
      "     1. default                      /usr/lib/libcudnn_ops.so.9: absent\n"
      "\n"
      "libz.so.1 => fails: /a/libz.so.1: invalid ELF header (dlopen stops the search there)\n"
      "  asked for by a program without RPATH or RUNPATH\n"
      "  paths considered, in order:\n"
      "     1. ld.so.cache                  /a/libz.so.1: invalid ELF header\n"
      "\n");
}

TEST(resolve_report, text_without_context_or_description_drops_those_lines) {
  report::ResolveReport rep;
  Resolution r;
  r.name = "liby.so";
  r.chosen = Candidate{"/x/liby.so", "/x/liby.so", FoundVia::direct, "direct", nullptr};
  rep.steps.push_back(LoadStep{r, loader::LibraryRole::other, ""});
  EXPECT_EQ(report::render_resolve_text(rep),
            "liby.so => /x/liby.so [direct]\n"
            "  asked for by a program without RPATH or RUNPATH\n"
            "  paths considered, in order:\n"
            "\n");
  EXPECT_EQ(report::render_resolve_text(report::ResolveReport{}), "");
}

TEST(resolve_report, json_has_the_schema_and_every_resolution) {
  Scenario s;
  s.report.file_versions.emplace("/opt/other/libcudnn.so.9", *Version::parse("9.0.0"));
  const std::string text = report::render_resolve_json(s.report);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const auto doc = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& [key, value] : doc.items()) {
    keys.push_back(key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"schema", "context", "resolutions"}));
  EXPECT_EQ(doc["schema"], "cudnn-doctor-resolve/1");
  EXPECT_EQ(doc["context"], "as loaded by a program without RPATH or RUNPATH");
  ASSERT_EQ(doc["resolutions"].size(), 3U);

  const auto& found = doc["resolutions"][0];
  keys.clear();
  for (const auto& [key, value] : found.items()) {
    keys.push_back(key);
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{
                "name", "requested_by", "reason", "found", "considered", "shadowed"}));
  EXPECT_TRUE(found["requested_by"].is_null());
  EXPECT_EQ(found["found"],
            nlohmann::ordered_json({{"path", "/usr/lib/libcudnn.so.9"},
                                    {"real_path", "/usr/lib/libcudnn.so.9.1.0"},
                                    {"via", "ld.so.cache"},
                                    {"source", "ld.so.cache"},
                                    {"about",
                                     "version 9.1.0 (pip nvidia-cudnn-cu12 9.1.0.70), ELF 64-bit "
                                     "x86-64, soname libcudnn.so.9"}}));
  ASSERT_EQ(found["considered"].size(), 3U);
  EXPECT_EQ(found["considered"][0],
            nlohmann::ordered_json({{"via", "runpath"},
                                    {"source", "RUNPATH of /opt/very/long/path/libtorch_cuda.so"},
                                    {"path", "/opt/x/libcudnn.so.9"},
                                    {"outcome", "absent"},
                                    {"loadable", false}}));
  EXPECT_EQ(found["considered"][1]["loadable"], true);
  ASSERT_EQ(found["shadowed"].size(), 1U);
  EXPECT_EQ(found["shadowed"][0]["via"], "default");
  EXPECT_EQ(found["shadowed"][0]["about"], "cuDNN 9.0.0, ELF 64-bit x86-64, soname libcudnn.so.9");

  const auto& missing = doc["resolutions"][1];
  EXPECT_EQ(missing["requested_by"], "/usr/lib/libcudnn.so.9.1.0");
  EXPECT_EQ(missing["reason"], "opened by /usr/lib/libcudnn.so.9.1.0 at run time");
  EXPECT_TRUE(missing["found"].is_null());
  EXPECT_FALSE(missing.contains("error"));
  EXPECT_TRUE(missing["shadowed"].empty());

  const auto& fails = doc["resolutions"][2];
  EXPECT_TRUE(fails["found"].is_null());
  EXPECT_EQ(fails["error"], "/a/libz.so.1: invalid ELF header");
}

TEST(resolve_report, tree_indents_each_level_and_shows_a_file_once) {
  report::ResolveTree tree;
  tree.path = "/opt/app/bin/train";

  report::TreeEntry foo;
  foo.name = "libfoo.so.1";
  foo.resolution.chosen = Candidate{"/opt/app/lib/libfoo.so.1",
                                    "/opt/app/lib/libfoo.so.1",
                                    FoundVia::runpath,
                                    "RUNPATH of /opt/app/bin/train",
                                    nullptr};
  report::TreeEntry bar;
  bar.name = "libbar.so.2";
  bar.resolution.steps = {
      {FoundVia::runpath,
       "RUNPATH of /opt/app/lib/libfoo.so.1",
       "/opt/app/lib/libbar.so.2",
       "absent",
       false},
      {FoundVia::ld_library_path, "LD_LIBRARY_PATH", "", "skipped: not set", false}};
  report::TreeEntry libc;
  libc.name = "libc.so.6";
  libc.resolution.chosen =
      Candidate{"/lib/libc.so.6", "/lib/libc.so.6", FoundVia::ld_so_cache, "ld.so.cache", nullptr};
  foo.needed = {bar, libc};

  report::TreeEntry libc_again = libc;
  libc_again.seen = true;
  report::TreeEntry z;
  z.name = "libz.so.1";
  z.resolution.fatal_error = 1;
  z.resolution.fatal_message = "/a/libz.so.1: invalid ELF header";
  z.resolution.steps = {
      {FoundVia::ld_so_cache, "ld.so.cache", "/a/libz.so.1", "invalid ELF header", false}};
  tree.needed = {foo, libc_again, z};

  EXPECT_EQ(report::render_resolve_tree(tree),
            "/opt/app/bin/train [no soname]\n"
            "    libfoo.so.1 => /opt/app/lib/libfoo.so.1 [RUNPATH of /opt/app/bin/train]\n"
            "        libbar.so.2 not found\n"
            "            1. RUNPATH of /opt/app/lib/libfoo.so.1: /opt/app/lib/libbar.so.2: "
            "absent\n"
            "            2. LD_LIBRARY_PATH: skipped: not set\n"
            "        libc.so.6 => /lib/libc.so.6 [ld.so.cache]\n"
            "    libc.so.6 => /lib/libc.so.6 [ld.so.cache] (see above)\n"
            "    libz.so.1 fails: /a/libz.so.1: invalid ELF header\n"
            "        1. ld.so.cache: /a/libz.so.1: invalid ELF header\n");

  report::ResolveTree leaf;
  leaf.path = "/lib/libc.so.6";
  leaf.soname = "libc.so.6";
  EXPECT_EQ(report::render_resolve_tree(leaf), "/lib/libc.so.6 [libc.so.6]\n");
}

// Windows: the default caller is a program calling LoadLibraryW, a DLL of another architecture
// found first fails with error 193, a missing one with 126, and runs fold by '\\'.
TEST(resolve_report, windows_names_the_loadlibrary_errors_and_folds_windows_folders) {
  facts::BinaryInfo x86;
  x86.format = "pe";
  x86.bits = 32;
  x86.machine = "x86";
  report::ResolveReport rep;
  rep.windows = true;
  Resolution wrong;
  wrong.name = "cudnn64_8.dll";
  wrong.fatal_error = 193;
  wrong.chosen = Candidate{"C:\\Windows\\System32\\cudnn64_8.dll",
                           "C:\\Windows\\System32\\cudnn64_8.dll",
                           FoundVia::system32,
                           "System32",
                           &x86};
  wrong.steps = {{FoundVia::system32,
                  "System32",
                  "C:\\Windows\\System32\\cudnn64_8.dll",
                  "found first, but 32-bit",
                  false}};
  Resolution missing;
  missing.name = "zlibwapi.dll";
  SearchStep run{FoundVia::path, "PATH", "C:\\a\\zlibwapi.dll", "absent", false};
  run.count = 9;
  run.last_path = "C:\\z\\zlibwapi.dll";
  missing.steps = {run};
  rep.steps = {LoadStep{wrong, loader::LibraryRole::cudnn_dispatcher, ""},
               LoadStep{missing, loader::LibraryRole::other, ""}};
  const std::string text = report::render_resolve_text(rep);
  EXPECT_NE(text.find("cudnn64_8.dll => C:\\Windows\\System32\\cudnn64_8.dll [System32]\n"
                      "  PE 32-bit x86\n"
                      "  LoadLibrary fails here with error 193 (ERROR_BAD_EXE_FORMAT)\n"
                      "  asked for by a program calling LoadLibraryW\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("zlibwapi.dll => not found: LoadLibrary fails with error 126 "
                      "(ERROR_MOD_NOT_FOUND)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("1-9. PATH                         zlibwapi.dll: absent in each of 9 folders, "
                "from C:\\a to C:\\z\n"),
      std::string::npos)
      << text;
  const auto j = nlohmann::json::parse(report::render_resolve_json(rep));
  EXPECT_EQ(j["resolutions"][0]["error"], 193);
  EXPECT_EQ(j["resolutions"][0]["found"]["via"], "System32");
  EXPECT_EQ(j["resolutions"][1]["error"], 126);
  EXPECT_TRUE(j["resolutions"][1]["found"].is_null());
}

} // namespace
} // namespace doctor
