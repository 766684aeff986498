// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/nvml_report.hpp>
#include <doctor/platform/process.hpp>
#include <doctor/probe/children.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

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

template<typename T>
Fact<T> from_field(const nlohmann::ordered_json& j,
                   const char* key,
                   const std::string& source,
                   const std::string& missing) {
  if (j.contains(key)) {
    try {
      return Fact<T>::known(j.at(key).get<T>(), source);
    } catch (const nlohmann::ordered_json::exception&) {
      return Fact<T>::unknown(fmt::format("the probe's {} is malformed", key));
    }
  }
  return Fact<T>::unknown(missing);
}

} // namespace

NvmlInfo nvml_facts_from_report(const platform::ProcessResult& result) {
  NvmlInfo info;
  auto fail_all = [&](std::string status, const std::string& detail) {
    info.status = std::move(status);
    info.detail = detail;
    info.library = Fact<std::string>::unknown(detail);
    info.init_result = Fact<std::int64_t>::unknown(detail);
    info.nvml_version = Fact<std::string>::unknown(detail);
    info.driver_version = Fact<std::string>::unknown(detail);
    info.cuda_driver_version = Fact<std::string>::unknown(detail);
    info.devices = Fact<std::vector<NvmlDevice>>::unknown(detail);
    return info;
  };
  if (result.timed_out) {
    return fail_all("probe_failed",
                    "the NVML probe did not answer in time and was killed (a hung driver call)");
  }
  if (result.signaled) {
    return fail_all("probe_failed",
                    fmt::format("the NVML probe crashed (signal or exception {:#x})",
                                static_cast<unsigned>(result.signal)));
  }
  if (!result.exited || result.exit_code != 0) {
    return fail_all("probe_failed",
                    fmt::format("the NVML probe exited with status {}", result.exit_code));
  }
  const auto j = nlohmann::ordered_json::parse(result.out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return fail_all("probe_failed", "the NVML probe printed no readable answer");
  }
  if (j.contains("library_error")) {
    const std::string why =
        fmt::format("NVML cannot be loaded: {}",
                    j["library_error"].is_string() ? j["library_error"].get<std::string>() : "");
    fail_all("library_not_found", why);
    return info;
  }
  const std::string lib = j.value("library", std::string("NVML"));
  info.library = Fact<std::string>::known(lib, "nvml:dlopen");
  info.nvml_version = from_field<std::string>(
      j, "nvml_version", "nvml:nvmlSystemGetNVMLVersion", "nvmlSystemGetNVMLVersion failed");
  if (!j.contains("init") || !j["init"].is_number_integer() || j["init"].get<std::int64_t>() != 0) {
    const std::string err = j.contains("init_error") && j["init_error"].is_string()
                                ? j["init_error"].get<std::string>()
                                : std::string("unknown error");
    info.status = "init_failed";
    if (j.contains("init") && j["init"].is_number_integer()) {
      info.init_result =
          Fact<std::int64_t>::known(j["init"].get<std::int64_t>(), "nvml:nvmlInit_v2");
      info.detail = fmt::format("nvmlInit_v2 returned {} ({})", j["init"].get<std::int64_t>(), err);
    } else {
      info.init_result = Fact<std::int64_t>::unknown(err);
      info.detail = err;
    }
    info.driver_version = Fact<std::string>::unknown(info.detail);
    info.cuda_driver_version = Fact<std::string>::unknown(info.detail);
    info.devices = Fact<std::vector<NvmlDevice>>::unknown(info.detail);
    return info;
  }
  info.status = "ok";
  info.init_result = Fact<std::int64_t>::known(0, "nvml:nvmlInit_v2");
  info.driver_version = from_field<std::string>(
      j, "driver_version", "nvml:nvmlSystemGetDriverVersion", "nvmlSystemGetDriverVersion failed");
  if (j.contains("cuda_driver_version") && j["cuda_driver_version"].is_number_integer()) {
    const auto v = j["cuda_driver_version"].get<std::int64_t>();
    info.cuda_driver_version = Fact<std::string>::known(
        fmt::format("{}.{}", v / 1000, (v % 1000) / 10), "nvml:nvmlSystemGetCudaDriverVersion_v2");
  } else {
    info.cuda_driver_version = Fact<std::string>::unknown("nvmlSystemGetCudaDriverVersion failed");
  }
  std::vector<NvmlDevice> devices;
  if (j.contains("devices") && j["devices"].is_array()) {
    for (const auto& d : j["devices"]) {
      if (!d.is_object()) {
        continue;
      }
      NvmlDevice dev;
      dev.index = d.value("index", 0U);
      const std::string why = d.contains("error") && d["error"].is_string()
                                  ? fmt::format("nvmlDeviceGetHandleByIndex_v2 failed: {}",
                                                d["error"].get<std::string>())
                                  : std::string("NVML did not answer");
      dev.name = from_field<std::string>(d, "name", "nvml:nvmlDeviceGetName", why);
      dev.uuid = from_field<std::string>(d, "uuid", "nvml:nvmlDeviceGetUUID", why);
      dev.pci_bus_id =
          from_field<std::string>(d, "pci_bus_id", "nvml:nvmlDeviceGetPciInfo_v3", why);
      dev.compute_capability = from_field<std::string>(
          d, "compute_capability", "nvml:nvmlDeviceGetCudaComputeCapability", why);
      dev.memory_total =
          from_field<std::uint64_t>(d, "memory_total", "nvml:nvmlDeviceGetMemoryInfo", why);
      dev.memory_free =
          from_field<std::uint64_t>(d, "memory_free", "nvml:nvmlDeviceGetMemoryInfo", why);
      devices.push_back(std::move(dev));
    }
  }
  if (j.contains("device_count_error")) {
    info.devices = Fact<std::vector<NvmlDevice>>::unknown(fmt::format(
        "nvmlDeviceGetCount_v2 failed: {}",
        j["device_count_error"].is_string() ? j["device_count_error"].get<std::string>() : ""));
  } else {
    info.devices =
        Fact<std::vector<NvmlDevice>>::known(std::move(devices), "nvml:nvmlDeviceGetCount_v2");
  }
  return info;
}

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
      probe::run_child("nvml", options.self_executable, options.probe_timeout, k_max_probe_output);
  if (!result) {
    facts.driver.nvml = not_attempted(
        fmt::format("the NVML probe could not be started: {}", result.error().message));
    facts.driver.nvml.status = "probe_failed";
    return;
  }
  facts.driver.nvml = nvml_facts_from_report(*result);
}

} // namespace doctor::collect
