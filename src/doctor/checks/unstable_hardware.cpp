// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <map>
#include <optional>

// Family 6 of the troubleshooting guide (overclocking and unstable hardware): a GPU that computes
// wrong numbers. Today from the probes' small convolution and SGEMM, whose exact inputs give the
// CPU reference to the last bit; the clocks, temperatures and error counters of NVML come next.
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

using Telemetry = std::map<std::string, std::uint64_t>;

std::optional<std::uint64_t> reading(const Telemetry& t, const char* key) {
  const auto it = t.find(key);
  return it == t.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
}

// The clock-event (throttle) reasons that mean heat or power trouble, not a GPU at rest or
// working within its power cap (nvml.h nvmlClocksEventReason*).
struct Reason {
  std::uint64_t bit;
  std::string_view name;
};
constexpr Reason k_slowdown_reasons[] = {
    {0x8, "hardware slowdown"},
    {0x20, "software thermal slowdown"},
    {0x40, "hardware thermal slowdown"},
    {0x80, "hardware power brake"},
};

std::string gpu_name(const facts::NvmlDevice& dev) {
  return fmt::format("GPU {} ({})", dev.index, dev.name.value_or("name unknown"));
}

void overclock(const facts::NvmlDevice& dev, const Telemetry& t, FindingSink& out) {
  std::vector<std::string> above;
  const std::pair<const char*, const char*> pairs[] = {
      {"app_clock_graphics_mhz", "app_clock_graphics_default_mhz"},
      {"app_clock_memory_mhz", "app_clock_memory_default_mhz"}};
  for (const auto& [now, def] : pairs) {
    const auto a = reading(t, now);
    const auto b = reading(t, def);
    if (a && b && *b > 0 && *a > *b) {
      above.push_back(fmt::format("{} {} MHz, default {} MHz", now, *a, *b));
    }
  }
  const auto limit = reading(t, "power_limit_mw");
  const auto def = reading(t, "power_limit_default_mw");
  if (limit && def && *def > 0 && *limit > *def) {
    above.push_back(fmt::format("power limit {} W, default {} W", *limit / 1000, *def / 1000));
  }
  if (above.empty()) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_hardware_gpu_overclocked;
  d.subject = gpu_name(dev);
  d.params = {{"gpu", gpu_name(dev)}, {"detail", util::join(above, "; ")}};
  for (const std::string& a : above) {
    d.evidence.push_back(Evidence{"nvml:telemetry", a});
  }
  out.add(std::move(d));
}

void throttling(const facts::NvmlDevice& dev, const Telemetry& t, FindingSink& out) {
  const auto reasons = reading(t, "clock_event_reasons");
  if (!reasons) {
    return;
  }
  std::vector<std::string> names;
  for (const Reason& r : k_slowdown_reasons) {
    if ((*reasons & r.bit) != 0) {
      names.emplace_back(r.name);
    }
  }
  if (names.empty()) {
    return;
  }
  const auto temp = reading(t, "temperature_c");
  const auto slowdown = reading(t, "temperature_slowdown_c");
  FindingDraft d;
  d.id = ids::k_hardware_gpu_throttling;
  d.subject = gpu_name(dev);
  d.params = {{"gpu", gpu_name(dev)},
              {"reasons", util::join(names, ", ")},
              {"temperature",
               temp ? fmt::format(
                   "{} C{}", *temp, slowdown ? fmt::format(", slowdown at {} C", *slowdown) : "")
                    : std::string("temperature unknown")}};
  d.evidence.push_back(
      Evidence{"nvml:nvmlDeviceGetCurrentClocksThrottleReasons", fmt::format("{:#x}", *reasons)});
  out.add(std::move(d));
}

void memory_errors(const facts::NvmlDevice& dev, const Telemetry& t, FindingSink& out) {
  std::vector<std::string> what;
  if (const auto n = reading(t, "ecc_uncorrected_volatile"); n && *n > 0) {
    what.push_back(fmt::format("{} uncorrectable ECC errors since the driver loaded", *n));
  }
  if (const auto p = reading(t, "retired_pages_pending"); p && *p != 0) {
    what.emplace_back("a page retirement is pending");
  }
  if (const auto p = reading(t, "remapped_rows_pending"); p && *p != 0) {
    what.emplace_back("a row remap is pending");
  }
  if (const auto f = reading(t, "remapped_rows_failure"); f && *f != 0) {
    what.emplace_back("a row remap failed");
  }
  if (what.empty()) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_hardware_gpu_memory_errors;
  d.subject = gpu_name(dev);
  d.params = {{"gpu", gpu_name(dev)}, {"detail", util::join(what, "; ")}};
  for (const char* key : {"ecc_uncorrected_volatile",
                          "ecc_corrected_volatile",
                          "remapped_rows_uncorrectable",
                          "remapped_rows_pending",
                          "remapped_rows_failure",
                          "retired_pages_pending"}) {
    if (const auto v = reading(t, key)) {
      d.evidence.push_back(Evidence{"nvml:telemetry", fmt::format("{}: {}", key, *v)});
    }
  }
  if (reading(t, "remapped_rows_failure").value_or(0) != 0) {
    d.severity = Severity::critical;
  }
  out.add(std::move(d));
}

void pcie_link(const facts::NvmlDevice& dev, const Telemetry& t, FindingSink& out) {
  const auto width = reading(t, "pcie_width");
  const auto width_max = reading(t, "pcie_width_max");
  if (!width || !width_max || *width == 0 || *width >= *width_max) {
    return;
  }
  const auto replays = reading(t, "pcie_replay_count");
  FindingDraft d;
  d.id = ids::k_hardware_pcie_link_degraded;
  d.subject = gpu_name(dev);
  d.params = {{"gpu", gpu_name(dev)},
              {"width", std::to_string(*width)},
              {"width_max", std::to_string(*width_max)},
              {"replays",
               replays ? fmt::format("{} PCIe replays counted", *replays)
                       : std::string("replay count unknown")}};
  out.add(std::move(d));
}

// The replay counter read twice by the NVML child (a pause of pcie_replay_interval_ms between,
// only where it was above zero): a rise means the link is retrying transfers now. DCGM's health
// watch allows a handful of replays per minute per lane (from a bit error rate of 1e-12); one
// replay within a tenth of a second is already far beyond that budget, so any rise counts.
void pcie_replays_rising(const facts::NvmlDevice& dev, const Telemetry& t, FindingSink& out) {
  const auto before = reading(t, "pcie_replay_count");
  const auto after = reading(t, "pcie_replay_count_later");
  const auto ms = reading(t, "pcie_replay_interval_ms");
  if (!before || !after || !ms || *after <= *before) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_hardware_pcie_replays_rising;
  d.subject = gpu_name(dev);
  d.params = {{"gpu", gpu_name(dev)},
              {"before", std::to_string(*before)},
              {"after", std::to_string(*after)},
              {"interval", fmt::format("{} ms", *ms)}};
  d.evidence.push_back(
      Evidence{"nvml:nvmlDeviceGetPcieReplayCounter",
               fmt::format("{} replays, then {} replays {} ms later", *before, *after, *ms)});
  if (const auto w = reading(t, "pcie_width"), wm = reading(t, "pcie_width_max"); w && wm) {
    d.evidence.push_back(Evidence{"nvml:nvmlDeviceGetCurrPcieLinkWidth",
                                  fmt::format("link width x{} of x{}", *w, *wm)});
  }
  out.add(std::move(d));
}

// GPUs sold for servers only (NVIDIA's data-center lines), by a word of NVML's name: the word
// itself ("H100" in "NVIDIA H100 80GB HBM3") or the word followed by '-' ("A100-SXM4-40GB").
// Workstation and consumer cards (RTX A6000, GeForce) are not in it.
constexpr std::string_view k_data_center_words[] = {
    "Tesla", "A2",   "A10",  "A16",   "A30",  "A40",  "A100",  "A800", "H20",
    "H100",  "H800", "H200", "GH200", "B100", "B200", "GB200", "L4",   "L20",
    "L40",   "L40S", "T4",   "V100",  "P100", "P40",  "K80",   "M60"};

bool data_center_gpu(std::string_view name) {
  for (std::string_view rest = name; !rest.empty();) {
    const auto space = rest.find(' ');
    const std::string_view word = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    for (const std::string_view w : k_data_center_words) {
      if (word == w || (word.starts_with(w) && word.size() > w.size() && word[w.size()] == '-')) {
        return true;
      }
    }
  }
  return false;
}

// How many GPUs make a Linux machine a server whatever their names: a workstation has one or
// two, a training server four or eight.
constexpr std::size_t k_server_gpu_count = 4;

// Why this machine counts as a Linux server, or "" where it does not.
std::string server_reason(const facts::Facts& facts, const std::vector<facts::NvmlDevice>& devs) {
  if (facts.collection.os_family != "linux") {
    return "";
  }
  for (const facts::NvmlDevice& dev : devs) {
    if (dev.name && data_center_gpu(*dev.name)) {
      return fmt::format("{} is a data-center GPU", *dev.name);
    }
  }
  return devs.size() >= k_server_gpu_count ? fmt::format("it has {} GPUs", devs.size()) : "";
}

void persistence_off(const facts::NvmlDevice& dev,
                     const Telemetry& t,
                     const std::string& server,
                     FindingSink& out) {
  const auto mode = reading(t, "persistence_mode");
  if (server.empty() || !mode || *mode != 0) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_hardware_persistence_mode_off;
  d.subject = gpu_name(dev);
  d.params = {{"gpu", gpu_name(dev)}, {"server", server}};
  d.evidence.push_back(
      Evidence{"nvml:nvmlDeviceGetPersistenceMode", "persistence mode: disabled (0)"});
  out.add(std::move(d));
}

} // namespace

// A computation whose result differs from the reference, or that failed after its library made
// a handle. One that was skipped (no GPU, no handle) says nothing here: probe_results.cpp reports
// why the handle or the driver failed.
void check_probe_computations(const facts::Facts& facts,
                              const kb::KnowledgeBase&,
                              FindingSink& out) {
  for (const facts::ProbeRun& run : facts.probe.runs) {
    for (const facts::ProbeComputation& c : run.computations) {
      FindingDraft d;
      d.subject = fmt::format("{} on GPU 0", c.name);
      if (c.status == "mismatch") {
        d.id = ids::k_hardware_compute_mismatch;
        d.params = {{"computation", c.name},
                    {"library", run.library.path},
                    {"mismatches", std::to_string(c.mismatches)},
                    {"elements", std::to_string(c.elements)},
                    {"max_error", c.max_abs_error.empty() ? "not a number" : c.max_abs_error},
                    {"detail", c.detail}};
      } else if (c.status == "failed") {
        d.id = ids::k_probe_computation_failed;
        d.params = {{"computation", c.name}, {"library", run.library.path}, {"detail", c.detail}};
      } else {
        continue;
      }
      d.evidence.push_back(Evidence{fmt::format("probe:{}", run.probe),
                                    fmt::format("{}: {} ({})", c.name, c.status, c.detail)});
      out.add(std::move(d));
    }
  }
}

} // namespace doctor::checks

namespace doctor::checks {

// What NVML says of each GPU's state now: clocks or power limit above the defaults, a slowdown
// for heat or power, memory errors and pending or failed repairs, a narrow PCIe link, a replay
// counter that rises while the probe watches, persistence mode off on a Linux server.
void check_gpu_state(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  if (!facts.driver.nvml.devices) {
    return;
  }
  const std::string server = server_reason(facts, *facts.driver.nvml.devices);
  for (const facts::NvmlDevice& dev : *facts.driver.nvml.devices) {
    if (!dev.telemetry) {
      continue;
    }
    overclock(dev, *dev.telemetry, out);
    throttling(dev, *dev.telemetry, out);
    memory_errors(dev, *dev.telemetry, out);
    pcie_link(dev, *dev.telemetry, out);
    pcie_replays_rising(dev, *dev.telemetry, out);
    persistence_off(dev, *dev.telemetry, server, out);
  }
}

} // namespace doctor::checks
