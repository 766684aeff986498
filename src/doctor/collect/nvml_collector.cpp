// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/nvml_report.hpp>
#include <doctor/collect/read_limits.hpp>
#include <doctor/platform/process.hpp>
#include <doctor/probe/children.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using Json = nlohmann::ordered_json;

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
  info.child = Fact<ProbeChild>::unknown(why);
  return info;
}

// What NVML may answer, checked in the parent: the child runs the vendor library, so everything
// it reports is untrusted input. A rejected value is never kept, only why it was rejected.
enum class TextKind {
  version,    // "570.86.15", "12.570.86.15": digits separated by single dots
  name,       // "NVIDIA H100 80GB HBM3": printable ASCII, not blank
  uuid,       // "GPU-5a4b3c2d-…", "MIG-…": the prefix, then hex digits and dashes
  pci_bus_id, // "00000000:18:00.0": domain:bus:device.function in hex
};

constexpr std::size_t k_max_text = 95;                         // NVML's buffers are 96 bytes
constexpr std::uint64_t k_max_memory = std::uint64_t{1} << 50; // 1 PiB: no GPU comes near
constexpr std::int64_t k_max_devices = 64;                     // what the child asks about

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool hex_run(std::string_view s, std::size_t min, std::size_t max) {
  return s.size() >= min && s.size() <= max && std::all_of(s.begin(), s.end(), is_hex);
}

bool is_version(std::string_view s) {
  bool digit_before = false;
  for (const char c : s) {
    if (c == '.' ? !digit_before : (c < '0' || c > '9')) {
      return false;
    }
    digit_before = c != '.';
  }
  return digit_before;
}

bool is_uuid(std::string_view s) {
  if (!s.starts_with("GPU-") && !s.starts_with("MIG-")) {
    return false;
  }
  const std::string_view rest = s.substr(4);
  return !rest.empty()
         && std::all_of(rest.begin(), rest.end(), [](char c) { return is_hex(c) || c == '-'; });
}

bool is_pci_bus_id(std::string_view s) {
  const auto c1 = s.find(':');
  if (c1 == std::string_view::npos) {
    return false;
  }
  const auto c2 = s.find(':', c1 + 1);
  if (c2 == std::string_view::npos) {
    return false;
  }
  const auto dot = s.find('.', c2 + 1);
  return dot != std::string_view::npos && hex_run(s.substr(0, c1), 4, 8)
         && hex_run(s.substr(c1 + 1, c2 - c1 - 1), 2, 2)
         && hex_run(s.substr(c2 + 1, dot - c2 - 1), 2, 2) && s.size() == dot + 2
         && s[dot + 1] >= '0' && s[dot + 1] <= '7';
}

// Returns why `s` is not a plausible value of `kind`, or an empty string.
std::string text_problem(std::string_view s, TextKind kind) {
  if (s.empty()) {
    return "it is empty";
  }
  if (s.size() > k_max_text) {
    return fmt::format("it is {} bytes long", s.size());
  }
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7E) {
      return "it holds bytes that are not printable ASCII text";
    }
  }
  switch (kind) {
  case TextKind::version:
    return is_version(s) ? "" : "it is not a version (digits separated by dots)";
  case TextKind::name:
    return s.find_first_not_of(' ') == std::string_view::npos ? "it is blank" : "";
  case TextKind::uuid:
    return is_uuid(s) ? "" : "it is not a GPU or MIG UUID";
  case TextKind::pci_bus_id:
    return is_pci_bus_id(s) ? "" : "it is not a PCI address (domain:bus:device.function)";
  }
  return "";
}

std::string out_of_range(std::string_view function, std::string_view why) {
  return fmt::format("{} gave a value out of range: {}", function, why);
}

// The text NVML gave for `key` through `function`, checked as `kind`.
Fact<std::string> checked_text(const Json& j,
                               const char* key,
                               std::string_view function,
                               TextKind kind,
                               const std::string& missing) {
  if (!j.contains(key)) {
    return Fact<std::string>::unknown(missing);
  }
  const Json& v = j.at(key);
  if (v.is_object() && v.contains("unterminated")) {
    const Json& n = v["unterminated"];
    return Fact<std::string>::unknown(
        out_of_range(function,
                     fmt::format("it filled its {}-byte buffer without a terminating NUL",
                                 n.is_number_unsigned() ? n.get<std::uint64_t>() : 0)));
  }
  if (!v.is_string()) {
    return Fact<std::string>::unknown(out_of_range(function, "the probe's report holds no text"));
  }
  const std::string why = text_problem(v.get_ref<const std::string&>(), kind);
  if (!why.empty()) {
    return Fact<std::string>::unknown(out_of_range(function, why));
  }
  return Fact<std::string>::known(v.get<std::string>(), fmt::format("nvml:{}", function));
}

// The integer at `key`, if it is one within [lo, hi]; else the reason.
tl::expected<std::int64_t, std::string> checked_integer(
    const Json& j, const char* key, std::string_view function, std::int64_t lo, std::int64_t hi) {
  const Json& v = j.at(key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) {
    return tl::make_unexpected(
        out_of_range(function, fmt::format("{}, not in {}..{}", v.get<std::uint64_t>(), lo, hi)));
  }
  if (!v.is_number_integer()) {
    return tl::make_unexpected(out_of_range(function, "not an integer"));
  }
  const auto x = v.get<std::int64_t>();
  if (x < lo || x > hi) {
    return tl::make_unexpected(out_of_range(function, fmt::format("{}, not in {}..{}", x, lo, hi)));
  }
  return x;
}

// A memory size in bytes, at_least..at_most (2^64-1 and its kin are nonsense, not 16 EiB).
Fact<std::uint64_t> checked_memory(const Json& d,
                                   const char* key,
                                   std::uint64_t at_most,
                                   const std::string& missing,
                                   std::uint64_t at_least = 1) {
  constexpr std::string_view k_function = "nvmlDeviceGetMemoryInfo";
  if (!d.contains(key)) {
    return Fact<std::uint64_t>::unknown(missing);
  }
  const Json& v = d.at(key);
  if (!v.is_number_unsigned()) {
    return Fact<std::uint64_t>::unknown(out_of_range(k_function, "not a byte count"));
  }
  const auto x = v.get<std::uint64_t>();
  if (x < at_least || x > at_most) {
    return Fact<std::uint64_t>::unknown(
        out_of_range(k_function, fmt::format("{} bytes, not in {}..{}", x, at_least, at_most)));
  }
  return Fact<std::uint64_t>::known(x, fmt::format("nvml:{}", k_function));
}

// "12.8" from 12080, NVML's 1000 * major + 10 * minor, for CUDA 1.0 to 99.9.
Fact<std::string> checked_cuda_version(const Json& j) {
  constexpr std::string_view k_function = "nvmlSystemGetCudaDriverVersion_v2";
  if (!j.contains("cuda_driver_version")) {
    return Fact<std::string>::unknown("nvmlSystemGetCudaDriverVersion failed");
  }
  const auto v = checked_integer(j, "cuda_driver_version", k_function, 1000, 99990);
  if (!v) {
    return Fact<std::string>::unknown(v.error());
  }
  return Fact<std::string>::known(fmt::format("{}.{}", *v / 1000, (*v % 1000) / 10),
                                  fmt::format("nvml:{}", k_function));
}

// "9.0" from the two integers of nvmlDeviceGetCudaComputeCapability: major 1..99, minor 0..9.
Fact<std::string> checked_compute_capability(const Json& d, const std::string& missing) {
  constexpr std::string_view k_function = "nvmlDeviceGetCudaComputeCapability";
  if (!d.contains("compute_capability_major") || !d.contains("compute_capability_minor")) {
    return Fact<std::string>::unknown(missing);
  }
  const auto major = checked_integer(d, "compute_capability_major", k_function, 1, 99);
  const auto minor = checked_integer(d, "compute_capability_minor", k_function, 0, 9);
  if (!major || !minor) {
    return Fact<std::string>::unknown(!major ? major.error() : minor.error());
  }
  return Fact<std::string>::known(fmt::format("{}.{}", *major, *minor),
                                  fmt::format("nvml:{}", k_function));
}

// The telemetry readings the NVML child reports (probe/nvml_telemetry.cpp) and the largest value
// each may take on real hardware; a value above it, or one that is not a count, is dropped with a
// note.
struct TelemetryBound {
  std::string_view key;
  std::uint64_t max;
};
constexpr std::uint64_t k_max_clock_mhz = 20000;
constexpr std::uint64_t k_max_power_mw = 10'000'000; // 10 kW
constexpr std::uint64_t k_max_temperature_c = 250;
constexpr std::uint64_t k_max_count = std::uint64_t{1} << 48;
constexpr TelemetryBound k_telemetry_bounds[] = {
    {"clock_graphics_mhz", k_max_clock_mhz},
    {"clock_memory_mhz", k_max_clock_mhz},
    {"clock_graphics_max_mhz", k_max_clock_mhz},
    {"clock_memory_max_mhz", k_max_clock_mhz},
    {"app_clock_graphics_mhz", k_max_clock_mhz},
    {"app_clock_memory_mhz", k_max_clock_mhz},
    {"app_clock_graphics_default_mhz", k_max_clock_mhz},
    {"app_clock_memory_default_mhz", k_max_clock_mhz},
    {"power_draw_mw", k_max_power_mw},
    {"power_limit_mw", k_max_power_mw},
    {"power_limit_default_mw", k_max_power_mw},
    {"temperature_c", k_max_temperature_c},
    {"temperature_slowdown_c", k_max_temperature_c},
    {"temperature_shutdown_c", k_max_temperature_c},
    {"clock_event_reasons", 0xFFFFFFFFULL},
    {"pcie_generation", 16},
    {"pcie_generation_max", 16},
    {"pcie_width", 64},
    {"pcie_width_max", 64},
    {"pcie_replay_count", k_max_count},
    {"memory_bus_width_bits", 65536},
    {"persistence_mode", 1},
    {"compute_mode", 3},
    {"ecc_mode", 1},
    {"ecc_corrected_volatile", k_max_count},
    {"ecc_uncorrected_volatile", k_max_count},
    {"retired_pages_pending", 1},
    {"remapped_rows_correctable", k_max_count},
    {"remapped_rows_uncorrectable", k_max_count},
    {"remapped_rows_pending", 1},
    {"remapped_rows_failure", 1},
    // The replay counter read again after a pause, where it was above zero (nvml_child.cpp).
    {"pcie_replay_count_later", k_max_count},
    {"pcie_replay_interval_ms", 60000},
};

void read_telemetry(const Json& d, NvmlDevice& dev, const std::string& missing) {
  if (!d.contains("telemetry") || !d["telemetry"].is_object()) {
    dev.telemetry = Fact<std::map<std::string, std::uint64_t>>::unknown(missing);
    return;
  }
  std::map<std::string, std::uint64_t> values;
  for (const TelemetryBound& b : k_telemetry_bounds) {
    const std::string key(b.key);
    if (!d["telemetry"].contains(key)) {
      continue;
    }
    const Json& v = d["telemetry"][key];
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= b.max) {
      values.emplace(key, v.get<std::uint64_t>());
    } else {
      dev.telemetry_notes.push_back(
          out_of_range(key, fmt::format("{}, not in 0..{}", util::sanitize(v.dump(), 40), b.max)));
    }
  }
  dev.telemetry =
      Fact<std::map<std::string, std::uint64_t>>::known(std::move(values), "nvml:telemetry");
}

constexpr std::size_t k_max_processes = 256; // per list, as the child asks

// Adds the processes of one list ("processes_compute" or "processes_graphics") to `by_pid`,
// merging a pid that is in both; false with the reason in `why` when the list is malformed.
bool read_process_list(const Json& list,
                       std::string_view kind,
                       std::string_view function,
                       std::map<std::uint32_t, GpuProcess>& by_pid,
                       std::string& why) {
  if (list.is_object() && list.contains("more_than")) {
    why = fmt::format("{} listed more than {} processes", function, k_max_processes);
    return false;
  }
  if (list.is_object() && list.contains("error")) {
    why = fmt::format("{} failed ({})", function, util::sanitize(list["error"].dump(), 40));
    return false;
  }
  if (!list.is_array() || list.size() > k_max_processes) {
    why = out_of_range(function, "not a list of processes");
    return false;
  }
  for (const Json& p : list) {
    if (!p.is_object() || !p.contains("pid")) {
      why = out_of_range(function, "a process without a pid");
      return false;
    }
    const auto pid = checked_integer(p, "pid", function, 1, 0xFFFFFFFF);
    if (!pid) {
      why = pid.error();
      return false;
    }
    GpuProcess& proc = by_pid[static_cast<std::uint32_t>(*pid)];
    proc.pid = static_cast<std::uint32_t>(*pid);
    proc.kind = proc.kind.empty() ? std::string(kind) : fmt::format("{}+{}", proc.kind, kind);
    const std::string source = fmt::format("nvml:{}", function);
    if (!p.contains("used")) {
      if (!proc.used_memory) {
        proc.used_memory = Fact<std::uint64_t>::unknown(
            fmt::format("{} gave no figure (NVML_VALUE_NOT_AVAILABLE)", function));
      }
    } else if (!p["used"].is_number_unsigned() || p["used"].get<std::uint64_t>() > k_max_memory) {
      proc.used_memory = Fact<std::uint64_t>::unknown(out_of_range(function, "not a byte count"));
    } else if (!proc.used_memory || p["used"].get<std::uint64_t>() > *proc.used_memory) {
      // A process in both lists holds one allocation: the larger figure, not the sum.
      proc.used_memory = Fact<std::uint64_t>::known(p["used"].get<std::uint64_t>(), source);
    }
    proc.name = Fact<std::string>::unknown("not read");
  }
  return true;
}

// The processes NVML lists on a device, by pid, each kind it appears as.
void read_processes(const Json& d, NvmlDevice& dev, const std::string& missing) {
  if (!d.contains("processes_compute") && !d.contains("processes_graphics")) {
    dev.processes = Fact<std::vector<GpuProcess>>::unknown(
        d.contains("telemetry") ? "NVML exports neither process list" : missing);
    return;
  }
  std::map<std::uint32_t, GpuProcess> by_pid;
  std::string why;
  for (const auto& [key, kind, function] :
       {std::tuple{"processes_compute", "compute", "nvmlDeviceGetComputeRunningProcesses_v3"},
        std::tuple{"processes_graphics", "graphics", "nvmlDeviceGetGraphicsRunningProcesses_v3"}}) {
    if (d.contains(key) && !read_process_list(d[key], kind, function, by_pid, why)) {
      dev.processes = Fact<std::vector<GpuProcess>>::unknown(why);
      return;
    }
  }
  std::vector<GpuProcess> list;
  list.reserve(by_pid.size());
  for (auto& [pid, proc] : by_pid) {
    list.push_back(std::move(proc));
  }
  dev.processes = Fact<std::vector<GpuProcess>>::known(std::move(list), "nvml:running_processes");
}

NvmlDevice device_from_report(const Json& d, unsigned position) {
  NvmlDevice dev;
  dev.index = position;
  const std::string why = d.contains("error") && d["error"].is_string()
                              ? fmt::format("nvmlDeviceGetHandleByIndex_v2 failed: {}",
                                            util::sanitize(d["error"].get<std::string>(), 200))
                              : std::string("NVML did not answer");
  dev.name = checked_text(d, "name", "nvmlDeviceGetName", TextKind::name, why);
  dev.uuid = checked_text(d, "uuid", "nvmlDeviceGetUUID", TextKind::uuid, why);
  dev.pci_bus_id =
      checked_text(d, "pci_bus_id", "nvmlDeviceGetPciInfo_v3", TextKind::pci_bus_id, why);
  dev.compute_capability = checked_compute_capability(d, why);
  dev.memory_total = checked_memory(d, "memory_total", k_max_memory, why);
  dev.memory_free = checked_memory(d, "memory_free", dev.memory_total.value_or(k_max_memory), why);
  dev.memory_used =
      checked_memory(d, "memory_used", dev.memory_total.value_or(k_max_memory), why, 0);
  read_processes(d, dev, why);
  read_telemetry(d, dev, why);
  return dev;
}

} // namespace

Fact<ProbeChild> child_from_report(const Json& j) {
  if (!j.contains("child") || !j["child"].is_object()) {
    return Fact<ProbeChild>::unknown("the probe did not say how it was confined");
  }
  const Json& c = j["child"];
  constexpr std::int64_t k_max_id = 0xFFFFFFFF;
  const auto field = [&](const char* key) { return c.contains(key) ? c[key] : Json(); };
  const auto uid = c.contains("uid") ? checked_integer(c, "uid", "the probe", 0, k_max_id)
                                     : tl::make_unexpected(std::string());
  const auto gid = c.contains("gid") ? checked_integer(c, "gid", "the probe", 0, k_max_id)
                                     : tl::make_unexpected(std::string());
  if (!uid || !gid || !field("capabilities_dropped").is_boolean()
      || !field("no_new_privs").is_boolean()
      || !field("address_space_limit").is_number_unsigned()) {
    return Fact<ProbeChild>::unknown("the probe's account of its confinement is malformed");
  }
  ProbeChild child;
  child.uid = static_cast<std::uint32_t>(*uid);
  child.gid = static_cast<std::uint32_t>(*gid);
  child.capabilities_dropped = c["capabilities_dropped"].get<bool>();
  child.no_new_privs = c["no_new_privs"].get<bool>();
  child.address_space_limit = c["address_space_limit"].get<std::uint64_t>();
  if (field("notes").is_array()) {
    for (const Json& n : c["notes"]) {
      if (n.is_string() && child.notes.size() < 16) {
        child.notes.push_back(util::sanitize(n.get<std::string>(), 300));
      }
    }
  }
  return Fact<ProbeChild>::known(std::move(child), "probe:confine_child");
}

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
    if (!info.child) {
      info.child = Fact<ProbeChild>::unknown(detail);
    }
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
  const auto j = Json::parse(result.out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return fail_all("probe_failed", "the NVML probe printed no readable answer");
  }
  info.child = child_from_report(j);
  if (j.contains("library_error")) {
    const std::string why = fmt::format(
        "NVML cannot be loaded: {}",
        j["library_error"].is_string() ? util::sanitize(j["library_error"].get<std::string>(), 600)
                                       : "");
    fail_all("library_not_found", why);
    return info;
  }
  const std::string lib = j.contains("library") && j["library"].is_string()
                              ? j["library"].get<std::string>()
                              : std::string("NVML");
  info.library = Fact<std::string>::known(lib, "nvml:dlopen");
  info.nvml_version = checked_text(j,
                                   "nvml_version",
                                   "nvmlSystemGetNVMLVersion",
                                   TextKind::version,
                                   "nvmlSystemGetNVMLVersion failed");
  if (!j.contains("init") || !j["init"].is_number_integer() || j["init"].get<std::int64_t>() != 0) {
    const std::string err = j.contains("init_error") && j["init_error"].is_string()
                                ? util::sanitize(j["init_error"].get<std::string>(), 200)
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
  info.driver_version = checked_text(j,
                                     "driver_version",
                                     "nvmlSystemGetDriverVersion",
                                     TextKind::version,
                                     "nvmlSystemGetDriverVersion failed");
  info.cuda_driver_version = checked_cuda_version(j);
  if (j.contains("device_count_error")) {
    info.devices = Fact<std::vector<NvmlDevice>>::unknown(
        fmt::format("nvmlDeviceGetCount_v2 failed: {}",
                    j["device_count_error"].is_string()
                        ? util::sanitize(j["device_count_error"].get<std::string>(), 200)
                        : ""));
    return info;
  }
  if (j.contains("device_count")) {
    const auto count =
        checked_integer(j, "device_count", "nvmlDeviceGetCount_v2", 0, k_max_devices);
    if (!count) {
      info.devices = Fact<std::vector<NvmlDevice>>::unknown(count.error());
      return info;
    }
  }
  std::vector<NvmlDevice> devices;
  if (j.contains("devices") && j["devices"].is_array()) {
    for (const auto& d : j["devices"]) {
      if (d.is_object() && devices.size() < static_cast<std::size_t>(k_max_devices)) {
        devices.push_back(device_from_report(d, static_cast<unsigned>(devices.size())));
      }
    }
  }
  info.devices =
      Fact<std::vector<NvmlDevice>>::known(std::move(devices), "nvml:nvmlDeviceGetCount_v2");
  return info;
}

// A process's command name is at most 15 bytes (TASK_COMM_LEN 16) and a newline.
constexpr std::size_t k_max_comm = 64;

void name_gpu_processes(const platform::SysRoot& root, NvmlInfo& info) {
  if (!info.devices) {
    return;
  }
  for (NvmlDevice& dev : info.devices.value()) {
    if (!dev.processes) {
      continue;
    }
    for (GpuProcess& p : dev.processes.value()) {
      if (root.os() != platform::OsFamily::linux) {
        p.name = Fact<std::string>::unknown("process names are read from /proc on Linux only");
        continue;
      }
      const std::string path = fmt::format("/proc/{}/comm", p.pid);
      const auto comm = root.read_file(path, k_max_comm, true);
      if (!comm) {
        p.name = Fact<std::string>::unknown(
            fmt::format("{} cannot be read ({}): the process has ended or is in another pid "
                        "namespace",
                        path,
                        comm.error().message));
        continue;
      }
      std::string_view name = *comm;
      while (!name.empty() && (name.back() == '\n' || name.back() == '\0')) {
        name.remove_suffix(1);
      }
      p.name = name.empty()
                   ? Fact<std::string>::unknown(fmt::format("{} is empty", path))
                   : Fact<std::string>::known(std::string(name), fmt::format("file:{}", path));
    }
  }
}

// Why asking NVML on this live Linux machine can tell nothing new, or nullopt where it may. NVML
// answers through the NVIDIA kernel driver, which registers its character devices ("195
// nvidia-frontend" in /proc/devices) and /proc/driver/nvidia whether it is a module or built in
// (gVisor's nvproxy provides /proc/driver/nvidia too), or, under WSL 2, through the Windows driver
// behind /dev/dxg. With none of them, nvmlInit_v2 can only return NVML_ERROR_DRIVER_NOT_LOADED
// (measured with Debian's libnvidia-ml 535, also where a /dev/nvidiactl node is left without a
// driver: its open() fails with ENXIO), which the driver collector already says from the same
// files; the child would cost its start-up and the 12 MB NVML touches in nvmlInit_v2. A confined
// child cannot load the module either: nvidia-modprobe is set-uid, and the child runs with
// no_new_privs. Whatever cannot be read counts as "may answer".
std::optional<std::string> nvml_cannot_answer(const platform::SysRoot& root) {
  if (root.os() != platform::OsFamily::linux || root.exists("/proc/driver/nvidia")
      || root.exists("/sys/module/nvidia") || root.exists("/dev/dxg")) {
    return std::nullopt;
  }
  const auto devices = root.read_file("/proc/devices", k_max_small_file);
  if (!devices) {
    return std::nullopt;
  }
  // "Character devices:", then " 195 nvidia-frontend" lines, then "Block devices:".
  for (std::string_view rest = *devices; !rest.empty();) {
    std::string_view line = util::trim(util::take_line(rest));
    if (line.starts_with("Block devices")) {
      break;
    }
    line.remove_prefix(std::min(line.find(' '), line.size()));
    if (util::trim(line).starts_with("nvidia")) {
      return std::nullopt;
    }
  }
  return std::string(
      "not asked: no NVIDIA kernel driver is loaded (no nvidia character device in /proc/devices, "
      "no /proc/driver/nvidia, /sys/module/nvidia or /dev/dxg), so nvmlInit could only answer "
      "that the driver is not loaded; --nvml always asks anyway");
}

// NVML is vendor code: it runs in a child process (the doctor's own executable with the probe
// argument) with a time limit, so a crash or hang in the driver becomes a fact, not a crash of
// the doctor. Only on the live machine: NVML describes the running kernel's driver, which a
// --sysroot tree does not have.
namespace {

// What collect_nvml stores: the child's answer, or why it was not asked.
NvmlInfo query_nvml(const platform::SysRoot& root, const CollectOptions& options) {
  if (!root.is_live()) {
    return not_attempted("NVML describes the running machine; --sysroot examines files only");
  }
  if (options.nvml == NvmlQuery::never) {
    return not_attempted("NVML queries were turned off (--no-nvml, --nvml never)");
  }
  if (options.nvml == NvmlQuery::when_driver) {
    if (auto why = nvml_cannot_answer(root)) {
      return not_attempted(*why);
    }
  }
  if (options.self_executable.empty()) {
    return not_attempted("the doctor's own executable is unknown, so no probe child");
  }
  auto result = probe::run_child(
      "nvml", options.self_executable, "", options.probe_timeout, k_max_probe_output);
  if (!result) {
    NvmlInfo info = not_attempted(
        fmt::format("the NVML probe could not be started: {}", result.error().message));
    info.status = "probe_failed";
    return info;
  }
  NvmlInfo info = nvml_facts_from_report(*result);
  name_gpu_processes(root, info);
  return info;
}

} // namespace

void collect_nvml(const platform::SysRoot& root, const CollectOptions& options, Facts& facts) {
  facts.driver.nvml = query_nvml(root, options);
}

std::function<void(Facts&)> start_nvml(const platform::SysRoot& root,
                                       const CollectOptions& options) {
  return [info = query_nvml(root, options)](Facts& facts) mutable {
    facts.driver.nvml = std::move(info);
  };
}

} // namespace doctor::collect
