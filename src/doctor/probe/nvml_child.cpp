// SPDX-License-Identifier: MIT
#include <doctor/platform/dynlib.hpp>
#include <doctor/platform/environment.hpp>
#include <doctor/platform/host.hpp>
#include <doctor/platform/privileges.hpp>
#include <doctor/probe/children.hpp>
#include <doctor/probe/nvml_child.hpp>
#include <doctor/probe/nvml_telemetry.hpp>
#include <doctor/probe/symbols.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace doctor::probe {

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

// nvmlProcessInfo_t (= nvmlProcessInfo_v2_t), what the _v3 and _v2 process lists fill; the
// unversioned entry points take the 16-byte nvmlProcessInfo_v1_t and are not used.
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory; // NVML_VALUE_NOT_AVAILABLE (2^64-1) where unknown
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
static_assert(sizeof(NvmlProcessInfo) == 24);

using ProcessList = NvmlReturn (*)(NvmlDevice, unsigned*, NvmlProcessInfo*);

constexpr NvmlReturn k_success = 0;
constexpr NvmlReturn k_insufficient_size = 7; // NVML_ERROR_INSUFFICIENT_SIZE
constexpr unsigned k_max_processes = 256;     // per list; more is reported as a count only

// How long the child waits before it reads a PCIe replay counter again. Only a counter that is
// already above zero is read twice: a link that never replayed since the driver loaded is not
// slowed down for a reading that would show no rise.
constexpr unsigned k_replay_interval_ms = 100;
constexpr unsigned k_text_buffer = 96; // covers every *_BUFFER_SIZE used below
constexpr unsigned k_max_devices = 64; // devices asked about; the collector rejects a larger count

// The address space NVML may map beyond what the child holds when it starts. Measured: see
// docs/architecture.md ("The isolated children").
constexpr std::uint64_t k_nvml_address_space = std::uint64_t{1} << 30;

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
  ProcessList compute_processes = nullptr;
  ProcessList graphics_processes = nullptr;
  NvmlReturn (*replay_counter)(NvmlDevice, unsigned*) = nullptr;
};

// The processes `list` gives for `dev`: [{"pid", "used"}], "used" absent where NVML cannot say;
// {"error": rc} when the call fails, {"more_than": k_max_processes} when they do not fit.
nlohmann::ordered_json processes(ProcessList list, NvmlDevice dev) {
  std::vector<NvmlProcessInfo> infos(k_max_processes);
  unsigned count = k_max_processes;
  const NvmlReturn rc = list(dev, &count, infos.data());
  nlohmann::ordered_json out;
  if (rc == k_insufficient_size) {
    out["more_than"] = k_max_processes;
    return out;
  }
  if (rc != k_success) {
    out["error"] = rc;
    return out;
  }
  out = nlohmann::ordered_json::array();
  for (unsigned i = 0; i < count && i < k_max_processes; ++i) {
    nlohmann::ordered_json p;
    p["pid"] = infos[i].pid;
    if (infos[i].used_gpu_memory != ~0ULL) {
      p["used"] = infos[i].used_gpu_memory;
    }
    out.push_back(p);
  }
  return out;
}

std::string error_text(const NvmlTable& t, NvmlReturn rc) {
  const char* s = t.error_string != nullptr ? t.error_string(rc) : nullptr;
  return s != nullptr ? util::sanitize(s, 200) : fmt::format("NVML error {}", rc);
}

// What NVML wrote into `buf` (`n` bytes, cleared before the call), as it wrote it: the collector
// judges it. The bytes up to the NUL; {"unterminated": n} when NVML filled the whole buffer
// without one (reading on would run past it). Bytes that are not UTF-8 become U+FFFD when the
// report is written, which the collector rejects.
nlohmann::ordered_json text(const char* buf, std::size_t n) {
  const void* nul = std::memchr(buf, '\0', n);
  if (nul == nullptr) {
    nlohmann::ordered_json j;
    j["unterminated"] = n;
    return j;
  }
  return std::string(buf, static_cast<std::size_t>(static_cast<const char*>(nul) - buf));
}

// Calls `query` with a cleared buffer and stores what it wrote under `key` when it succeeds.
template<typename Query>
void text_field(nlohmann::ordered_json& out, const char* key, Query query) {
  char buf[k_text_buffer];
  std::memset(buf, 0, sizeof buf);
  if (query(buf, static_cast<unsigned>(sizeof buf)) == k_success) {
    out[key] = text(buf, sizeof buf);
  }
}

// On Windows the child searches System32 only (platform::confine_child): the driver puts nvml.dll
// there; older drivers kept it in Program Files\NVIDIA Corporation\NVSMI, named by its full path.
std::vector<std::string> library_names() {
  if (platform::host_os() == platform::OsFamily::windows) {
    std::vector<std::string> names{"nvml.dll"};
    const std::optional<std::string> program_files =
        platform::Environment::of_this_process().get("ProgramW6432");
    if (program_files && !program_files->empty()) {
      names.push_back(*program_files + "\\NVIDIA Corporation\\NVSMI\\nvml.dll");
    }
    return names;
  }
  return {"libnvidia-ml.so.1", "libnvidia-ml.so"};
}

nlohmann::ordered_json probe(const ChildInput& /*input*/) {
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
  bind(*lib,
       t.compute_processes,
       {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"},
       symbols);
  bind(*lib,
       t.graphics_processes,
       {"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2"},
       symbols);
  bind(*lib, t.replay_counter, {"nvmlDeviceGetPcieReplayCounter"}, symbols);
  out["symbols"] = symbols;

  // The NVML version query works without a driver; ask it first.
  if (t.system_nvml_version != nullptr) {
    text_field(out, "nvml_version", t.system_nvml_version);
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
  if (t.system_driver_version != nullptr) {
    text_field(out, "driver_version", t.system_driver_version);
  }
  int cuda = 0;
  if (t.system_cuda_driver_version != nullptr && t.system_cuda_driver_version(&cuda) == k_success) {
    out["cuda_driver_version"] = cuda;
  }
  unsigned count = 0;
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  std::vector<std::pair<std::size_t, NvmlDevice>> resample; // devices to read again
  if (t.device_count != nullptr) {
    const NvmlReturn crc = t.device_count(&count);
    if (crc != k_success) {
      out["device_count_error"] = error_text(t, crc);
      count = 0;
    } else {
      out["device_count"] = count;
    }
  }
  for (unsigned i = 0; i < count && i < k_max_devices; ++i) {
    nlohmann::ordered_json d;
    d["index"] = i;
    NvmlDevice dev = nullptr;
    const NvmlReturn hrc = t.device_by_index != nullptr ? t.device_by_index(i, &dev) : -1;
    if (hrc != k_success) {
      d["error"] = error_text(t, hrc);
      devices.push_back(d);
      continue;
    }
    if (t.device_name != nullptr) {
      text_field(d, "name", [&](char* b, unsigned n) { return t.device_name(dev, b, n); });
    }
    if (t.device_uuid != nullptr) {
      text_field(d, "uuid", [&](char* b, unsigned n) { return t.device_uuid(dev, b, n); });
    }
    NvmlPciInfo pci{};
    if (t.device_pci_info != nullptr && t.device_pci_info(dev, &pci) == k_success) {
      d["pci_bus_id"] = text(pci.bus_id, sizeof pci.bus_id);
    }
    int major = 0;
    int minor = 0;
    if (t.device_compute_capability != nullptr
        && t.device_compute_capability(dev, &major, &minor) == k_success) {
      d["compute_capability_major"] = major;
      d["compute_capability_minor"] = minor;
    }
    NvmlMemory mem{};
    if (t.device_memory != nullptr && t.device_memory(dev, &mem) == k_success) {
      d["memory_total"] = mem.total;
      d["memory_free"] = mem.free;
      d["memory_used"] = mem.used;
    }
    if (t.compute_processes != nullptr) {
      d["processes_compute"] = processes(t.compute_processes, dev);
    }
    if (t.graphics_processes != nullptr) {
      d["processes_graphics"] = processes(t.graphics_processes, dev);
    }
    d["telemetry"] = nvml_telemetry(*lib, dev);
    if (d["telemetry"].value("pcie_replay_count", 0U) > 0) {
      resample.emplace_back(devices.size(), dev);
    }
    devices.push_back(d);
  }
  // The replay counter once more, after a pause, where it had counted replays: still rising means
  // the link is replaying now, not only once since the driver loaded.
  if (!resample.empty() && t.replay_counter != nullptr) {
    std::this_thread::sleep_for(std::chrono::milliseconds(k_replay_interval_ms));
    for (const auto& [at, dev] : resample) {
      unsigned later = 0;
      if (t.replay_counter(dev, &later) == k_success) {
        devices[at]["telemetry"]["pcie_replay_count_later"] = later;
        devices[at]["telemetry"]["pcie_replay_interval_ms"] = k_replay_interval_ms;
      }
    }
  }
  out["devices"] = devices;
  if (t.shutdown != nullptr) {
    t.shutdown();
  }
  return out;
}

} // namespace

int run_nvml_child(const ChildInput& input) {
  platform::ConfinementRequest request;
  request.address_space_budget = k_nvml_address_space;
  request.device_prefix = "nvidia";
  return run_confined(request, input, probe);
}

} // namespace doctor::probe
