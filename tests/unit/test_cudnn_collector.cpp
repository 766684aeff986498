// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace doctor {
namespace {

using facts::CudnnInstall;
using facts::Facts;
using Strings = std::vector<std::string>;

constexpr const char* k_multiarch = "/usr/lib/x86_64-linux-gnu";
constexpr const char* k_sp = "/venv/lib/python3.10/site-packages";
const Strings k_v8_members = {"libcudnn",
                              "libcudnn_adv_infer",
                              "libcudnn_adv_train",
                              "libcudnn_cnn_infer",
                              "libcudnn_cnn_train",
                              "libcudnn_ops_infer",
                              "libcudnn_ops_train"};
const Strings k_v9_members = {"libcudnn",
                              "libcudnn_adv",
                              "libcudnn_cnn",
                              "libcudnn_engines_precompiled",
                              "libcudnn_engines_runtime_compiled",
                              "libcudnn_graph",
                              "libcudnn_heuristic",
                              "libcudnn_ops"};

std::string cudnn_version_h(int major, int minor, int patch) {
  return "#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n#define CUDNN_MAJOR "
         + std::to_string(major) + "\n#define CUDNN_MINOR " + std::to_string(minor)
         + "\n#define CUDNN_PATCHLEVEL " + std::to_string(patch)
         + "\n\n#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + "
           "CUDNN_PATCHLEVEL)\n\n#endif\n";
}

// Facts as the earlier collectors would leave them on a Debian-like system with a venv.
Facts base_facts() {
  Facts f;
  f.linker.default_dirs = {"/lib/x86_64-linux-gnu", k_multiarch, "/lib", "/usr/lib"};
  f.linker.conf_dirs = facts::Fact<Strings>::known({}, "file:/etc/ld.so.conf");
  facts::PythonEnv env;
  env.prefix = "/venv";
  env.kind = "venv";
  env.site_packages = facts::Fact<std::string>::known(k_sp, "test");
  f.python_envs.push_back(env);
  return f;
}

std::vector<CudnnInstall> collect(const platform::SysRoot& root, Facts f = base_facts()) {
  collect::collect_cudnn(root, collect::CollectOptions{}, f);
  return f.cudnn;
}

Strings members(const CudnnInstall& inst) {
  Strings out;
  for (const auto& lib : inst.libraries) {
    out.push_back(lib.member.substr(0, lib.member.find(".so.")));
  }
  return out;
}

Strings dirs(const std::vector<CudnnInstall>& installs) {
  Strings out;
  for (const auto& inst : installs) {
    out.push_back(inst.dir + " (" + std::to_string(inst.major) + ")");
  }
  return out;
}

// pip's nvidia-cudnn-cu11 8.9.7.29 wheel: lib/ holds only "<member>.so.8" names, so the full
// version can only come from the wheel's RECORD.
void make_pip_cudnn8(const test::TempDir& t) {
  const std::string lib = std::string(k_sp) + "/nvidia/cudnn/lib";
  std::string record;
  std::size_t size = 100;
  for (const std::string& m : k_v8_members) {
    const std::string name = m + ".so.8";
    t.write(lib + "/" + name, std::string(size, 'x'));
    record += "nvidia/cudnn/lib/" + name + ",sha256=abc" + m + "," + std::to_string(size) + "\n";
    ++size;
  }
  record +=
      "nvidia/cudnn/__init__.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\n"
      "nvidia_cudnn_cu11-8.9.7.29.dist-info/RECORD,,\n";
  t.write(std::string(k_sp) + "/nvidia/cudnn/__init__.py", "");
  t.write(std::string(k_sp) + "/nvidia_cudnn_cu11-8.9.7.29.dist-info/RECORD", record);
}

TEST(cudnn_collector, pip_cudnn8_versions_come_from_the_record) {
  test::TempDir t;
  make_pip_cudnn8(t);
  const auto installs = collect(t.sysroot());
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  const CudnnInstall& inst = installs[0];
  const std::string record = std::string(k_sp) + "/nvidia_cudnn_cu11-8.9.7.29.dist-info/RECORD";
  EXPECT_EQ(inst.dir, std::string(k_sp) + "/nvidia/cudnn/lib");
  EXPECT_EQ(inst.major, 8U);
  EXPECT_EQ(inst.found_via, (Strings{"pip:/venv"}));
  EXPECT_EQ(members(inst), k_v8_members);
  for (const auto& lib : inst.libraries) {
    EXPECT_EQ(lib.name, lib.member);
    EXPECT_EQ(lib.major, 8U);
    EXPECT_EQ(lib.real_path, inst.dir + "/" + lib.name);
    ASSERT_TRUE(lib.version) << lib.name << ": " << lib.version.reason();
    EXPECT_EQ(lib.version->str(), "8.9.7.29") << lib.name;
    EXPECT_EQ(lib.version.source(), "pip:nvidia-cudnn-cu11 8.9.7.29 (" + record + ")");
  }
  EXPECT_EQ(inst.libraries[0].size, 100U);
  ASSERT_TRUE(inst.package) << inst.package.reason();
  EXPECT_EQ(*inst.package, "pip nvidia-cudnn-cu11 8.9.7.29");
  EXPECT_EQ(inst.package.source(), "record:" + record);
  EXPECT_FALSE(inst.header_version) << "the wheel ships no header here";
  ASSERT_TRUE(inst.version) << inst.version.reason();
  EXPECT_EQ(inst.version->str(), "8.9.7");
}

TEST(cudnn_collector, pip_cudnn_without_record_has_unknown_versions) {
  test::TempDir t;
  make_pip_cudnn8(t);
  std::filesystem::remove(t.at(std::string(k_sp) + "/nvidia_cudnn_cu11-8.9.7.29.dist-info/RECORD"));
  const auto installs = collect(t.sysroot());
  ASSERT_EQ(installs.size(), 1U);
  for (const auto& lib : installs[0].libraries) {
    ASSERT_FALSE(lib.version) << lib.name << " got " << lib.version->str();
    EXPECT_NE(lib.version.reason().find("only the major version"), std::string::npos);
  }
  EXPECT_FALSE(installs[0].package);
  ASSERT_FALSE(installs[0].version);
  EXPECT_NE(installs[0].version.reason().find("no header"), std::string::npos);
}

// Distribution packages and tarballs install versioned real files with soname links; the
// version is in the real file's name.
TEST(cudnn_collector, system_layout_versions_come_from_file_names) {
  test::TempDir t;
  const std::string dir = k_multiarch;
  for (const std::string& m : k_v8_members) {
    t.write(dir + "/" + m + ".so.8.9.7", "elf " + m);
    t.link(m + ".so.8.9.7", dir + "/" + m + ".so.8");
  }
  t.link("libcudnn.so.8", dir + "/libcudnn.so"); // the -dev link
  Facts f = base_facts();
  f.linker.cache = facts::Fact<std::vector<facts::LdCacheEntry>>::known(
      {{"libcudnn.so.8", dir + "/libcudnn.so.8", "x86-64"}}, "file:/etc/ld.so.cache");
  const auto installs = collect(t.sysroot(), f);
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  const CudnnInstall& inst = installs[0];
  EXPECT_EQ(inst.dir, dir);
  EXPECT_EQ(inst.found_via, (Strings{"default", "ld.so.cache"}));
  EXPECT_EQ(members(inst), k_v8_members);
  for (const auto& lib : inst.libraries) {
    EXPECT_EQ(lib.name, lib.member) << "the soname link is preferred";
    EXPECT_EQ(lib.real_path, dir + "/" + lib.member + ".9.7");
    ASSERT_TRUE(lib.version) << lib.name << ": " << lib.version.reason();
    EXPECT_EQ(lib.version->str(), "8.9.7");
    EXPECT_EQ(lib.version.source(), "name:" + lib.real_path);
  }
  EXPECT_EQ(inst.version.value_or(Version()).str(), "8.9.7");
  EXPECT_FALSE(inst.package);
}

TEST(cudnn_collector, versioned_file_without_soname_link_is_used) {
  test::TempDir t;
  t.write(std::string(k_multiarch) + "/libcudnn.so.9.1.0", "elf");
  const auto installs = collect(t.sysroot());
  ASSERT_EQ(installs.size(), 1U);
  ASSERT_EQ(installs[0].libraries.size(), 1U);
  EXPECT_EQ(installs[0].libraries[0].name, "libcudnn.so.9.1.0");
  EXPECT_EQ(installs[0].libraries[0].member, "libcudnn.so.9");
  EXPECT_EQ(installs[0].libraries[0].version.value_or(Version()).str(), "9.1.0");
}

TEST(cudnn_collector, mixed_sub_library_versions_leave_the_install_version_unknown) {
  test::TempDir t;
  const std::string dir = k_multiarch;
  const std::vector<std::pair<std::string, std::string>> files = {{"libcudnn", "8.9.7"},
                                                                  {"libcudnn_ops_infer", "8.9.7"},
                                                                  {"libcudnn_cnn_infer", "8.2.4"},
                                                                  {"libcudnn_adv_infer", "8.2.4"}};
  for (const auto& [m, v] : files) {
    t.write(dir + "/" + m + ".so." + v, "elf");
    t.link(m + ".so." + v, dir + "/" + m + ".so.8");
  }
  const auto installs = collect(t.sysroot());
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  const CudnnInstall& inst = installs[0];
  ASSERT_EQ(inst.libraries.size(), 4U);
  EXPECT_EQ(inst.libraries[0].member, "libcudnn.so.8");
  EXPECT_EQ(inst.libraries[0].version.value_or(Version()).str(), "8.9.7");
  EXPECT_EQ(inst.libraries[1].member, "libcudnn_adv_infer.so.8");
  EXPECT_EQ(inst.libraries[1].version.value_or(Version()).str(), "8.2.4");
  ASSERT_FALSE(inst.version) << "got " << inst.version->str();
  EXPECT_NE(inst.version.reason().find("disagree"), std::string::npos) << inst.version.reason();
}

TEST(cudnn_collector, matching_header_sets_the_install_version) {
  test::TempDir t;
  const std::string dir = k_multiarch;
  t.write(dir + "/libcudnn.so.9.1.0", "elf");
  t.link("libcudnn.so.9.1.0", dir + "/libcudnn.so.9");
  t.write("/usr/include/x86_64-linux-gnu/cudnn_version_v9.h", cudnn_version_h(9, 1, 1));
  const auto installs = collect(t.sysroot());
  ASSERT_EQ(installs.size(), 1U);
  ASSERT_TRUE(installs[0].header_version) << installs[0].header_version.reason();
  EXPECT_EQ(installs[0].header_version->str(), "9.1.1");
  EXPECT_EQ(installs[0].header_version.source(),
            "file:/usr/include/x86_64-linux-gnu/cudnn_version_v9.h");
  EXPECT_EQ(installs[0].version, installs[0].header_version);
}

TEST(cudnn_collector, header_of_another_major_is_ignored) {
  test::TempDir t;
  t.write("/opt/cudnn/lib/libcudnn.so.9.2.0", "elf");
  t.write("/opt/cudnn/include/cudnn_version.h", cudnn_version_h(8, 9, 7));
  const auto installs = collect(t.sysroot({{"CUDNN_PATH", "/opt/cudnn"}}));
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  EXPECT_EQ(installs[0].found_via, (Strings{"env:CUDNN_PATH"}));
  EXPECT_FALSE(installs[0].header_version);
  EXPECT_EQ(installs[0].version.value_or(Version()).str(), "9.2.0");
}

TEST(cudnn_collector, cudnn8_and_cudnn9_in_one_directory_are_two_installs) {
  test::TempDir t;
  const std::string dir = k_multiarch;
  t.write(dir + "/libcudnn.so.8.9.7", "elf");
  t.link("libcudnn.so.8.9.7", dir + "/libcudnn.so.8");
  t.write(dir + "/libcudnn.so.9.19.0", "elf");
  t.link("libcudnn.so.9.19.0", dir + "/libcudnn.so.9");
  const auto installs = collect(t.sysroot());
  EXPECT_EQ(dirs(installs), (Strings{dir + " (8)", dir + " (9)"}));
}

// A CUDA 13 tree assembled from wheels: lib/ has only "<member>.so.9" files, and the wheels'
// dist-info directories sit next to it. The RECORD paths (nvidia/cudnn/lib/...) no longer match,
// so files are tied to the RECORD by name and size.
void make_toolkit_cudnn9(const test::TempDir& t) {
  const std::string tk = "/usr/local/cuda-13.0";
  std::string record;
  std::size_t size = 1000;
  for (const std::string& m : k_v9_members) {
    const std::string name = m + ".so.9";
    t.write(tk + "/lib/" + name, std::string(size, 'e'));
    record +=
        "nvidia/cudnn/lib/" + name + ",sha256=Zm9vYmFy" + m + "," + std::to_string(size) + "\n";
    size += 10;
  }
  record += "nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD,,\n";
  t.write(tk + "/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD", record);
  t.write(tk + "/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA", "Name: x\n");
  t.write(tk + "/include/cudnn_version.h", cudnn_version_h(9, 19, 0));
  t.write(tk + "/bin/nvcc", "#!/bin/false\n");
  t.write(tk + "/version.json", R"({"cuda": {"version": "13.0.48"}})");
  t.link(tk, "/usr/local/cuda");
}

Facts with_toolkits(const platform::SysRoot& root, Facts f = base_facts()) {
  collect::collect_cuda(root, collect::CollectOptions{}, f);
  return f;
}

TEST(cudnn_collector, toolkit_layout_versions_come_from_record_by_name_and_size) {
  test::TempDir t;
  make_toolkit_cudnn9(t);
  const auto root = t.sysroot({{"LD_LIBRARY_PATH", "/usr/local/cuda/lib"}});
  const Facts f = with_toolkits(root);
  ASSERT_EQ(f.cuda_toolkits.size(), 1U);
  const auto installs = collect(root, f);
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  const CudnnInstall& inst = installs[0];
  const std::string record =
      "/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD";
  EXPECT_EQ(inst.dir, "/usr/local/cuda-13.0/lib");
  EXPECT_EQ(inst.major, 9U);
  EXPECT_EQ(inst.found_via, (Strings{"LD_LIBRARY_PATH", "toolkit:/usr/local/cuda-13.0"}));
  EXPECT_EQ(members(inst), k_v9_members);
  for (const auto& lib : inst.libraries) {
    ASSERT_TRUE(lib.version) << lib.name << ": " << lib.version.reason();
    EXPECT_EQ(lib.version->str(), "9.19.0.56") << lib.name;
    EXPECT_EQ(lib.version.source(), "pip:nvidia-cudnn-cu13 9.19.0.56 (" + record + ")");
  }
  EXPECT_EQ(inst.package.value_or(""), "pip nvidia-cudnn-cu13 9.19.0.56");
  ASSERT_TRUE(inst.header_version) << inst.header_version.reason();
  EXPECT_EQ(inst.header_version->str(), "9.19.0");
  EXPECT_EQ(inst.header_version.source(), "file:/usr/local/cuda-13.0/include/cudnn_version.h");
  EXPECT_EQ(inst.version.value_or(Version()).str(), "9.19.0");
}

TEST(cudnn_collector, toolkit_file_of_another_size_is_not_tied_to_the_record) {
  test::TempDir t;
  make_toolkit_cudnn9(t);
  t.write("/usr/local/cuda-13.0/lib/libcudnn_graph.so.9", "patched, so another size");
  const auto root = t.sysroot();
  const auto installs = collect(root, with_toolkits(root));
  ASSERT_EQ(installs.size(), 1U);
  for (const auto& lib : installs[0].libraries) {
    if (lib.member == "libcudnn_graph.so.9") {
      EXPECT_FALSE(lib.version) << "got " << lib.version->str();
    } else {
      EXPECT_EQ(lib.version.value_or(Version()).str(), "9.19.0.56") << lib.name;
    }
  }
}

TEST(cudnn_collector, toolkit_with_real_elf_libraries) {
  test::TempDir t;
  const std::string tk = "/usr/local/cuda-13.0";
  std::string record;
  for (const std::string& m : {std::string("libcudnn"), std::string("libcudnn_ops")}) {
    const std::string name = m + ".so.9";
    if (!test::make_elf_library(t.at(tk + "/lib/" + name), name)) {
      GTEST_SKIP() << "gcc cannot build shared objects here";
    }
    const auto size = std::filesystem::file_size(t.at(tk + "/lib/" + name));
    record += "nvidia/cudnn/lib/" + name + ",sha256=x," + std::to_string(size) + "\n";
  }
  t.write(tk + "/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD", record);
  t.write(tk + "/version.json", R"({"cuda": {"version": "13.0.48"}})");
  const auto root = t.sysroot();
  const auto installs = collect(root, with_toolkits(root));
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  ASSERT_EQ(installs[0].libraries.size(), 2U);
  for (const auto& lib : installs[0].libraries) {
    EXPECT_EQ(lib.version.value_or(Version()).str(), "9.19.0.56") << lib.name;
    EXPECT_GT(lib.size, 0U);
  }
}

// /usr/local/cuda -> cuda-13.0 reaches the same directory: one install, not two.
TEST(cudnn_collector, directory_reached_through_a_link_is_one_install) {
  test::TempDir t;
  make_toolkit_cudnn9(t);
  const auto root = t.sysroot({{"LD_LIBRARY_PATH", "/usr/local/cuda/lib:/usr/local/cuda-13.0/lib/"},
                               {"CUDNN_PATH", "/usr/local/cuda"}});
  const auto installs = collect(root, with_toolkits(root));
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  EXPECT_EQ(installs[0].found_via,
            (Strings{"LD_LIBRARY_PATH", "env:CUDNN_PATH", "toolkit:/usr/local/cuda-13.0"}));
}

TEST(cudnn_collector, dangling_and_looping_links_are_skipped) {
  test::TempDir t;
  const std::string dir = k_multiarch;
  t.link("libcudnn.so.9.1.0", dir + "/libcudnn.so.9");     // dangling
  t.link("libcudnn_ops.so.9", dir + "/libcudnn_ops.so.9"); // loop
  t.link("/usr/lib", dir + "/libcudnn_cnn.so.9");          // a directory
  t.write(dir + "/libcudnn_graph.so.9.1.0", "elf");
  t.link("libcudnn_graph.so.9.1.0", dir + "/libcudnn_graph.so.9");
  const auto installs = collect(t.sysroot());
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  EXPECT_EQ(members(installs[0]), (Strings{"libcudnn_graph"}));
}

TEST(cudnn_collector, names_that_are_not_cudnn_libraries_are_ignored) {
  test::TempDir t;
  const std::string dir = k_multiarch;
  for (const char* name : {"libcudnn.so",
                           "libcudnn.so.9.bak",
                           "libcudnn_ops.so.0",
                           "libcudnn_Ops.so.9",
                           "libcudnn.a",
                           "libcudnn_static.a",
                           "libcudnn.so.",
                           "libcudnn_ops.so.100",
                           "libcudnn-frontend.so.1",
                           "libcudart.so.12"}) {
    t.write(dir + "/" + name, "x");
  }
  EXPECT_TRUE(collect(t.sysroot()).empty()) << ::testing::PrintToString(dirs(collect(t.sysroot())));
}

TEST(cudnn_collector, conda_environment_records_own_the_libraries) {
  test::TempDir t;
  t.write("/opt/conda/lib/libcudnn.so.9", "12345");
  t.write("/opt/conda/conda-meta/cudnn-9.1.1.17-cuda12_0.json",
          R"({"name": "cudnn", "version": "9.1.1.17", "paths_data": {"paths": [
               {"_path": "lib/libcudnn.so.9", "size_in_bytes": 5}]}})");
  Facts f = base_facts();
  facts::PythonEnv conda;
  conda.prefix = "/opt/conda";
  conda.kind = "conda";
  f.python_envs.push_back(conda);
  const auto installs = collect(t.sysroot(), f);
  ASSERT_EQ(installs.size(), 1U) << ::testing::PrintToString(dirs(installs));
  EXPECT_EQ(installs[0].found_via, (Strings{"conda:/opt/conda"}));
  EXPECT_EQ(installs[0].package.value_or(""), "conda cudnn 9.1.1.17");
  EXPECT_EQ(installs[0].libraries[0].version.value_or(Version()).str(), "9.1.1.17");
}

TEST(cudnn_collector, record_version_of_another_major_is_not_used) {
  test::TempDir t;
  const std::string lib = std::string(k_sp) + "/nvidia/cudnn/lib";
  t.write(lib + "/libcudnn.so.9", "12345");
  t.write(std::string(k_sp) + "/nvidia_cudnn_cu12-8.9.7.29.dist-info/RECORD",
          "nvidia/cudnn/lib/libcudnn.so.9,sha256=x,5\n");
  const auto installs = collect(t.sysroot());
  ASSERT_EQ(installs.size(), 1U);
  EXPECT_FALSE(installs[0].libraries[0].version) << "an 8.x record cannot date a .so.9 file";
  EXPECT_EQ(installs[0].package.value_or(""), "pip nvidia-cudnn-cu12 8.9.7.29");
}

TEST(cudnn_collector, nothing_installed_means_no_installs) {
  test::TempDir t;
  t.mkdir(k_multiarch);
  t.mkdir(std::string(k_sp) + "/nvidia/cublas/lib");
  EXPECT_TRUE(collect(t.sysroot()).empty());
  EXPECT_TRUE(collect(t.sysroot(), Facts{}).empty());
}

} // namespace
} // namespace doctor
