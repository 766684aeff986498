// SPDX-License-Identifier: MIT
#include "stress.hpp"

#include "commands.hpp"
#include "probe.hpp"
#include "run.hpp"

#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/runner.hpp>
#include <doctor/collect/stress_run.hpp>
#include <doctor/platform/terminal.hpp>
#include <doctor/report/stress_report.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <memory>

namespace doctor::cli {

namespace {

std::vector<checks::CheckDef> stress_checks() {
  std::vector<checks::CheckDef> out;
  for (const checks::CheckDef& c : checks::all_checks()) {
    if (c.name == "stress_results") {
      out.push_back(c);
    }
  }
  return out;
}

} // namespace

double default_stress_timeout(const std::string& level) {
  return level == "long" ? 3600 : level == "standard" ? 900 : 300;
}

int run_stress(const StressOptions& options) {
  const std::map<std::string, std::string> libs = parse_probe_libraries(options.libs);
  for (const auto& [probe, path] : libs) {
    if (probe != "cuda" && probe != "cublas") {
      throw CommandError{
          k_exit_usage,
          fmt::format("--lib {}=…: stress loads only the driver API (cuda=PATH) and cuBLAS "
                      "(cublas=PATH)",
                      probe)};
    }
  }
  TargetOptions target;
  target.kb_dir = options.kb_dir;
  target.nvml = collect::NvmlQuery::never; // sampled by the stress run itself
  const platform::SysRoot root = make_root(target);
  collect::CollectOptions copts = collect_options(target);
  // What the loader model needs to say which libcuda.so.1 (nvcuda.dll) a program loads.
  copts.only = {"environment", "architecture", "linker", "python", "cuda"};
  if (root.os() == platform::OsFamily::windows) {
    copts.only.emplace_back("os"); // the Windows and system folders, KnownDLLs
  }
  const kb::KnowledgeBase kb = load_kb(target);
  copts.kb = &kb;
  facts::Facts facts = collect::collect(root, copts);

  collect::StressRequest request;
  request.level = options.level;
  request.gpu = options.gpu;
  request.inject = options.inject;
  request.library_override = libs.contains("cuda") ? libs.at("cuda") : std::string();
  request.cublas_override = libs.contains("cublas") ? libs.at("cublas") : std::string();
  const double seconds =
      options.timeout > 0 ? options.timeout : default_stress_timeout(options.level);
  request.timeout = std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  const bool progress = platform::stderr_is_terminal();
  const collect::StressProgress show = [&](double s, std::optional<std::uint64_t> temp) {
    fmt::print(stderr,
               "\rstress: GPU {}, level {}, {:.0f} s{}   ",
               options.gpu,
               options.level,
               s,
               temp ? fmt::format(", {} C", *temp) : std::string());
    std::fflush(stderr);
  };
  facts::StressRun run = collect::run_stress(
      root, copts, kb, facts, request, progress ? show : collect::StressProgress{});
  if (progress) {
    std::fputs("\r\033[K", stderr);
  }
  facts.stress = std::make_shared<const facts::StressRun>(run);

  report::StressReport rep;
  rep.tool_version = DOCTOR_VERSION;
  rep.kb_version = kb.version();
  rep.fail_on = options.output.fail_on;
  rep.findings = checks::run_checks(facts, kb, stress_checks());
  rep.run = std::move(run);
  const OutputOptions& out = options.output;
  write_output(out.file,
               out.format == report::Format::json
                   ? report::render_stress_json(rep)
                   : report::render_stress_text(rep, use_color(out.color, out.format, out.file)));
  return report::stress_exit_status(rep);
}

} // namespace doctor::cli
