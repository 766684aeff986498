// SPDX-License-Identifier: MIT
// Where a Windows disk keeps its hives, on every host; reading them is the platform file's part
// (linux/registry_hive_linux.cpp, windows/registry_hive_windows.cpp).
#include <doctor/platform/registry_hive.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace doctor::platform {

namespace {

// Profiles under /Users that belong to no one: their NTUSER.DAT is a template.
bool is_user_profile(std::string_view name) {
  constexpr std::array<std::string_view, 4> k_not_users = {
      "default", "default user", "public", "all users"};
  const std::string lower = util::to_lower(name);
  for (std::string_view n : k_not_users) {
    if (lower == n) {
      return false;
    }
  }
  return true;
}

// The config hive `name` of the Windows directory, or "" with `missing` set.
std::string config_hive(const SysRoot& root,
                        const std::string& windows_dir,
                        std::string_view name,
                        std::string& missing) {
  auto found = root.find_any_case(fmt::format("{}/System32/config/{}", windows_dir, name));
  if (!found) {
    missing = found.error().message;
    return "";
  }
  return *found;
}

} // namespace

HivePaths find_hive_paths(const SysRoot& root, const std::string& windows_dir) {
  HivePaths out;
  out.system = config_hive(root, windows_dir, "SYSTEM", out.system_missing);
  out.software = config_hive(root, windows_dir, "SOFTWARE", out.software_missing);
  auto users = root.find_any_case("/Users");
  auto profiles = users ? root.list_dir(*users) : tl::unexpected(users.error());
  if (!profiles) {
    out.user_missing = profiles.error().message;
    return out;
  }
  std::int64_t newest = 0;
  for (const DirEntry& e : *profiles) {
    if (!is_user_profile(e.name)) {
      continue;
    }
    auto hive = root.find_any_case(*users + "/" + e.name + "/NTUSER.DAT");
    if (!hive) {
      continue;
    }
    auto st = root.stat(*hive);
    if (st && (out.user.empty() || st->mtime_ns > newest)) {
      out.user = *hive;
      newest = st->mtime_ns;
    }
  }
  if (out.user.empty()) {
    out.user_missing = fmt::format("{}: no user profile with an NTUSER.DAT", *users);
  }
  return out;
}

SysRoot open_tree_root(const std::filesystem::path& dir, Environment env) {
  SysRoot linux_tree(dir, env, OsFamily::linux, false);
  const std::optional<std::string> windows = linux_tree.windows_directory();
  if (!windows) {
    return linux_tree;
  }
  SysRoot root(dir, std::move(env), OsFamily::windows, false);
  auto registry = open_hive_registry(root, find_hive_paths(root, *windows));
  if (registry) {
    root.set_registry(std::move(*registry));
  } else {
    root.set_registry_error(
        fmt::format("the registry hives cannot be read: {}", registry.error().message));
  }
  return root;
}

} // namespace doctor::platform
