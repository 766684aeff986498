// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>
#include <doctor/util/error.hpp>

#include <array>
#include <string_view>

// The closed sets of the snapshot's enumerated fields (docs/snapshot.md): every value a collector
// writes, and all that the checks know how to judge. A value outside its set would not be judged
// at all (a check for Linux skips an `os_family` of "Linux"), so a snapshot holding one is refused.
namespace doctor::facts {

// collection.os_family
inline constexpr std::array<std::string_view, 2> k_os_families = {"linux", "windows"};
// driver.kernel_module_type
inline constexpr std::array<std::string_view, 2> k_kernel_module_types = {"open", "proprietary"};
// driver.libraries[].name
inline constexpr std::array<std::string_view, 2> k_driver_library_names = {"libcuda",
                                                                           "libnvidia-ml"};
// driver.nvml.status
inline constexpr std::array<std::string_view, 5> k_nvml_statuses = {
    "ok", "not_attempted", "library_not_found", "init_failed", "probe_failed"};
// driver.device_nodes[].kind, probed_paths[].kind (which is also "" for a path that is not there)
inline constexpr std::array<std::string_view, 8> k_file_kinds = {"regular",
                                                                 "directory",
                                                                 "symlink",
                                                                 "character_device",
                                                                 "block_device",
                                                                 "fifo",
                                                                 "socket",
                                                                 "other"};
// python_envs[].kind
inline constexpr std::array<std::string_view, 5> k_python_env_kinds = {
    "venv", "conda", "pyenv", "system", "store"};
// python_envs[].frameworks[].name
inline constexpr std::array<std::string_view, 5> k_framework_names = {
    "torch", "tensorflow", "jax", "paddle", "onnxruntime"};
// binaries[].format
inline constexpr std::array<std::string_view, 3> k_binary_formats = {"elf", "pe", "unknown"};
// binaries[].bits (0: not read)
inline constexpr std::array<unsigned, 3> k_binary_bits = {0, 32, 64};
// integrity.files[].manager
inline constexpr std::array<std::string_view, 3> k_package_managers = {"pip", "conda", "dpkg"};
// integrity.files[].algorithm
inline constexpr std::array<std::string_view, 2> k_digest_algorithms = {"sha256", "md5"};
// binaries[].read_error (when not empty) and unreadable[].error: util::to_string(ErrorCode).
inline constexpr std::array<std::string_view, 13> k_error_codes = {"not_found",
                                                                   "permission_denied",
                                                                   "io",
                                                                   "parse",
                                                                   "invalid_argument",
                                                                   "unsupported",
                                                                   "timeout",
                                                                   "crashed",
                                                                   "too_large",
                                                                   "symlink_loop",
                                                                   "not_regular",
                                                                   "resource",
                                                                   "internal"};
// windows.installed_programs[].view
inline constexpr std::array<std::string_view, 3> k_program_views = {"HKLM", "HKLM32", "HKCU"};
// windows.installed_programs[].kind: the rule of programs_collector.cpp's table that kept it
inline constexpr std::array<std::string_view, 8> k_program_kinds = {
    "nvidia_driver", "cuda", "cudnn", "nsight", "nvidia_other", "python", "conda", "vc_redist"};

// Returns an error naming the first enumerated field whose value is outside its set
// ("collection.os_family: \"Linux\" is not one of linux, windows").
Expected<void> check_values(const Facts& facts);

} // namespace doctor::facts
