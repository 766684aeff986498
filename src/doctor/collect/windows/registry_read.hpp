// SPDX-License-Identifier: MIT
// Private to the Windows collectors: registry values as facts, each with the key it came from
// (platform::Registry::source) or "unknown, because …".
#pragma once

#include <doctor/model/fact.hpp>
#include <doctor/platform/registry.hpp>
#include <doctor/platform/sysroot.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace doctor::collect::windows {

// The key whose PagingFiles value lists the page files (read by the os and the system
// collectors).
inline constexpr std::string_view k_memory_management =
    "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management";

using platform::Registry;
using platform::RegistryRoot;
using platform::RegistryValue;

// Common keys, relative to HKLM.
inline constexpr std::string_view k_control = "SYSTEM\\CurrentControlSet\\Control";
inline constexpr std::string_view k_session_manager =
    "SYSTEM\\CurrentControlSet\\Control\\Session Manager";
inline constexpr std::string_view k_current_version =
    "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";

// The registry of `root`, or nullptr with `reason` saying why there is none.
const Registry* registry_of(const platform::SysRoot& root, std::string& reason);

// The source of value `name` of key `path`: "<key source>\\<name>".
std::string value_source(const Registry& registry,
                         RegistryRoot root,
                         std::string_view path,
                         std::string_view name);

// The text of string value `name` (REG_SZ or REG_EXPAND_SZ, unexpanded) of `path`. Unknown with
// `not_set` when the key or value does not exist, with the registry's error when it cannot be read,
// and "… is not a string" for another type.
facts::Fact<std::string> string_fact(const Registry& registry,
                                     RegistryRoot root,
                                     std::string_view path,
                                     std::string_view name,
                                     std::string_view not_set = "not set");

// The number of DWORD or QWORD value `name` of `path`; unknown as string_fact says.
facts::Fact<std::uint64_t> number_fact(const Registry& registry,
                                       RegistryRoot root,
                                       std::string_view path,
                                       std::string_view name,
                                       std::string_view not_set = "not set");

// The text of string value `name` of `path`, or nullopt when absent, unreadable or no string.
std::optional<std::string> string_value(const Registry& registry,
                                        RegistryRoot root,
                                        std::string_view path,
                                        std::string_view name);

// The Windows form of inner path `inner` of an examined system disk: "/Windows/System32" ->
// "C:\\Windows\\System32" (the disk is the system drive).
std::string windows_path(std::string_view inner);

} // namespace doctor::collect::windows
