// SPDX-License-Identifier: MIT
#include "probe.hpp"

#include "commands.hpp"
#include "run.hpp"

#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/runner.hpp>
#include <doctor/collect/probe_runs.hpp>
#include <doctor/report/probe_report.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::cli {

namespace {

// The checks that judge what the probe command collects: the probes' facts and NVML's (the
// child itself, each GPU's telemetry and the memory its processes hold).
std::vector<checks::CheckDef> probe_checks() {
  std::vector<checks::CheckDef> out;
  for (const checks::CheckDef& c : checks::all_checks()) {
    if (c.name.starts_with("probe_") || c.name == "nvml_probe" || c.name == "gpu_state"
        || c.name == "gpu_memory_held") {
      out.push_back(c);
    }
  }
  return out;
}

} // namespace

std::map<std::string, std::string> parse_probe_libraries(const std::vector<std::string>& values) {
  auto parsed = parse_env_assignments(values);
  if (!parsed) {
    throw CommandError{k_exit_usage, fmt::format("--lib: {}", parsed.error().message)};
  }
  const auto probes = collect::library_probes();
  for (const auto& [name, path] : *parsed) {
    if (std::find(probes.begin(), probes.end(), name) == probes.end()) {
      throw CommandError{
          k_exit_usage,
          fmt::format("--lib {}=…: no probe of that name loads a library (cuda, cudnn, cublas)",
                      name)};
    }
    if (path.empty()) {
      throw CommandError{k_exit_usage, fmt::format("--lib {}=: the path is empty", name)};
    }
  }
  return *parsed;
}

int run_probe(const ProbeOptions& options) {
  const std::map<std::string, std::string> overrides = parse_probe_libraries(options.libs);
  TargetOptions target;
  target.kb_dir = options.kb_dir;
  target.probe_timeout = options.timeout;
  target.nvml = collect::NvmlQuery::always; // the probe asks NVML itself, driver or not
  const platform::SysRoot root = make_root(target);
  collect::CollectOptions copts = collect_options(target);
  // What the loader model needs to say which copy a framework or program loads, and NVML.
  copts.only = {"environment", "architecture", "linker", "nvml", "python", "cuda", "cudnn"};
  if (root.os() == platform::OsFamily::windows) {
    copts.only.emplace_back("os"); // the Windows and system folders, KnownDLLs
  }
  const kb::KnowledgeBase kb = load_kb(target);
  copts.kb = &kb;
  facts::Facts facts = collect::collect(root, copts);
  collect::collect_probes(root, copts, kb, overrides, facts);

  report::ProbeReport rep;
  rep.tool_version = DOCTOR_VERSION;
  rep.kb_version = kb.version();
  rep.fail_on = options.output.fail_on;
  const std::vector<checks::CheckDef> defs = probe_checks();
  rep.findings = checks::run_checks(facts, kb, defs);
  rep.nvml = facts.driver.nvml;
  rep.probe = facts.probe;
  const OutputOptions& out = options.output;
  write_output(out.file,
               out.format == report::Format::json
                   ? report::render_probe_json(rep)
                   : report::render_probe_text(rep, use_color(out.color, out.format, out.file)));
  return report::probe_exit_status(rep) == 0 ? k_exit_ok : k_exit_findings;
}

} // namespace doctor::cli
