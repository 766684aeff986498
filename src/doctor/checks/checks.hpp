// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/checks/check.hpp>

// Every check function, one file per family of the troubleshooting guide (a finding's family is
// in findings.json). The registry in all_checks.cpp lists them with the ids each emits.
namespace doctor::checks {

// versions.cpp (family 1, version compatibility, library side): framework builds against the
// cuDNN they load and the GPU they run on; one cuDNN directory, one release.
void check_cudnn_for_framework(const facts::Facts& facts,
                               const kb::KnowledgeBase& kb,
                               FindingSink& out);
void check_gpu_arch(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_tensorflow_windows(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);
void check_cudnn_mixed_releases(const facts::Facts& facts,
                                const kb::KnowledgeBase& kb,
                                FindingSink& out);

// versions_driver.cpp (family 1, driver side): the driver against what runs on it, the GPU
// against the driver branch and the toolkits.
void check_driver_for_cuda(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out);
void check_gpu_driver_support(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);
void check_gpu_toolkit_support(const facts::Facts& facts,
                               const kb::KnowledgeBase& kb,
                               FindingSink& out);

// driver_conflicts.cpp (family 2): is there an NVIDIA GPU, and which driver serves it: kernel
// module loaded, nouveau, module and user-space libraries of one release, libcuda on the loader
// path, NVML health.
void check_gpu_presence(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_driver_loaded(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_nouveau(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_driver_version_mismatch(const facts::Facts& facts,
                                   const kb::KnowledgeBase& kb,
                                   FindingSink& out);
void check_driver_library(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_nvml_probe(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// damaged_files.cpp (family 3): cuDNN installations missing a library, files that differ from
// their package records (--verify), binaries whose headers show structural damage.
void check_cudnn_completeness(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);
void check_integrity_hashes(const facts::Facts& facts,
                            const kb::KnowledgeBase& kb,
                            FindingSink& out);
void check_binary_damage(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// access_security.cpp (family 4): read/map rights, device nodes, planting risks on the search
// paths.
void check_library_access(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_device_nodes(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_device_access(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_search_paths(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_unsafe_runpaths(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out);

// resources.cpp (family 5): host memory (RAM and swap or page file) against the GPU memory.
void check_host_memory(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
// A GPU with less than a tenth of its memory free, and the processes NVML says hold it.
void check_gpu_memory_held(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out);

// colliding_environments.cpp (family 7): several toolkits or cuDNN copies, and what the loader
// model says each framework, dispatcher and program loads from them.
void check_multiple_toolkits(const facts::Facts& facts,
                             const kb::KnowledgeBase& kb,
                             FindingSink& out);
void check_multiple_cudnn(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_loader_not_found(const facts::Facts& facts,
                            const kb::KnowledgeBase& kb,
                            FindingSink& out);
void check_loader_cudnn_split(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);
void check_loader_shadowed(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out);
void check_loader_stub(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// windows_loader.cpp (family 4, colliding environments, on Windows): the Windows loader model's
// DLLs not found, of another architecture, or copied into a Windows system directory.
void check_windows_loader(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_windows_system_dir_copy(const facts::Facts& facts,
                                   const kb::KnowledgeBase& kb,
                                   FindingSink& out);

// windows_display.cpp (Windows registry facts): the generic display driver standing in for the
// NVIDIA one, old driver packages in the driver store, a registry PATH this console lacks.
void check_windows_basic_display(const facts::Facts& facts,
                                 const kb::KnowledgeBase& kb,
                                 FindingSink& out);
void check_windows_driver_residue(const facts::Facts& facts,
                                  const kb::KnowledgeBase& kb,
                                  FindingSink& out);
void check_windows_registry_path(const facts::Facts& facts,
                                 const kb::KnowledgeBase& kb,
                                 FindingSink& out);
// Hybrid graphics with a Python interpreter set to the power-saving GPU (windows_display.cpp).
void check_windows_hybrid_graphics(const facts::Facts& facts,
                                   const kb::KnowledgeBase& kb,
                                   FindingSink& out);

// windows_access.cpp (families 4 and 3, on a live Windows machine's file access facts): a DLL
// this user may not read or execute, a DLL with the Mark of the Web, an NVIDIA DLL whose
// Authenticode signature does not verify.
void check_windows_file_access(const facts::Facts& facts,
                               const kb::KnowledgeBase& kb,
                               FindingSink& out);
void check_windows_signatures(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);

// windows_services.cpp (Windows services and installed programs): the NVIDIA display driver's
// kernel service disabled or missing, a driver install half done, a CUDA toolkit deleted by hand.
void check_windows_driver_service(const facts::Facts& facts,
                                  const kb::KnowledgeBase& kb,
                                  FindingSink& out);
void check_windows_driver_install(const facts::Facts& facts,
                                  const kb::KnowledgeBase& kb,
                                  FindingSink& out);
void check_windows_stale_toolkit(const facts::Facts& facts,
                                 const kb::KnowledgeBase& kb,
                                 FindingSink& out);

// os_updates.cpp (family 8): a kernel update that left the NVIDIA driver without a module.
void check_module_for_kernel(const facts::Facts& facts,
                             const kb::KnowledgeBase& kb,
                             FindingSink& out);

// True if the running kernel has no NVIDIA module while another kernel or DKMS has one (what
// module_for_kernel reports; driver_loaded leaves such a machine to it).
bool module_missing_for_kernel(const facts::Facts& facts);

// internal.cpp: collectors that failed.
void check_collector_errors(const facts::Facts& facts,
                            const kb::KnowledgeBase& kb,
                            FindingSink& out);

// probe_results.cpp (families 2 and 7, from the isolated probes' facts): a child that crashed,
// hung or could not load its library; the driver API's cuInit and contexts; cuDNN's and cuBLAS's
// handles.
void check_probe_children(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_probe_loading(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_probe_cuda_stub(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out);
void check_probe_cuda(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_probe_cudnn(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_probe_cublas(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// unstable_hardware.cpp (family 6): a GPU that computes wrong results; NVML's telemetry: clocks or
// power limit above the defaults, slowdowns for heat or power, memory errors, a narrow PCIe link,
// a rising replay counter, persistence mode off on a Linux server.
void check_gpu_state(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_probe_computations(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);

// host_hardware.cpp (family 6, the host): memory errors the memory controllers counted (EDAC),
// disks whose SMART data says they fail (smartctl, from `probe`).
void check_host_memory_errors(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);
void check_disk_health(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_whea_errors(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_machine_checks(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
// stress_results.cpp (family 6): what `stress` found (facts.stress): memory errors with address
// and bit, GEMM results that differ between runs or from the CPU, a crash or hang during the run,
// the reason it could not run, bandwidth far below the peak, a slowdown during the run.
void check_stress_results(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

} // namespace doctor::checks
