// SPDX-License-Identifier: MIT
#include <doctor/model/facts_json.hpp>
#include <doctor/report/report.hpp>
#include <doctor/report/stress_report.hpp>
#include <doctor/report/text_layout.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/json_bytes.hpp>

#include <fmt/format.h>

namespace doctor::report {

namespace {

using Json = nlohmann::ordered_json;

Json optional_number(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

std::string rate_text(const std::optional<double>& v, const std::optional<double>& peak) {
  if (!v) {
    return "not measured";
  }
  std::string out = fmt::format("{:.1f} GB/s", *v / 1e9);
  if (peak && *peak > 0) {
    out += fmt::format(" ({:.0f}% of {:.1f} GB/s)", 100 * *v / *peak, *peak / 1e9);
  }
  return out;
}

Json call_json(const facts::ProbeCall& c) {
  return {{"function", c.function},
          {"result", c.result},
          {"name", c.name},
          {"text", c.text},
          {"name_source", c.name_source}};
}

std::vector<std::string> run_lines(const facts::StressRun& r) {
  std::vector<std::string> lines;
  const facts::ProbeLibrary& lib = r.library;
  if (!lib.path.empty()) {
    lines.push_back(fmt::format("driver  {} via {} ({})", lib.path, lib.found_via, lib.context));
  } else if (!lib.name.empty()) {
    lines.push_back(fmt::format("driver  {}: not found by {}", lib.name, lib.context));
  }
  lines.push_back(fmt::format("status  {}{}", r.status, r.detail.empty() ? "" : ": " + r.detail));
  if (!r.stderr_tail.empty()) {
    lines.push_back("stderr  " + r.stderr_tail);
  }
  if (!r.device_name.empty()) {
    lines.push_back(
        fmt::format("GPU {}   {}, {}", r.gpu, r.device_name, human_bytes(r.device_memory)));
  }
  if (r.memory) {
    const facts::StressMemory& m = *r.memory;
    const double share = m.free_before > 0 ? 100.0 * static_cast<double>(m.bytes_covered)
                                                 / static_cast<double>(m.free_before)
                                           : 0;
    lines.push_back(
        fmt::format("memory  {} of {} free tested ({:.1f}%), {} chunk(s), {} pass(es): "
                    "{} error(s)",
                    human_bytes(m.bytes_covered),
                    human_bytes(m.free_before),
                    share,
                    m.chunks,
                    m.passes,
                    m.errors));
    for (const facts::StressMemoryError& e : m.error_log) {
      lines.push_back(fmt::format("        0x{:x}: wrote 0x{:08x}, read 0x{:08x} ({})",
                                  e.address,
                                  e.expected,
                                  e.actual,
                                  e.pattern));
    }
  }
  if (r.gemm) {
    const facts::StressGemm& g = *r.gemm;
    lines.push_back(
        fmt::format("gemm    {}x{} x {} runs{}: {} differing between runs, {} of {} "
                    "differing from the CPU, {} NaN",
                    g.n,
                    g.n,
                    g.iterations,
                    g.gflops ? fmt::format(", {:.0f} GFLOP/s", *g.gflops) : "",
                    g.run_mismatches,
                    g.reference_mismatches,
                    g.reference_checked,
                    g.nan));
    if (!g.cublas_status.empty()) {
      lines.push_back(g.cublas_status == "compared"
                          ? fmt::format("        cuBLAS ({}): {} differing",
                                        g.cublas_library,
                                        g.cublas_mismatches)
                          : fmt::format("        cuBLAS {}: {}", g.cublas_status, g.cublas_detail));
    }
  }
  if (r.bandwidth) {
    const facts::StressBandwidth& b = *r.bandwidth;
    lines.push_back("copy    device " + rate_text(b.device_to_device, r.device_peak));
    lines.push_back(fmt::format("        host to device {}, device to host {}{}",
                                rate_text(b.host_to_device, b.pinned ? r.pcie_peak : std::nullopt),
                                rate_text(b.device_to_host, b.pinned ? r.pcie_peak : std::nullopt),
                                b.pinned ? "" : " (pageable memory)"));
  }
  if (!r.peak_note.empty() && r.bandwidth) {
    lines.push_back("peak    " + r.peak_note);
  }
  for (const facts::StressTelemetry& t : r.telemetry) {
    lines.push_back(fmt::format("nvml    {} {}..{}", t.key, t.min, t.max));
  }
  if (r.telemetry_samples == 0 && !r.telemetry_note.empty()) {
    lines.push_back("nvml    " + r.telemetry_note);
  }
  return lines;
}

} // namespace

int stress_exit_status(const StressReport& report) {
  if (report.run.status == "not_run") {
    return k_stress_could_not_run;
  }
  for (const Finding& f : report.findings) {
    if (f.severity >= report.fail_on) {
      return k_stress_failed;
    }
  }
  return k_stress_passed;
}

Json stress_run_json(const facts::StressRun& r) {
  Json j;
  j["status"] = r.status;
  j["detail"] = r.detail;
  j["level"] = r.level;
  j["gpu"] = r.gpu;
  j["inject"] = r.inject;
  j["library"] = {{"name", r.library.name},
                  {"path", r.library.path},
                  {"real_path", r.library.real_path},
                  {"found_via", r.library.found_via},
                  {"context", r.library.context},
                  {"searched", r.library.searched}};
  j["loaded"] = r.loaded;
  j["driver_version"] = r.driver_version ? Json(*r.driver_version) : Json(nullptr);
  Json calls = Json::array();
  for (const facts::ProbeCall& c : r.calls) {
    calls.push_back(call_json(c));
  }
  j["calls"] = calls;
  j["failed_call"] = r.failed_call ? call_json(*r.failed_call) : Json(nullptr);
  j["failed_phase"] = r.failed_phase;
  j["device"] = {{"name", r.device_name}, {"memory_total", r.device_memory}};
  if (r.memory) {
    const facts::StressMemory& m = *r.memory;
    Json patterns = Json::object();
    for (const auto& [name, n] : m.pattern_errors) {
      patterns[name] = n;
    }
    Json log = Json::array();
    for (const facts::StressMemoryError& e : m.error_log) {
      log.push_back({{"address", e.address},
                     {"expected", e.expected},
                     {"actual", e.actual},
                     {"bits", e.expected ^ e.actual},
                     {"pattern", e.pattern}});
    }
    j["memory"] = {{"free_before", m.free_before},
                   {"total", m.total},
                   {"bytes_covered", m.bytes_covered},
                   {"coverage_of_free",
                    m.free_before > 0 ? Json(static_cast<double>(m.bytes_covered)
                                             / static_cast<double>(m.free_before))
                                      : Json(nullptr)},
                   {"chunks", m.chunks},
                   {"passes", m.passes},
                   {"errors", m.errors},
                   {"pattern_errors", patterns},
                   {"error_log", log},
                   {"seconds", optional_number(m.seconds)}};
  } else {
    j["memory"] = nullptr;
  }
  if (r.gemm) {
    const facts::StressGemm& g = *r.gemm;
    j["gemm"] = {{"n", g.n},
                 {"iterations", g.iterations},
                 {"gflops", optional_number(g.gflops)},
                 {"run_mismatches", g.run_mismatches},
                 {"reference_checked", g.reference_checked},
                 {"reference_mismatches", g.reference_mismatches},
                 {"nan", g.nan},
                 {"first_mismatch", g.first_mismatch},
                 {"cublas",
                  {{"status", g.cublas_status},
                   {"detail", g.cublas_detail},
                   {"library", g.cublas_library},
                   {"mismatches", g.cublas_mismatches}}}};
  } else {
    j["gemm"] = nullptr;
  }
  if (r.bandwidth) {
    const facts::StressBandwidth& b = *r.bandwidth;
    j["bandwidth"] = {{"device_bytes", b.device_bytes},
                      {"host_bytes", b.host_bytes},
                      {"pinned", b.pinned},
                      {"device_to_device", optional_number(b.device_to_device)},
                      {"host_to_device", optional_number(b.host_to_device)},
                      {"device_to_host", optional_number(b.device_to_host)}};
  } else {
    j["bandwidth"] = nullptr;
  }
  j["peaks"] = {{"device", optional_number(r.device_peak)},
                {"pcie", optional_number(r.pcie_peak)},
                {"note", r.peak_note}};
  Json telemetry = Json::object();
  for (const facts::StressTelemetry& t : r.telemetry) {
    telemetry[t.key] = {{"min", t.min}, {"max", t.max}};
  }
  j["telemetry"] = {{"samples", r.telemetry_samples},
                    {"readings", telemetry},
                    {"clock_event_reasons", r.clock_event_reasons},
                    {"note", r.telemetry_note}};
  j["seconds"] = r.seconds;
  j["exit_code"] = r.exit_code;
  j["signal"] = r.signal;
  j["stderr_tail"] = r.stderr_tail;
  return j;
}

std::string render_stress_text(const StressReport& report, bool color) {
  using util::escape_terminal;
  const Style st{color};
  const facts::StressRun& r = report.run;
  std::string out =
      st.bold(fmt::format("cudnn-doctor {}", report.tool_version))
      + st.dim(fmt::format(
          " · stress, level {}{}\n\n",
          r.level,
          r.inject == "none" || r.inject.empty() ? "" : ", fault injected into " + r.inject));
  for (const std::string& line : run_lines(r)) {
    out += "  " + escape_terminal(line) + "\n";
  }
  out += render_findings_text(report.findings, color);
  return out;
}

std::string render_stress_json(const StressReport& report) {
  Json j = report_head(k_stress_schema, report.tool_version, report.kb_version, "stress");
  j["run"] = stress_run_json(report.run);
  j["summary"] = summary_json(report.findings, report.fail_on, stress_exit_status(report));
  j["findings"] = findings_json(report.findings);
  util::keep_bytes(j);
  return j.dump(2) + "\n";
}

} // namespace doctor::report
