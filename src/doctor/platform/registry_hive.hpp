// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/environment.hpp>
#include <doctor/platform/registry.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

// The registry of a Windows disk examined from another system (`--sysroot /mnt/windows`), read
// offline from its hive files with Debian's libhivex (linux/registry_hive_linux.cpp). The Windows
// build has no hive reader: there the open says so.
namespace doctor::platform {

// The largest hive file opened. Real SOFTWARE hives reach a few hundred MB; a larger "hive" is
// not read (libhivex maps the whole file).
inline constexpr std::uint64_t k_max_hive_bytes = std::uint64_t{1} << 30;

// The hive files of a Windows tree, as inner paths; "" where the tree has none, with the reason
// in the matching *_missing field.
struct HivePaths {
  std::string system;   // <Windows>/System32/config/SYSTEM
  std::string software; // <Windows>/System32/config/SOFTWARE
  std::string user;     // the most recently written /Users/<name>/NTUSER.DAT
  std::string system_missing;
  std::string software_missing;
  std::string user_missing;
};

// Finds the hive files of the Windows tree `root` (names matched in any case). HKCU is the
// NTUSER.DAT of the profile written last (Default, Default User, Public and All Users are no
// users).
HivePaths find_hive_paths(const SysRoot& root, const std::string& windows_dir);

// Opens the registry of `root` from `paths`: HKLM\SYSTEM, HKLM\SOFTWARE and HKCU, with
// SYSTEM\CurrentControlSet standing for the control set SYSTEM\Select\Current names. Each hive is
// opened only if it is a regular file of at most k_max_hive_bytes that starts with "regf"; one
// that is missing or unusable (a FIFO, a truncated or foreign file) does not fail the open: every
// read under it returns that error, naming the file, with a code other than not_found (which
// means "no such key or value"). Returns ErrorCode::unsupported on a build without a hive reader.
Expected<std::shared_ptr<const Registry>> open_hive_registry(const SysRoot& root,
                                                             const HivePaths& paths);

// The examined machine of `--sysroot DIR`: a Windows tree (a Windows/System32 folder in any case)
// with its hives as the registry (or registry_error() saying why there is none), or else a Linux
// tree. Never live.
SysRoot open_tree_root(const std::filesystem::path& dir, Environment env);

} // namespace doctor::platform
