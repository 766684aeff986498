// SPDX-License-Identifier: MIT
#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/checks.hpp>

#include <array>

namespace doctor::checks {

namespace {

using Ids = std::string_view;

constexpr Ids k_gpu_presence[] = {"gpu.not_found", "gpu.presence_unknown"};
constexpr Ids k_driver_loaded[] = {"driver.not_loaded", "driver.module_missing_for_kernel"};
constexpr Ids k_driver_mismatch[] = {"driver.version_mismatch"};
constexpr Ids k_driver_for_cuda[] = {"compat.driver_too_old", "compat.driver_minor_compat_only"};
constexpr Ids k_gpu_driver_support[] = {"compat.gpu_dropped_by_driver",
                                        "compat.gpu_needs_newer_driver",
                                        "compat.gpu_needs_open_module"};
constexpr Ids k_gpu_toolkit_support[] = {"compat.gpu_unsupported_by_toolkit"};
constexpr Ids k_cudnn_for_framework[] = {
    "compat.cudnn_major_mismatch", "compat.cudnn_older_than_build", "compat.cudnn_cuda_mismatch"};
constexpr Ids k_gpu_arch[] = {"compat.gpu_arch_not_in_build", "compat.gpu_below_cudnn_minimum"};
constexpr Ids k_tensorflow_windows[] = {"compat.tensorflow_windows_no_gpu"};
constexpr Ids k_nouveau[] = {"driver.nouveau_bound"};
constexpr Ids k_device_nodes[] = {"driver.device_nodes_missing"};
constexpr Ids k_nvml_probe[] = {"driver.nvml_probe_failed"};
constexpr Ids k_cudnn_sets[] = {"cudnn.library_set_incomplete", "cudnn.sublibrary_version_mixed"};
constexpr Ids k_multiple_toolkits[] = {"cuda.multiple_toolkits"};
constexpr Ids k_multiple_cudnn[] = {"cudnn.multiple_copies"};
constexpr Ids k_loader_not_found[] = {"loader.cudnn_not_found",
                                      "loader.cudnn_sublibrary_not_found",
                                      "loader.cuda_library_not_found",
                                      "loader.cudnn_dependency_not_found",
                                      "loader.zlib_not_found",
                                      "loader.libcuda_not_found"};
constexpr Ids k_loader_split[] = {"loader.cudnn_set_split"};
constexpr Ids k_loader_shadowed[] = {"loader.shadowed_copy"};
constexpr Ids k_loader_stub[] = {"loader.stub_libcuda"};
constexpr Ids k_library_access[] = {
    "permission.library_unreadable", "permission.noexec_mount", "security.world_writable_library"};
constexpr Ids k_device_access[] = {"permission.device_nodes"};
constexpr Ids k_search_paths[] = {"security.writable_search_dir", "security.ld_preload"};
constexpr Ids k_unsafe_runpaths[] = {"security.unsafe_runpath"};
constexpr Ids k_integrity_hashes[] = {"integrity.hash_mismatch"};
constexpr Ids k_binary_damage[] = {"integrity.binary_damaged"};
constexpr Ids k_collector_errors[] = {"internal.collector_failed"};

// The one list of checks. Adding a check means a row here, its function in the family's file,
// and its finding rows in data/kb/findings.json.
const std::array<CheckDef, 26> k_checks = {{
    {"gpu_presence", k_gpu_presence, check_gpu_presence},
    {"driver_loaded", k_driver_loaded, check_driver_loaded},
    {"nouveau", k_nouveau, check_nouveau},
    {"device_nodes", k_device_nodes, check_device_nodes},
    {"nvml_probe", k_nvml_probe, check_nvml_probe},
    {"driver_mismatch", k_driver_mismatch, check_driver_version_mismatch},
    {"driver_for_cuda", k_driver_for_cuda, check_driver_for_cuda},
    {"gpu_driver_support", k_gpu_driver_support, check_gpu_driver_support},
    {"gpu_toolkit_support", k_gpu_toolkit_support, check_gpu_toolkit_support},
    {"cudnn_for_framework", k_cudnn_for_framework, check_cudnn_for_framework},
    {"gpu_arch", k_gpu_arch, check_gpu_arch},
    {"tensorflow_windows", k_tensorflow_windows, check_tensorflow_windows},
    {"cudnn_sets", k_cudnn_sets, check_cudnn_sets},
    {"multiple_toolkits", k_multiple_toolkits, check_multiple_toolkits},
    {"multiple_cudnn", k_multiple_cudnn, check_multiple_cudnn},
    {"loader_not_found", k_loader_not_found, check_loader_not_found},
    {"loader_cudnn_split", k_loader_split, check_loader_cudnn_split},
    {"loader_shadowed", k_loader_shadowed, check_loader_shadowed},
    {"loader_stub", k_loader_stub, check_loader_stub},
    {"library_access", k_library_access, check_library_access},
    {"device_access", k_device_access, check_device_access},
    {"search_paths", k_search_paths, check_search_paths},
    {"unsafe_runpaths", k_unsafe_runpaths, check_unsafe_runpaths},
    {"integrity_hashes", k_integrity_hashes, check_integrity_hashes},
    {"binary_damage", k_binary_damage, check_binary_damage},
    {"collector_errors", k_collector_errors, check_collector_errors},
}};

} // namespace

std::span<const CheckDef> all_checks() {
  return k_checks;
}

} // namespace doctor::checks
