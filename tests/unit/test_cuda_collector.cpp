// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace doctor {
namespace {

using facts::CudaToolkit;
using facts::Facts;
using Strings = std::vector<std::string>;

constexpr const char* k_tk = "/usr/local/cuda-13.0";

// A runfile-style CUDA 13.0 toolkit: bin/nvcc, version.json, lib64 -> targets/<arch>/lib with
// a versioned libcudart, and /usr/local/cuda -> /usr/local/cuda-13.0 (absolute link).
void make_toolkit(const test::TempDir& t) {
  const std::string tk = k_tk;
  t.write(tk + "/bin/nvcc",
          "\x7f"
          "ELF nvcc");
  t.write(tk + "/version.json",
          R"json({"cuda": {"name": "CUDA SDK", "version": "13.0.48"},
              "cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": "13.0.96"}})json");
  t.write(tk + "/targets/x86_64-linux/lib/libcudart.so.13.0.96", "elf");
  t.link("libcudart.so.13.0.96", tk + "/targets/x86_64-linux/lib/libcudart.so.13");
  t.link("libcudart.so.13", tk + "/targets/x86_64-linux/lib/libcudart.so");
  t.link("targets/x86_64-linux/lib", tk + "/lib64");
  t.write(tk + "/targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 13000\n");
  t.link("targets/x86_64-linux/include", tk + "/include");
  t.link(tk, "/usr/local/cuda");
}

std::vector<CudaToolkit> collect(const platform::SysRoot& root, Facts f = {}) {
  collect::collect_cuda(root, collect::CollectOptions{}, f);
  return f.cuda_toolkits;
}

std::vector<std::string> tk_paths(const std::vector<CudaToolkit>& tks) {
  std::vector<std::string> out;
  for (const auto& tk : tks) {
    out.push_back(tk.path);
  }
  return out;
}

TEST(cuda_collector, finds_runfile_toolkit_with_its_alias) {
  test::TempDir t;
  make_toolkit(t);
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 1U) << ::testing::PrintToString(tk_paths(tks));
  const CudaToolkit& tk = tks[0];
  EXPECT_EQ(tk.path, k_tk);
  EXPECT_EQ(tk.aliases, (Strings{"/usr/local/cuda"}));
  EXPECT_EQ(tk.found_via, (Strings{"dir:/usr/local/cuda*"}));
  ASSERT_TRUE(tk.version) << tk.version.reason();
  EXPECT_EQ(tk.version->str(), "13.0.48");
  EXPECT_EQ(tk.version.source(), "file:/usr/local/cuda-13.0/version.json");
  ASSERT_TRUE(tk.runtime_version) << tk.runtime_version.reason();
  EXPECT_EQ(tk.runtime_version->str(), "13.0.96");
  EXPECT_EQ(tk.nvcc.value_or(""), "/usr/local/cuda-13.0/bin/nvcc");
  EXPECT_EQ(tk.library_dirs, (Strings{"/usr/local/cuda-13.0/targets/x86_64-linux/lib"}));
}

// /usr/local/bin/nvcc is a two-line script that execs the real nvcc. Its directory's parent
// (/usr/local) is not a toolkit: the script leads to /usr/local/cuda-13.0.
TEST(cuda_collector, nvcc_wrapper_script_on_path_is_not_a_second_toolkit) {
  test::TempDir t;
  make_toolkit(t);
  t.write("/usr/local/bin/nvcc", "#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc \"$@\"\n");
  const auto tks = collect(t.sysroot({{"PATH", "/usr/local/bin:/usr/bin:/bin"}}));
  ASSERT_EQ(tks.size(), 1U) << ::testing::PrintToString(tk_paths(tks));
  EXPECT_EQ(tks[0].path, k_tk);
  EXPECT_EQ(tks[0].found_via, (Strings{"PATH:nvcc", "dir:/usr/local/cuda*"}));
  EXPECT_EQ(tks[0].aliases, (Strings{"/usr/local/cuda"})) << "/usr/local is not an alias";
}

TEST(cuda_collector, quoted_wrapper_target_is_followed) {
  test::TempDir t;
  make_toolkit(t);
  t.write("/usr/bin/nvcc", "#!/bin/bash\n# wrapper\nexec '/usr/local/cuda/bin/nvcc' \"$@\"\n");
  const auto tks = collect(t.sysroot({{"PATH", "/usr/bin"}}));
  ASSERT_EQ(tks.size(), 1U) << ::testing::PrintToString(tk_paths(tks));
  EXPECT_EQ(tks[0].path, k_tk);
}

TEST(cuda_collector, nvcc_symlink_on_path_leads_to_the_toolkit) {
  test::TempDir t;
  make_toolkit(t);
  t.link("/usr/local/cuda/bin/nvcc", "/usr/bin/nvcc");
  const auto tks = collect(t.sysroot({{"PATH", "/usr/bin"}}));
  ASSERT_EQ(tks.size(), 1U) << ::testing::PrintToString(tk_paths(tks));
  EXPECT_EQ(tks[0].path, k_tk);
  EXPECT_EQ(tks[0].found_via, (Strings{"PATH:nvcc", "dir:/usr/local/cuda*"}));
}

TEST(cuda_collector, env_variables_point_at_the_same_toolkit) {
  test::TempDir t;
  make_toolkit(t);
  const auto tks = collect(
      t.sysroot({{"CUDA_HOME", "/usr/local/cuda/"}, {"CUDA_PATH", "/usr/local/cuda-13.0"}}));
  ASSERT_EQ(tks.size(), 1U);
  EXPECT_EQ(tks[0].found_via, (Strings{"dir:/usr/local/cuda*", "env:CUDA_HOME", "env:CUDA_PATH"}));
  EXPECT_EQ(tks[0].aliases, (Strings{"/usr/local/cuda"}));
}

TEST(cuda_collector, env_variable_pointing_nowhere_adds_nothing) {
  test::TempDir t;
  t.mkdir("/usr/local");
  EXPECT_TRUE(collect(t.sysroot({{"CUDA_HOME", "/nowhere"}, {"CUDA_PATH", ""}})).empty());
}

TEST(cuda_collector, several_toolkits_are_listed_by_path) {
  test::TempDir t;
  make_toolkit(t);
  t.write("/usr/local/cuda-12.4/version.json", R"({"cuda": {"version": "12.4.1"}})");
  t.write("/usr/local/cuda-12.4/bin/nvcc", "elf");
  t.write("/opt/cuda-11.8/version.txt", "CUDA Version 11.8.89\n");
  const auto tks = collect(t.sysroot());
  EXPECT_EQ(tk_paths(tks), (Strings{"/opt/cuda-11.8", "/usr/local/cuda-12.4", k_tk}));
  ASSERT_EQ(tks.size(), 3U);
  EXPECT_EQ(tks[0].found_via, (Strings{"dir:/opt/cuda*"}));
  EXPECT_EQ(tks[1].version.value_or(Version()).str(), "12.4.1");
  EXPECT_EQ(tks[0].version.value_or(Version()).str(), "11.8.89");
}

TEST(cuda_collector, directories_without_markers_are_not_toolkits) {
  test::TempDir t;
  t.mkdir("/usr/local/cuda-12.2/lib64");
  t.write("/usr/local/cuda-12.2/README", "leftover");
  t.write("/usr/local/cudatext/bin/nvcc", "not named cuda or cuda-*");
  t.link("/usr/local/cuda-missing", "/usr/local/cuda");
  t.link("cuda-loop", "/usr/local/cuda-loop");
  EXPECT_TRUE(collect(t.sysroot()).empty());
}

TEST(cuda_collector, version_json_wins_over_version_txt_and_cuda_h) {
  test::TempDir t;
  t.write("/opt/cuda-a/version.json", R"({"cuda": {"version": "12.4.1"}})");
  t.write("/opt/cuda-a/version.txt", "CUDA Version 12.3.0\n");
  t.write("/opt/cuda-a/include/cuda.h", "#define CUDA_VERSION 12020\n");
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 1U);
  EXPECT_EQ(tks[0].version.value_or(Version()).str(), "12.4.1");
  EXPECT_EQ(tks[0].version.source(), "file:/opt/cuda-a/version.json");
}

TEST(cuda_collector, version_txt_wins_over_cuda_h) {
  test::TempDir t;
  t.write("/opt/cuda-b/version.txt", "CUDA Version 10.2.89\n");
  t.write("/opt/cuda-b/include/cuda.h", "#define CUDA_VERSION 10010\n");
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 1U);
  EXPECT_EQ(tks[0].version.value_or(Version()).str(), "10.2.89");
  EXPECT_EQ(tks[0].version.source(), "file:/opt/cuda-b/version.txt");
}

TEST(cuda_collector, malformed_version_json_falls_back_to_version_txt) {
  test::TempDir t;
  t.write("/opt/cuda-c/version.json", "{\"cuda\": {\"version\": \"12.4.1\"");
  t.write("/opt/cuda-c/version.txt", "CUDA Version 12.4.0\n");
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 1U);
  EXPECT_EQ(tks[0].version.value_or(Version()).str(), "12.4.0");
}

TEST(cuda_collector, cuda_h_then_cuda_runtime_api_h_are_the_last_resort) {
  test::TempDir t;
  t.write("/opt/cuda-d/include/cuda.h", "#define CUDA_VERSION 12080\n");
  t.write("/opt/cuda-e/include/cuda.h", "/* no version here */\n");
  t.write("/opt/cuda-e/include/cuda_runtime_api.h", "#define CUDART_VERSION 11070\n");
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 2U);
  EXPECT_EQ(tks[0].version.value_or(Version()).str(), "12.8");
  EXPECT_EQ(tks[0].version.source(), "file:/opt/cuda-d/include/cuda.h");
  EXPECT_EQ(tks[1].version.value_or(Version()).str(), "11.7");
  EXPECT_EQ(tks[1].version.source(), "file:/opt/cuda-e/include/cuda_runtime_api.h");
}

TEST(cuda_collector, no_readable_version_is_unknown_with_reason) {
  test::TempDir t;
  t.write("/opt/cuda-f/bin/nvcc", "elf");
  t.write("/opt/cuda-f/version.json", "\x01\x02 binary junk");
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 1U);
  ASSERT_FALSE(tks[0].version);
  EXPECT_NE(tks[0].version.reason().find("version.json"), std::string::npos);
  EXPECT_FALSE(tks[0].runtime_version);
}

TEST(cuda_collector, runtime_only_install_has_no_nvcc) {
  test::TempDir t;
  t.write("/opt/cuda-rt/version.json", R"({"cuda": {"version": "12.4.1"}})");
  t.write("/opt/cuda-rt/lib64/libcudart.so.12.4.127", "elf");
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 1U);
  ASSERT_FALSE(tks[0].nvcc);
  EXPECT_NE(tks[0].nvcc.reason().find("runtime-only"), std::string::npos);
  EXPECT_EQ(tks[0].runtime_version.value_or(Version()).str(), "12.4.127");
  EXPECT_EQ(tks[0].library_dirs, (Strings{"/opt/cuda-rt/lib64"}));
}

TEST(cuda_collector, runtime_version_from_dist_info_when_names_are_unversioned) {
  test::TempDir t;
  t.write("/usr/local/cuda-13.0/version.json", R"({"cuda": {"version": "13.0.48"}})");
  t.write("/usr/local/cuda-13.0/lib/libcudart.so.13", "elf");
  t.mkdir("/usr/local/cuda-13.0/dist-info/nvidia_cuda_runtime_cu13-13.0.96.dist-info");
  t.mkdir("/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info");
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 1U);
  ASSERT_TRUE(tks[0].runtime_version) << tks[0].runtime_version.reason();
  EXPECT_EQ(tks[0].runtime_version->str(), "13.0.96");
  EXPECT_EQ(tks[0].runtime_version.source(),
            "dist-info:/usr/local/cuda-13.0/dist-info/"
            "nvidia_cuda_runtime_cu13-13.0.96.dist-info");
  EXPECT_EQ(tks[0].library_dirs, (Strings{"/usr/local/cuda-13.0/lib"}));
}

TEST(cuda_collector, conda_environment_with_nvcc_is_a_toolkit) {
  test::TempDir t;
  t.write("/opt/conda/envs/dl/bin/nvcc", "elf");
  t.write("/opt/conda/envs/dl/include/cuda_runtime_api.h", "#define CUDART_VERSION 12040\n");
  Facts f;
  facts::PythonEnv env;
  env.prefix = "/opt/conda/envs/dl";
  env.kind = "conda";
  f.python_envs.push_back(env);
  facts::PythonEnv venv;
  venv.prefix = "/opt/conda/envs/dl";
  venv.kind = "venv"; // only conda prefixes are toolkit candidates
  f.python_envs.push_back(venv);
  const auto tks = collect(t.sysroot(), f);
  ASSERT_EQ(tks.size(), 1U) << ::testing::PrintToString(tk_paths(tks));
  EXPECT_EQ(tks[0].path, "/opt/conda/envs/dl");
  EXPECT_EQ(tks[0].found_via, (Strings{"conda:/opt/conda/envs/dl"}));
  EXPECT_EQ(tks[0].version.value_or(Version()).str(), "12.4");
}

TEST(cuda_collector, debian_packaged_toolkit) {
  test::TempDir t;
  t.write("/usr/lib/nvidia-cuda-toolkit/bin/nvcc", "elf");
  const auto tks = collect(t.sysroot());
  ASSERT_EQ(tks.size(), 1U) << ::testing::PrintToString(tk_paths(tks));
  EXPECT_EQ(tks[0].path, "/usr/lib/nvidia-cuda-toolkit");
  EXPECT_EQ(tks[0].found_via, (Strings{"dir:/usr/lib/nvidia-cuda-toolkit"}));
}

} // namespace
} // namespace doctor
