// SPDX-License-Identifier: MIT
#include "all_checks.hpp"

#include "checks.hpp"

#include <array>

namespace doctor::checks {

namespace {

using Ids = std::string_view;

constexpr Ids k_gpu_presence[] = {"gpu.not_found", "gpu.presence_unknown"};
constexpr Ids k_driver_loaded[] = {"driver.not_loaded"};
constexpr Ids k_nouveau[] = {"driver.nouveau_bound"};
constexpr Ids k_device_nodes[] = {"driver.device_nodes_missing"};
constexpr Ids k_nvml_probe[] = {"driver.nvml_probe_failed"};
constexpr Ids k_cudnn_sets[] = {"cudnn.library_set_incomplete", "cudnn.sublibrary_version_mixed"};
constexpr Ids k_multiple_toolkits[] = {"cuda.multiple_toolkits"};
constexpr Ids k_multiple_cudnn[] = {"cudnn.multiple_copies"};
constexpr Ids k_collector_errors[] = {"internal.collector_failed"};

// The one list of checks. Adding a check means a row here, its function in the family's file,
// and its finding rows in data/kb/findings.json.
const std::array<CheckDef, 9> k_checks = {{
    {"gpu_presence", k_gpu_presence, check_gpu_presence},
    {"driver_loaded", k_driver_loaded, check_driver_loaded},
    {"nouveau", k_nouveau, check_nouveau},
    {"device_nodes", k_device_nodes, check_device_nodes},
    {"nvml_probe", k_nvml_probe, check_nvml_probe},
    {"cudnn_sets", k_cudnn_sets, check_cudnn_sets},
    {"multiple_toolkits", k_multiple_toolkits, check_multiple_toolkits},
    {"multiple_cudnn", k_multiple_cudnn, check_multiple_cudnn},
    {"collector_errors", k_collector_errors, check_collector_errors},
}};

} // namespace

std::span<const CheckDef> all_checks() {
  return k_checks;
}

} // namespace doctor::checks
