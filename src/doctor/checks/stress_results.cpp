// SPDX-License-Identifier: MIT
// Judges what `cudnn-doctor stress` observed (facts.stress, model/stress.hpp): pure, like every
// check. The thresholds are DCGM's and gpu-burn's where they have one (docs/stress.md).
#include <doctor/checks/checks.hpp>
#include <doctor/model/stress.hpp>

#include <fmt/format.h>

namespace doctor::checks {

namespace {

// Below this fraction of the theoretical peak a bandwidth is reported (a copy kernel reaches
// some 80-90% of it on a healthy GPU; DCGM fails below 75% of a measured figure).
constexpr double k_low_bandwidth = 0.5;

// NVML's clock-event reasons that DCGM counts as a violation (nvmlClocksEventReasons).
constexpr std::uint64_t k_sw_power_cap = 0x4;
constexpr std::uint64_t k_hw_slowdown = 0x8;
constexpr std::uint64_t k_sw_thermal = 0x20;
constexpr std::uint64_t k_hw_thermal = 0x40;
constexpr std::uint64_t k_hw_power_brake = 0x80;

std::string gb_per_s(double bytes_per_s) {
  return fmt::format("{:.1f} GB/s", bytes_per_s / 1e9);
}

std::string bytes_text(std::uint64_t bytes) {
  constexpr double k_gib = 1024.0 * 1024 * 1024;
  const auto b = static_cast<double>(bytes);
  return b >= k_gib ? fmt::format("{:.2f} GiB", b / k_gib)
                    : fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
}

std::string bit_list(std::uint32_t diff) {
  std::string out;
  for (int b = 0; b < 32; ++b) {
    if ((diff >> b) & 1U) {
      out += out.empty() ? fmt::format("{}", b) : fmt::format(", {}", b);
    }
  }
  return out;
}

std::string reasons_text(std::uint64_t r) {
  constexpr std::pair<std::uint64_t, std::string_view> k_names[] = {
      {k_hw_slowdown, "HW_SLOWDOWN"},
      {k_sw_thermal, "SW_THERMAL_SLOWDOWN"},
      {k_hw_thermal, "HW_THERMAL_SLOWDOWN"},
      {k_hw_power_brake, "HW_POWER_BRAKE_SLOWDOWN"},
      {k_sw_power_cap, "SW_POWER_CAP"}};
  std::string out;
  for (const auto& [bit, name] : k_names) {
    if ((r & bit) != 0) {
      out += out.empty() ? std::string(name) : fmt::format(" | {}", name);
    }
  }
  return out;
}

void bandwidth(const facts::StressRun& s,
               std::string_view path,
               const std::optional<double>& measured,
               const std::optional<double>& peak,
               std::string_view why,
               FindingSink& out) {
  if (!measured || !peak || *peak <= 0 || *measured >= k_low_bandwidth * *peak) {
    return;
  }
  FindingDraft d;
  d.id = kb::ids::k_stress_bandwidth_low;
  d.subject = fmt::format("GPU {} {}", s.gpu, path);
  d.params = {{"gpu", std::to_string(s.gpu)},
              {"path", std::string(path)},
              {"measured", gb_per_s(*measured)},
              {"peak", gb_per_s(*peak)},
              {"fraction", fmt::format("{:.0f}%", 100 * *measured / *peak)},
              {"why", std::string(why)}};
  d.evidence.push_back({"stress:bandwidth", fmt::format("{}: {}", path, gb_per_s(*measured))});
  out.add(std::move(d));
}

std::string gemm_detail(const facts::StressGemm& g) {
  std::string out = g.first_mismatch;
  if (g.cublas_mismatches > 0) {
    out += fmt::format("{}{} elements of the first run differ from cuBLAS ({}), {}",
                       out.empty() ? "" : "; ",
                       g.cublas_mismatches,
                       g.cublas_library,
                       g.cublas_detail);
  }
  return out.empty() ? std::string("NaN results") : out;
}

} // namespace

void check_stress_results(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  if (!facts.stress) {
    return;
  }
  const facts::StressRun& s = *facts.stress;
  const std::string gpu = std::to_string(s.gpu);
  const std::string name = s.device_name.empty() ? std::string("name unknown") : s.device_name;
  // The library the run used, or the run itself when no library was found.
  const std::string source =
      s.library.path.empty() ? std::string("stress") : fmt::format("stress:{}", s.library.path);
  if (s.status == "not_run") {
    FindingDraft d;
    d.id = kb::ids::k_stress_not_run;
    d.subject = fmt::format("GPU {}", gpu);
    d.params = {{"gpu", gpu}, {"reason", s.detail}};
    d.evidence.push_back({source, s.detail});
    for (const facts::ProbeCall& c : s.calls) {
      d.evidence.push_back(
          {source,
           fmt::format("{} returned {} {}{}",
                       c.function,
                       c.result,
                       c.name,
                       c.name_source == "doctor" ? " (named by the doctor)" : "")});
    }
    out.add(std::move(d));
    return;
  }
  if (s.status == "crashed" || s.status == "timed_out" || s.status == "no_answer") {
    FindingDraft d;
    d.id = kb::ids::k_stress_child_failed;
    d.subject = fmt::format("GPU {}", gpu);
    d.params = {{"gpu", gpu}, {"detail", s.detail}};
    d.evidence.push_back({source, s.detail});
    if (!s.stderr_tail.empty()) {
      d.evidence.push_back({"stress:stderr", s.stderr_tail});
    }
    out.add(std::move(d));
  }
  if (s.status == "failed") {
    FindingDraft d;
    d.id = kb::ids::k_stress_call_failed;
    d.subject = fmt::format("GPU {}", gpu);
    d.params = {{"gpu", gpu}, {"detail", s.detail}};
    d.evidence.push_back({source, s.detail});
    out.add(std::move(d));
  }
  if (s.memory && s.memory->errors > 0) {
    const facts::StressMemory& m = *s.memory;
    FindingDraft d;
    d.id = kb::ids::k_hardware_memory_test_errors;
    d.subject = fmt::format("GPU {} memory", gpu);
    const bool logged = !m.error_log.empty();
    const facts::StressMemoryError e = logged ? m.error_log.front() : facts::StressMemoryError{};
    d.params = {{"gpu", gpu},
                {"name", name},
                {"errors", std::to_string(m.errors)},
                {"covered", bytes_text(m.bytes_covered)},
                {"address", logged ? fmt::format("0x{:x}", e.address) : "unknown"},
                {"bits", logged ? bit_list(e.expected ^ e.actual) : "unknown"},
                {"expected", fmt::format("0x{:08x}", e.expected)},
                {"actual", fmt::format("0x{:08x}", e.actual)},
                {"pattern", logged ? e.pattern : "unknown"}};
    for (const facts::StressMemoryError& x : m.error_log) {
      d.evidence.push_back({"stress:memory",
                            fmt::format("0x{:x}: wrote 0x{:08x}, read 0x{:08x}, bit(s) {} ({})",
                                        x.address,
                                        x.expected,
                                        x.actual,
                                        bit_list(x.expected ^ x.actual),
                                        x.pattern)});
    }
    out.add(std::move(d));
  }
  if (s.gemm
      && (s.gemm->run_mismatches > 0 || s.gemm->reference_mismatches > 0 || s.gemm->nan > 0
          || s.gemm->cublas_mismatches > 0)) {
    const facts::StressGemm& g = *s.gemm;
    FindingDraft d;
    d.id = kb::ids::k_hardware_gemm_mismatch;
    d.subject = fmt::format("GPU {} GEMM", gpu);
    d.params = {{"gpu", gpu},
                {"name", name},
                {"iterations", std::to_string(g.iterations)},
                {"n", std::to_string(g.n)},
                {"run_mismatches", std::to_string(g.run_mismatches)},
                {"reference_mismatches", std::to_string(g.reference_mismatches)},
                {"checked", std::to_string(g.reference_checked)},
                {"nan", std::to_string(g.nan)},
                {"detail", gemm_detail(g)}};
    d.evidence.push_back({"stress:gemm", gemm_detail(g)});
    out.add(std::move(d));
  }
  if (s.bandwidth) {
    bandwidth(s,
              "device memory",
              s.bandwidth->device_to_device,
              s.device_peak,
              "memory clock x bus width x 2 from NVML",
              out);
    bandwidth(s,
              "host to device",
              s.bandwidth->host_to_device,
              s.bandwidth->pinned ? s.pcie_peak : std::nullopt,
              "the PCIe link's maximum generation and width from NVML",
              out);
  }
  constexpr std::uint64_t k_violations =
      k_hw_slowdown | k_sw_thermal | k_hw_thermal | k_hw_power_brake;
  if ((s.clock_event_reasons & k_violations) != 0) {
    std::string temperature = "unknown";
    for (const facts::StressTelemetry& t : s.telemetry) {
      if (t.key == "temperature_c") {
        temperature = fmt::format("{} C", t.max);
      }
    }
    FindingDraft d;
    d.id = kb::ids::k_stress_gpu_slowed_down;
    d.subject = fmt::format("GPU {}", gpu);
    d.params = {{"gpu", gpu},
                {"reasons", reasons_text(s.clock_event_reasons & k_violations)},
                {"temperature", temperature}};
    d.evidence.push_back(
        {"stress:nvml", fmt::format("clock_event_reasons 0x{:x}", s.clock_event_reasons)});
    out.add(std::move(d));
  }
}

} // namespace doctor::checks
