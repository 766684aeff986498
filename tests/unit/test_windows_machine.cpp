// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/windows/windows_machine.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace doctor {
namespace {

platform::SysRoot
windows_root(const std::filesystem::path& root, std::map<std::string, std::string> env, bool live) {
  return platform::SysRoot(
      root, platform::Environment(std::move(env)), platform::OsFamily::windows, live);
}

TEST(WindowsMachine, LivePathsKeepTheirDrive) {
  const platform::SysRoot root = windows_root("/", {}, true);
  EXPECT_EQ(collect::windows_inner(root, "C:\\Windows\\System32"), "/C:/Windows/System32");
  EXPECT_EQ(collect::windows_inner(root, "d:/data//cudnn\\bin\\"), "/D:/data/cudnn/bin");
  EXPECT_EQ(collect::windows_inner(root, "C:\\"), "/C:/");
  EXPECT_EQ(collect::windows_inner(root, "relative\\bin"), std::nullopt);
  EXPECT_EQ(collect::windows_inner(root, "\\\\server\\share\\cudnn"), std::nullopt);
  EXPECT_EQ(collect::windows_outer(root, "/C:/Windows/System32/nvcuda.dll"),
            "C:\\Windows\\System32\\nvcuda.dll");
  EXPECT_EQ(collect::windows_outer(root, "/D:/x"), "D:\\x");
}

TEST(WindowsMachine, MountedDiskIsDriveC) {
  const test::TempDir tree;
  tree.write("/Windows/System32/nvcuda.dll", "MZ");
  tree.write("/tools/cuda/include/cudnn_version.h", "#define CUDNN_MAJOR 8\n");
  const platform::SysRoot root = windows_root(tree.path(), {}, false);
  EXPECT_EQ(collect::windows_inner(root, "C:\\Windows\\System32"), "/Windows/System32");
  EXPECT_EQ(collect::windows_inner(root, "D:\\Windows"), std::nullopt);
  EXPECT_EQ(collect::windows_outer(root, "/Windows/System32"), "C:\\Windows\\System32");
  EXPECT_TRUE(collect::windows_is_file(root, "C:\\Windows\\System32\\nvcuda.dll"));
  EXPECT_TRUE(collect::windows_is_dir(root, "c:/Windows/System32"));
  EXPECT_FALSE(collect::windows_is_file(root, "D:\\Windows\\System32\\nvcuda.dll"));
  auto text = collect::read_windows_file(root, "C:\\tools\\cuda\\include\\cudnn_version.h", 1024);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "#define CUDNN_MAJOR 8\n");
  auto missing = collect::read_windows_file(root, "C:\\tools\\cuda\\missing.h", 1024);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_NE(missing.error().message.find("C:\\tools\\cuda\\missing.h"), std::string::npos)
      << missing.error().message;
  auto listing = collect::list_windows_dir(root, "C:\\Windows\\System32");
  ASSERT_TRUE(listing);
  ASSERT_EQ(listing->size(), 1U);
  EXPECT_EQ(listing->front().name, "nvcuda.dll");
  const auto info = collect::read_windows_binary(root, "C:\\Windows\\System32\\nvcuda.dll");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->path, "C:\\Windows\\System32\\nvcuda.dll");
  EXPECT_FALSE(collect::read_windows_binary(root, "C:\\Windows\\System32\\nvml.dll"));
}

TEST(WindowsMachine, EnvironmentIgnoresCaseAndExpands) {
  const platform::SysRoot root = windows_root(
      "/",
      {{"Path", "C:\\bin"}, {"CUDA_PATH", "C:\\CUDA\\v11.8"}, {"SystemRoot", "C:\\WINDOWS"}},
      true);
  EXPECT_EQ(collect::windows_env(root, "PATH"), "C:\\bin");
  EXPECT_EQ(collect::windows_env(root, "cuda_path"), "C:\\CUDA\\v11.8");
  EXPECT_EQ(collect::windows_env(root, "CONDA_PREFIX"), std::nullopt);
  EXPECT_EQ(collect::windows_system_root(root), "C:\\WINDOWS");
  EXPECT_EQ(collect::expand_windows_variables(root, "%SystemRoot%\\Minidump"),
            "C:\\WINDOWS\\Minidump");
  EXPECT_EQ(collect::expand_windows_variables(root, "%CUDA_PATH%\\bin;%UNSET%;100%"),
            "C:\\CUDA\\v11.8\\bin;%UNSET%;100%");
  EXPECT_EQ(collect::expand_windows_variables(root, "%%%path%"), "%%C:\\bin");
}

TEST(WindowsMachine, WithoutRegistryFactsSayWhy) {
  const platform::SysRoot root = windows_root("/", {}, true);
  EXPECT_EQ(collect::windows_system_root(root), "C:\\Windows");
  const auto text = collect::registry_text(
      root, platform::RegistryRoot::local_machine, "SOFTWARE\\x", "ProductName");
  EXPECT_FALSE(text);
  EXPECT_EQ(text.reason(), "the registry of this machine cannot be read here");
  EXPECT_TRUE(
      collect::registry_subkeys(root, platform::RegistryRoot::current_user, "Software").empty());
}

} // namespace
} // namespace doctor
