// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/collect/collect.hpp>

// The collectors of a Windows system, reading its registry through platform::Registry (offline
// from the hives of a mounted disk, or live) and its files through the SysRoot. collect.cpp runs
// them from its Windows table. Each fills its part of facts.windows, every fact with its source
// (the hive file and key) or "unknown, because …"; each may throw (collect() is the firewall).
namespace doctor::collect {

// OS edition, version and build, %SystemRoot%, KnownDLLs and SafeDllSearchMode
// (system_collector.cpp).
void collect_windows_os(const platform::SysRoot& root,
                        const CollectOptions& options,
                        facts::Facts& facts);

// The page files (Memory Management\PagingFiles) (system_collector.cpp).
void collect_windows_memory(const platform::SysRoot& root,
                            const CollectOptions& options,
                            facts::Facts& facts);

// PATH as the machine (Session Manager\Environment) and the user (HKCU\Environment) keys define
// it (system_collector.cpp).
void collect_windows_environment(const platform::SysRoot& root,
                                 const CollectOptions& options,
                                 facts::Facts& facts);

// TDR settings (GraphicsDrivers) and crash dump settings (CrashControl) (system_collector.cpp).
void collect_windows_crash_settings(const platform::SysRoot& root,
                                    const CollectOptions& options,
                                    facts::Facts& facts);

// Display adapters from the display class key, NVIDIA driver packages in the driver store and
// the per-application GPU preferences (display_collector.cpp).
void collect_windows_display(const platform::SysRoot& root,
                             const CollectOptions& options,
                             facts::Facts& facts);

// PEP 514 Python registrations (HKCU, HKLM and its 32-bit view) and the installed VC++
// redistributables (software_collector.cpp).
void collect_windows_software(const platform::SysRoot& root,
                              const CollectOptions& options,
                              facts::Facts& facts);

// The GPU services under HKLM\SYSTEM\CurrentControlSet\Services: nvlddmkm, the NVIDIA display
// container, and services whose ImagePath lies in an NVIDIA driver folder (services_collector.cpp).
void collect_windows_services(const platform::SysRoot& root,
                              const CollectOptions& options,
                              facts::Facts& facts);

// The Uninstall entries of the GPU stack (NVIDIA, Python, conda, VC++ redistributables) from HKLM,
// its WOW6432Node view and HKCU, and whether each CUDA_PATH_V<major>_<minor> folder exists
// (programs_collector.cpp).
void collect_windows_programs(const platform::SysRoot& root,
                              const CollectOptions& options,
                              facts::Facts& facts);

} // namespace doctor::collect
