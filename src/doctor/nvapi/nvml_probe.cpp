// SPDX-License-Identifier: MIT
#include "nvml_probe.hpp"

#include <doctor/platform/dynlib.hpp>
#include <doctor/platform/host.hpp>
#include <doctor/platform/privileges.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace doctor::nvapi {

namespace {

// The slice of NVML's C ABI the probe uses (nvml.h, NVML_API_VERSION 11+). Declared here rather
// than including nvml.h: the doctor never links NVML and must build where nvml.h is absent.
using NvmlReturn = int;
using NvmlDevice = void*;

struct NvmlPciInfo { // nvmlPciInfo_t as of nvmlDeviceGetPciInfo_v3
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_sub_system_id;
  char bus_id[32];
};

struct NvmlMemory { // nvmlMemory_t
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

constexpr NvmlReturn k_success = 0;
constexpr unsigned k_text_buffer = 96; // covers every *_BUFFER_SIZE used below

struct NvmlTable {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*system_driver_version)(char*, unsigned) = nullptr;
  NvmlReturn (*system_nvml_version)(char*, unsigned) = nullptr;
  NvmlReturn (*system_cuda_driver_version)(int*) = nullptr;
  NvmlReturn (*device_count)(unsigned*) = nullptr;
  NvmlReturn (*device_by_index)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*device_name)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*device_uuid)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*device_pci_info)(NvmlDevice, NvmlPciInfo*) = nullptr;
  NvmlReturn (*device_compute_capability)(NvmlDevice, int*, int*) = nullptr;
  NvmlReturn (*device_memory)(NvmlDevice, NvmlMemory*) = nullptr;
};

// Looks up the first exported name of `names` (newest versioned symbol first, as nvml.h maps
// nvmlInit to nvmlInit_v2) and records which one was used.
template<typename Fn>
void bind(const platform::DynamicLibrary& lib,
          Fn& slot,
          std::initializer_list<const char*> names,
          nlohmann::ordered_json& symbols) {
  for (const char* name : names) {
    if (void* p = lib.symbol(name)) {
      slot = reinterpret_cast<Fn>(p);
      symbols.push_back(name);
      return;
    }
  }
}

std::string error_text(const NvmlTable& t, NvmlReturn rc) {
  const char* s = t.error_string != nullptr ? t.error_string(rc) : nullptr;
  return s != nullptr ? util::sanitize(s, 200) : fmt::format("NVML error {}", rc);
}

std::vector<std::string> library_names() {
  if (platform::host_os() == platform::OsFamily::windows) {
    return {"nvml.dll"};
  }
  return {"libnvidia-ml.so.1", "libnvidia-ml.so"};
}

nlohmann::ordered_json probe() {
  nlohmann::ordered_json out;
  std::optional<platform::DynamicLibrary> lib;
  std::vector<std::string> errors;
  for (const std::string& name : library_names()) {
    auto opened = platform::DynamicLibrary::open(name);
    if (opened) {
      lib.emplace(std::move(*opened));
      break;
    }
    errors.push_back(util::sanitize(opened.error().message, 300));
  }
  if (!lib) {
    out["library_error"] = util::join(errors, "; ");
    return out;
  }
  out["library"] = lib->path();
  NvmlTable t;
  nlohmann::ordered_json symbols = nlohmann::ordered_json::array();
  bind(*lib, t.init, {"nvmlInit_v2", "nvmlInit"}, symbols);
  bind(*lib, t.shutdown, {"nvmlShutdown"}, symbols);
  bind(*lib, t.error_string, {"nvmlErrorString"}, symbols);
  bind(*lib, t.system_driver_version, {"nvmlSystemGetDriverVersion"}, symbols);
  bind(*lib, t.system_nvml_version, {"nvmlSystemGetNVMLVersion"}, symbols);
  bind(*lib,
       t.system_cuda_driver_version,
       {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"},
       symbols);
  bind(*lib, t.device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}, symbols);
  bind(*lib,
       t.device_by_index,
       {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"},
       symbols);
  bind(*lib, t.device_name, {"nvmlDeviceGetName"}, symbols);
  bind(*lib, t.device_uuid, {"nvmlDeviceGetUUID"}, symbols);
  bind(*lib, t.device_pci_info, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"}, symbols);
  bind(*lib, t.device_compute_capability, {"nvmlDeviceGetCudaComputeCapability"}, symbols);
  bind(*lib, t.device_memory, {"nvmlDeviceGetMemoryInfo"}, symbols);
  out["symbols"] = symbols;

  char buf[k_text_buffer] = {};
  // The NVML version query works without a driver; ask it first.
  if (t.system_nvml_version != nullptr && t.system_nvml_version(buf, sizeof buf) == k_success) {
    out["nvml_version"] = util::sanitize(buf, 80);
  }
  if (t.init == nullptr) {
    out["init_error"] = "the library exports neither nvmlInit_v2 nor nvmlInit";
    return out;
  }
  const NvmlReturn rc = t.init();
  out["init"] = rc;
  if (rc != k_success) {
    out["init_error"] = error_text(t, rc);
    return out;
  }
  if (t.system_driver_version != nullptr && t.system_driver_version(buf, sizeof buf) == k_success) {
    out["driver_version"] = util::sanitize(buf, 80);
  }
  int cuda = 0;
  if (t.system_cuda_driver_version != nullptr && t.system_cuda_driver_version(&cuda) == k_success) {
    out["cuda_driver_version"] = cuda;
  }
  unsigned count = 0;
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  if (t.device_count != nullptr) {
    const NvmlReturn crc = t.device_count(&count);
    if (crc != k_success) {
      out["device_count_error"] = error_text(t, crc);
      count = 0;
    }
  }
  for (unsigned i = 0; i < count && i < 64; ++i) {
    nlohmann::ordered_json d;
    d["index"] = i;
    NvmlDevice dev = nullptr;
    const NvmlReturn hrc = t.device_by_index != nullptr ? t.device_by_index(i, &dev) : -1;
    if (hrc != k_success) {
      d["error"] = error_text(t, hrc);
      devices.push_back(d);
      continue;
    }
    if (t.device_name != nullptr && t.device_name(dev, buf, sizeof buf) == k_success) {
      d["name"] = util::sanitize(buf, 96);
    }
    if (t.device_uuid != nullptr && t.device_uuid(dev, buf, sizeof buf) == k_success) {
      d["uuid"] = util::sanitize(buf, 96);
    }
    NvmlPciInfo pci{};
    if (t.device_pci_info != nullptr && t.device_pci_info(dev, &pci) == k_success) {
      pci.bus_id[sizeof pci.bus_id - 1] = '\0';
      d["pci_bus_id"] = util::sanitize(pci.bus_id, 32);
    }
    int major = 0;
    int minor = 0;
    if (t.device_compute_capability != nullptr
        && t.device_compute_capability(dev, &major, &minor) == k_success) {
      d["compute_capability"] = fmt::format("{}.{}", major, minor);
    }
    NvmlMemory mem{};
    if (t.device_memory != nullptr && t.device_memory(dev, &mem) == k_success) {
      d["memory_total"] = mem.total;
      d["memory_free"] = mem.free;
    }
    devices.push_back(d);
  }
  out["devices"] = devices;
  if (t.shutdown != nullptr) {
    t.shutdown();
  }
  return out;
}

template<typename T>
facts::Fact<T> from_field(const nlohmann::ordered_json& j,
                          const char* key,
                          const std::string& source,
                          const std::string& missing) {
  if (j.contains(key)) {
    try {
      return facts::Fact<T>::known(j.at(key).get<T>(), source);
    } catch (const nlohmann::ordered_json::exception&) {
      return facts::Fact<T>::unknown(fmt::format("the probe's {} is malformed", key));
    }
  }
  return facts::Fact<T>::unknown(missing);
}

} // namespace

int run_nvml_probe_child() {
  platform::drop_machine_changing_privileges();
  const std::string text =
      probe().dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return 0;
}

facts::NvmlInfo nvml_facts_from_probe(const platform::ProcessResult& result) {
  facts::NvmlInfo info;
  auto fail_all = [&](std::string status, const std::string& detail) {
    info.status = std::move(status);
    info.detail = detail;
    info.library = facts::Fact<std::string>::unknown(detail);
    info.init_result = facts::Fact<std::int64_t>::unknown(detail);
    info.nvml_version = facts::Fact<std::string>::unknown(detail);
    info.driver_version = facts::Fact<std::string>::unknown(detail);
    info.cuda_driver_version = facts::Fact<std::string>::unknown(detail);
    info.devices = facts::Fact<std::vector<facts::NvmlDevice>>::unknown(detail);
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
  info.library = facts::Fact<std::string>::known(lib, "nvml:dlopen");
  info.nvml_version = from_field<std::string>(
      j, "nvml_version", "nvml:nvmlSystemGetNVMLVersion", "nvmlSystemGetNVMLVersion failed");
  if (!j.contains("init") || !j["init"].is_number_integer() || j["init"].get<std::int64_t>() != 0) {
    const std::string err = j.contains("init_error") && j["init_error"].is_string()
                                ? j["init_error"].get<std::string>()
                                : std::string("unknown error");
    info.status = "init_failed";
    if (j.contains("init") && j["init"].is_number_integer()) {
      info.init_result =
          facts::Fact<std::int64_t>::known(j["init"].get<std::int64_t>(), "nvml:nvmlInit_v2");
      info.detail = fmt::format("nvmlInit_v2 returned {} ({})", j["init"].get<std::int64_t>(), err);
    } else {
      info.init_result = facts::Fact<std::int64_t>::unknown(err);
      info.detail = err;
    }
    info.driver_version = facts::Fact<std::string>::unknown(info.detail);
    info.cuda_driver_version = facts::Fact<std::string>::unknown(info.detail);
    info.devices = facts::Fact<std::vector<facts::NvmlDevice>>::unknown(info.detail);
    return info;
  }
  info.status = "ok";
  info.init_result = facts::Fact<std::int64_t>::known(0, "nvml:nvmlInit_v2");
  info.driver_version = from_field<std::string>(
      j, "driver_version", "nvml:nvmlSystemGetDriverVersion", "nvmlSystemGetDriverVersion failed");
  if (j.contains("cuda_driver_version") && j["cuda_driver_version"].is_number_integer()) {
    const auto v = j["cuda_driver_version"].get<std::int64_t>();
    info.cuda_driver_version = facts::Fact<std::string>::known(
        fmt::format("{}.{}", v / 1000, (v % 1000) / 10), "nvml:nvmlSystemGetCudaDriverVersion_v2");
  } else {
    info.cuda_driver_version =
        facts::Fact<std::string>::unknown("nvmlSystemGetCudaDriverVersion failed");
  }
  std::vector<facts::NvmlDevice> devices;
  if (j.contains("devices") && j["devices"].is_array()) {
    for (const auto& d : j["devices"]) {
      if (!d.is_object()) {
        continue;
      }
      facts::NvmlDevice dev;
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
    info.devices = facts::Fact<std::vector<facts::NvmlDevice>>::unknown(fmt::format(
        "nvmlDeviceGetCount_v2 failed: {}",
        j["device_count_error"].is_string() ? j["device_count_error"].get<std::string>() : ""));
  } else {
    info.devices = facts::Fact<std::vector<facts::NvmlDevice>>::known(std::move(devices),
                                                                      "nvml:nvmlDeviceGetCount_v2");
  }
  return info;
}

} // namespace doctor::nvapi
