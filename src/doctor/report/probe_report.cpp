// SPDX-License-Identifier: MIT
#include <doctor/model/facts_json.hpp>
#include <doctor/report/probe_report.hpp>
#include <doctor/report/report.hpp>
#include <doctor/report/text_layout.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/json_bytes.hpp>

#include <fmt/format.h>

namespace doctor::report {

namespace {

using Json = nlohmann::ordered_json;

std::string call_line(const facts::ProbeCall& c) {
  std::string out = fmt::format("{} → {}", c.function, c.result);
  if (!c.name.empty()) {
    out += " " + c.name;
  }
  if (!c.text.empty()) {
    out += fmt::format(" ({})", c.text);
  }
  return out;
}

// The lines of one probe's run, without indentation.
std::vector<std::string> run_lines(const facts::ProbeRun& run) {
  std::vector<std::string> lines;
  const facts::ProbeLibrary& lib = run.library;
  if (!lib.path.empty()) {
    lines.push_back(fmt::format("{} via {} ({})", lib.path, lib.found_via, lib.context));
  } else if (!lib.name.empty()) {
    lines.push_back(fmt::format("{}: not found by {}", lib.name, lib.context));
    for (const std::string& s : lib.searched) {
      lines.push_back("  tried " + s);
    }
  }
  if (run.status != "answered") {
    lines.push_back(fmt::format("{}: {}", run.status, run.detail));
    if (!run.stderr_tail.empty()) {
      lines.push_back("stderr: " + run.stderr_tail);
    }
    return lines;
  }
  if (run.version) {
    lines.push_back(run.runtime_version ? fmt::format(
                        "version {} (CUDA runtime {})", *run.version, *run.runtime_version)
                                        : fmt::format("version {}", *run.version));
  }
  for (const facts::ProbeCall& c : run.calls) {
    lines.push_back(call_line(c));
  }
  if (run.probe == "cuda" && run.devices) {
    lines.push_back(fmt::format("{} device(s)", run.devices->size()));
    for (const facts::ProbeDevice& d : *run.devices) {
      lines.push_back(fmt::format("  GPU {}: {}, {}, context: {}",
                                  d.index,
                                  d.name.value_or("name unknown"),
                                  d.memory_total ? human_bytes(*d.memory_total) : "memory unknown",
                                  d.context ? call_line(*d.context) : d.context.reason()));
    }
  }
  for (const facts::ProbeComputation& c : run.computations) {
    lines.push_back(
        c.status == "passed"
            ? fmt::format("{}: passed ({} values, largest difference {})",
                          c.name,
                          c.elements,
                          c.max_abs_error)
            : fmt::format("{}: {}{}", c.name, c.status, c.detail.empty() ? "" : ": " + c.detail));
  }
  if (!run.detail.empty()) {
    lines.push_back(run.detail);
  }
  return lines;
}

} // namespace

int probe_exit_status(const ProbeReport& report) {
  for (const Finding& f : report.findings) {
    if (f.severity >= report.fail_on) {
      return 1;
    }
  }
  return 0;
}

std::string render_probe_text(const ProbeReport& report, bool color) {
  using util::escape_terminal;
  const Style st{color};
  std::string out = st.bold(fmt::format("cudnn-doctor {}", report.tool_version))
                    + st.dim(" · probe of this machine (each library in an isolated child)\n\n");
  out += st.bold("Probes") + "\n";
  out += st.bold(fmt::format("  {:<8}", "nvml"));
  out += escape_terminal(report.nvml.status == "ok"
                             ? fmt::format("ok: {}", report.nvml.library.value_or("NVML"))
                             : fmt::format("{}: {}", report.nvml.status, report.nvml.detail))
         + "\n";
  for (const facts::ProbeRun& run : report.probe.runs) {
    const std::vector<std::string> lines = run_lines(run);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out += i == 0 ? st.bold(fmt::format("  {:<8}", run.probe)) : std::string(10, ' ');
      out += escape_terminal(lines[i]) + "\n";
    }
  }
  out += render_findings_text(report.findings, color);
  return out;
}

std::string render_probe_json(const ProbeReport& report) {
  Json j = report_head(k_probe_schema, report.tool_version, report.kb_version, "probe");
  j["nvml"] = facts::to_json(report.nvml);
  j["probes"] = facts::to_json(report.probe)["runs"];
  j["summary"] = summary_json(report.findings, report.fail_on, probe_exit_status(report));
  j["findings"] = findings_json(report.findings);
  util::keep_bytes(j);
  return j.dump(2) + "\n";
}

} // namespace doctor::report
