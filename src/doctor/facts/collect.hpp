// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/facts/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <chrono>
#include <filesystem>
#include <string>

namespace doctor::facts {

struct CollectOptions {
  std::string tool_version;
  std::string sysroot_label = "/"; // how the user named the root, for the snapshot
  // Query NVML in an isolated child process (live machine only).
  bool query_nvml = true;
  // The doctor's own executable, re-run as the isolated NVML probe child.
  std::filesystem::path self_executable;
  std::chrono::milliseconds probe_timeout{10000};
  // Fixed "collected_at" value for reproducible output; empty means now.
  std::string collected_at;
};

// Observes the machine behind `root` and returns everything seen. Never throws: a collector that
// fails is recorded in facts.collection.errors (and becomes an internal finding) while the others
// still run.
Facts collect(const platform::SysRoot& root, const CollectOptions& options);

// The collectors, in the order collect() runs them. Each fills its part of `facts` and may read
// what earlier ones filled (CUDA reads conda environments; cuDNN reads toolkits, Python
// environments and the linker's directories).
// Each may throw; collect() is the firewall.
void collect_environment(const platform::SysRoot& root,
                         const CollectOptions& options,
                         Facts& facts);
void collect_os(const platform::SysRoot& root, const CollectOptions& options, Facts& facts);
void collect_linker(const platform::SysRoot& root, const CollectOptions& options, Facts& facts);
void collect_driver(const platform::SysRoot& root, const CollectOptions& options, Facts& facts);
void collect_pci(const platform::SysRoot& root, const CollectOptions& options, Facts& facts);
void collect_nvml(const platform::SysRoot& root, const CollectOptions& options, Facts& facts);
void collect_python(const platform::SysRoot& root, const CollectOptions& options, Facts& facts);
void collect_cuda(const platform::SysRoot& root, const CollectOptions& options, Facts& facts);
void collect_cudnn(const platform::SysRoot& root, const CollectOptions& options, Facts& facts);

// Environment variables that matter to a GPU stack; collect_environment records those that are set.
const std::vector<std::string>& relevant_environment_variables();

} // namespace doctor::facts
