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

// cudnn_checks.cpp: each cuDNN installation is one complete release.
void check_cudnn_sets(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// environment_checks.cpp: several toolkits or cuDNN copies (family 7, colliding environments).
void check_multiple_toolkits(const facts::Facts& facts,
                             const kb::KnowledgeBase& kb,
                             FindingSink& out);
void check_multiple_cudnn(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out);

// internal_checks.cpp: collectors that failed.
void check_collector_errors(const facts::Facts& facts,
                            const kb::KnowledgeBase& kb,
                            FindingSink& out);

} // namespace doctor::checks
