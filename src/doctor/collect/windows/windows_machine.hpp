// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>
#include <doctor/platform/registry.hpp>
#include <doctor/platform/sysroot.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Private to collect/windows/: how the Windows collectors read the examined Windows machine. The
// facts hold Windows paths ("C:\\Windows\\System32\\nvcuda.dll"); files are read through the
// SysRoot at the matching inner path, and keys through root.registry(), so the same collectors
// read a live machine and a mounted Windows disk (whose system drive is the root of the tree).
namespace doctor::collect {

// The inner path of the Windows path `path`: "/C:/x/y" on the live machine, "/x/y" for a drive-C:
// path in a mounted disk's tree. nullopt for a relative or UNC path, and for another drive of a
// mounted disk (it is not in the tree).
std::optional<std::string> windows_inner(const platform::SysRoot& root, std::string_view path);

// The Windows path of inner path `inner` (the reverse of windows_inner): "/C:/x/y" and, in a
// mounted disk's tree, "/x/y" become "C:\\x\\y".
std::string windows_outer(const platform::SysRoot& root, std::string_view inner);

// The value of environment variable `name`, looked up without regard to case as Windows does
// ("Path" answers "PATH"); nullopt if unset.
std::optional<std::string> windows_env(const platform::SysRoot& root, std::string_view name);

// `text` with every %NAME% replaced by the variable's value (without regard to case), as
// ExpandEnvironmentStrings does; an unset variable is left as written.
std::string expand_windows_variables(const platform::SysRoot& root, std::string_view text);

// %SystemRoot% of the examined machine: the variable, else the registry's
// CurrentVersion\SystemRoot, else "C:\\Windows".
std::string windows_system_root(const platform::SysRoot& root);

// "<source>:HKLM\\<path>\\<name>": a fact's source for a registry value.
std::string registry_source(const platform::SysRoot& root,
                            platform::RegistryRoot hive,
                            std::string_view path,
                            std::string_view name);

// Why a registry read failed, completing "unknown, because …": no registry at all, the key or
// value not set, or the error's message.
std::string registry_reason(const platform::SysRoot& root,
                            const Error& error,
                            platform::RegistryRoot hive,
                            std::string_view path,
                            std::string_view name);

// The text of a string value (REG_SZ or REG_EXPAND_SZ, unexpanded), or why it is unknown.
facts::Fact<std::string> registry_text(const platform::SysRoot& root,
                                       platform::RegistryRoot hive,
                                       std::string_view path,
                                       std::string_view name);

// The number of a REG_DWORD or REG_QWORD value, or why it is unknown.
facts::Fact<std::uint64_t> registry_number(const platform::SysRoot& root,
                                           platform::RegistryRoot hive,
                                           std::string_view path,
                                           std::string_view name);

// The subkeys of `path`; empty when there is no registry or the key does not exist.
std::vector<std::string>
registry_subkeys(const platform::SysRoot& root, platform::RegistryRoot hive, std::string_view path);

// Lists the Windows directory `dir`: the entries' names, or an error as SysRoot::list_dir gives.
Expected<std::vector<platform::DirEntry>> list_windows_dir(const platform::SysRoot& root,
                                                           std::string_view dir);

// True if the Windows path names an existing directory / regular file.
bool windows_is_dir(const platform::SysRoot& root, std::string_view path);
bool windows_is_file(const platform::SysRoot& root, std::string_view path);

// Reads at most `max_bytes` of the Windows file `path`. Returns an error as SysRoot::read_file
// does, or ErrorCode::not_found for a path outside the examined tree.
Expected<std::string>
read_windows_file(const platform::SysRoot& root, std::string_view path, std::size_t max_bytes);

// The headers of the Windows file `path` (binary_reader.hpp's read_binary), with `path` as its
// path; nullopt if it does not exist or is outside the examined tree.
std::optional<facts::BinaryInfo> read_windows_binary(const platform::SysRoot& root,
                                                     std::string_view path);

// Records `info` in facts.binaries unless a file of the same path (without regard to case) is
// there already.
void add_windows_binary(facts::Facts& facts, facts::BinaryInfo info);

// Records in facts.probed_paths whether the Windows file `path` exists, under its
// windows_path_key (the form the loader model asks with), so that a snapshot answers the loader
// model's question about it again.
void add_windows_probe(const platform::SysRoot& root, facts::Facts& facts, std::string_view path);

} // namespace doctor::collect
