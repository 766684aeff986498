// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/checks/check.hpp>

// Every check function, one family per file. The registry in all_checks.cpp lists them with the
// ids each emits.
namespace doctor::checks {

// gpu_checks.cpp: is there an NVIDIA GPU at all?
void check_gpu_presence(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// driver_checks.cpp: kernel driver loaded, nouveau, device nodes, NVML health.
void check_driver_loaded(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_nouveau(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_device_nodes(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_nvml_probe(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_driver_version_mismatch(const facts::Facts& facts,
                                   const kb::KnowledgeBase& kb,
                                   FindingSink& out);

// compat_driver_checks.cpp: the driver against what runs on it (family 1, version compatibility).
void check_driver_for_cuda(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out);
void check_gpu_driver_support(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);
void check_gpu_toolkit_support(const facts::Facts& facts,
                               const kb::KnowledgeBase& kb,
                               FindingSink& out);

// compat_build_checks.cpp: framework builds against the cuDNN they load and the GPU they run on.
void check_cudnn_for_framework(const facts::Facts& facts,
                               const kb::KnowledgeBase& kb,
                               FindingSink& out);
void check_gpu_arch(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_tensorflow_windows(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out);

// cudnn_checks.cpp: each cuDNN installation is one complete release.
void check_cudnn_sets(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// environment_checks.cpp: several toolkits or cuDNN copies (family 7, colliding environments).
void check_multiple_toolkits(const facts::Facts& facts,
                             const kb::KnowledgeBase& kb,
                             FindingSink& out);
void check_multiple_cudnn(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// integrity_checks.cpp: files that differ from their package records (--verify), and binaries
// whose headers show structural damage.
void check_integrity_hashes(const facts::Facts& facts,
                            const kb::KnowledgeBase& kb,
                            FindingSink& out);
void check_binary_damage(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// loader_checks.cpp: what the loader model says each framework, dispatcher and program loads.
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

// access_checks.cpp: read/map rights, device nodes, planting risks on the search paths.
void check_library_access(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_device_access(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_search_paths(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);
void check_unsafe_runpaths(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out);

// internal_checks.cpp: collectors that failed.
void check_collector_errors(const facts::Facts& facts,
                            const kb::KnowledgeBase& kb,
                            FindingSink& out);

} // namespace doctor::checks
