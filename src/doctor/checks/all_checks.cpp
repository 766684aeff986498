// SPDX-License-Identifier: MIT
#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/checks.hpp>

namespace doctor::checks {

namespace {

namespace emits = kb::emitted_by;

// The one list of checks, by family (each family's checks live in the file named after it).
// Adding a check means a row here, its function in its family's file, and its finding rows in
// data/kb/findings.json with "check" set to the row's name: the build turns those rows into
// emits::k_<name>.
constexpr CheckDef k_checks[] = {
    // versions.cpp, versions_driver.cpp
    {"driver_for_cuda", emits::k_driver_for_cuda, check_driver_for_cuda},
    {"gpu_driver_support", emits::k_gpu_driver_support, check_gpu_driver_support},
    {"gpu_toolkit_support", emits::k_gpu_toolkit_support, check_gpu_toolkit_support},
    {"cudnn_for_framework", emits::k_cudnn_for_framework, check_cudnn_for_framework},
    {"gpu_arch", emits::k_gpu_arch, check_gpu_arch},
    {"tensorflow_windows", emits::k_tensorflow_windows, check_tensorflow_windows},
    {"cudnn_mixed_releases", emits::k_cudnn_mixed_releases, check_cudnn_mixed_releases},
    // driver_conflicts.cpp
    {"gpu_presence", emits::k_gpu_presence, check_gpu_presence},
    {"driver_loaded", emits::k_driver_loaded, check_driver_loaded},
    {"nouveau", emits::k_nouveau, check_nouveau},
    {"driver_mismatch", emits::k_driver_mismatch, check_driver_version_mismatch},
    {"driver_library", emits::k_driver_library, check_driver_library},
    {"nvml_probe", emits::k_nvml_probe, check_nvml_probe},
    // damaged_files.cpp
    {"cudnn_completeness", emits::k_cudnn_completeness, check_cudnn_completeness},
    {"integrity_hashes", emits::k_integrity_hashes, check_integrity_hashes},
    {"binary_damage", emits::k_binary_damage, check_binary_damage},
    // access_security.cpp
    {"library_access", emits::k_library_access, check_library_access},
    {"device_nodes", emits::k_device_nodes, check_device_nodes},
    {"device_access", emits::k_device_access, check_device_access},
    {"search_paths", emits::k_search_paths, check_search_paths},
    {"unsafe_runpaths", emits::k_unsafe_runpaths, check_unsafe_runpaths},
    // resources.cpp
    {"host_memory", emits::k_host_memory, check_host_memory},
    {"gpu_memory_held", emits::k_gpu_memory_held, check_gpu_memory_held},
    // colliding_environments.cpp
    {"multiple_toolkits", emits::k_multiple_toolkits, check_multiple_toolkits},
    {"multiple_cudnn", emits::k_multiple_cudnn, check_multiple_cudnn},
    {"loader_not_found", emits::k_loader_not_found, check_loader_not_found},
    {"loader_cudnn_split", emits::k_loader_cudnn_split, check_loader_cudnn_split},
    {"loader_shadowed", emits::k_loader_shadowed, check_loader_shadowed},
    {"loader_stub", emits::k_loader_stub, check_loader_stub},
    // windows_loader.cpp
    {"windows_loader", emits::k_windows_loader, check_windows_loader},
    {"windows_system_dir_copy", emits::k_windows_system_dir_copy, check_windows_system_dir_copy},
    // windows_display.cpp
    {"windows_basic_display", emits::k_windows_basic_display, check_windows_basic_display},
    {"windows_driver_residue", emits::k_windows_driver_residue, check_windows_driver_residue},
    {"windows_registry_path", emits::k_windows_registry_path, check_windows_registry_path},
    {"windows_hybrid_graphics", emits::k_windows_hybrid_graphics, check_windows_hybrid_graphics},
    // windows_access.cpp
    {"windows_file_access", emits::k_windows_file_access, check_windows_file_access},
    {"windows_signatures", emits::k_windows_signatures, check_windows_signatures},
    // windows_services.cpp
    {"windows_driver_service", emits::k_windows_driver_service, check_windows_driver_service},
    {"windows_driver_install", emits::k_windows_driver_install, check_windows_driver_install},
    {"windows_stale_toolkit", emits::k_windows_stale_toolkit, check_windows_stale_toolkit},
    // probe_results.cpp
    {"probe_children", emits::k_probe_children, check_probe_children},
    {"probe_loading", emits::k_probe_loading, check_probe_loading},
    {"probe_cuda_stub", emits::k_probe_cuda_stub, check_probe_cuda_stub},
    {"probe_cuda", emits::k_probe_cuda, check_probe_cuda},
    {"probe_cudnn", emits::k_probe_cudnn, check_probe_cudnn},
    {"probe_cublas", emits::k_probe_cublas, check_probe_cublas},
    // unstable_hardware.cpp
    {"probe_computations", emits::k_probe_computations, check_probe_computations},
    {"gpu_state", emits::k_gpu_state, check_gpu_state},
    // host_hardware.cpp
    {"host_memory_errors", emits::k_host_memory_errors, check_host_memory_errors},
    {"probe_disk_health", emits::k_probe_disk_health, check_disk_health},
    {"probe_whea_errors", emits::k_probe_whea_errors, check_whea_errors},
    {"probe_machine_checks", emits::k_probe_machine_checks, check_machine_checks},
    // stress_results.cpp
    {"stress_results", emits::k_stress_results, check_stress_results},
    // os_updates.cpp
    {"module_for_kernel", emits::k_module_for_kernel, check_module_for_kernel},
    // internal.cpp
    {"collector_errors", emits::k_collector_errors, check_collector_errors},
};

} // namespace

std::span<const CheckDef> all_checks() {
  return k_checks;
}

} // namespace doctor::checks
