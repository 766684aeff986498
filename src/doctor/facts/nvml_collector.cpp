// SPDX-License-Identifier: MIT
#include "collect.hpp"

#include <doctor/nvapi/nvml_probe.hpp>
#include <doctor/platform/process.hpp>

#include <fmt/format.h>

namespace doctor::facts {

namespace {

constexpr std::size_t k_max_probe_output = std::size_t{1024} * 1024;

NvmlInfo not_attempted(const std::string& why) {
  NvmlInfo info;
  info.status = "not_attempted";
  info.detail = why;
  info.library = Fact<std::string>::unknown(why);
  info.init_result = Fact<std::int64_t>::unknown(why);
  info.nvml_version = Fact<std::string>::unknown(why);
  info.driver_version = Fact<std::string>::unknown(why);
  info.cuda_driver_version = Fact<std::string>::unknown(why);
  info.devices = Fact<std::vector<NvmlDevice>>::unknown(why);
  return info;
}

} // namespace

// NVML is vendor code: it runs in a child process (the doctor's own executable with the probe
// argument) with a time limit, so a crash or hang in the driver becomes a fact, not a crash of
// the doctor. Only on the live machine: NVML describes the running kernel's driver, which a
// --sysroot tree does not have.
void collect_nvml(const platform::SysRoot& root, const CollectOptions& options, Facts& facts) {
  if (!root.is_live()) {
    facts.driver.nvml =
        not_attempted("NVML describes the running machine; --sysroot examines files only");
    return;
  }
  if (!options.query_nvml) {
    facts.driver.nvml = not_attempted("NVML queries were turned off (--no-nvml)");
    return;
  }
  if (options.self_executable.empty()) {
    facts.driver.nvml = not_attempted("the doctor's own executable is unknown, so no probe child");
    return;
  }
  auto result =
      platform::run_process({options.self_executable.string(), nvapi::k_nvml_probe_argument},
                            options.probe_timeout,
                            k_max_probe_output);
  if (!result) {
    facts.driver.nvml = not_attempted(
        fmt::format("the NVML probe could not be started: {}", result.error().message));
    facts.driver.nvml.status = "probe_failed";
    return;
  }
  facts.driver.nvml = nvapi::nvml_facts_from_probe(*result);
}

} // namespace doctor::facts
