// SPDX-License-Identifier: MIT
#include "crashes.hpp"

#include "commands.hpp"
#include "run.hpp"

#include <doctor/collect/crash_evidence.hpp>
#include <doctor/crash/analysis.hpp>
#include <doctor/kb/finding_ids.hpp>
#include <doctor/kb/render.hpp>
#include <doctor/platform/standard_output.hpp>
#include <doctor/report/crash_report.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::cli {

namespace {

// GPU names by the PCI address the kernel log uses ("0000:41:00", without the function).
void add_gpu_names(crash::MachineContext& machine,
                   const TargetOptions& target,
                   const kb::KnowledgeBase& kb) {
  const platform::SysRoot root = make_root(target);
  collect::CollectOptions options = collect_options(target);
  options.kb = &kb;
  options.only = {"pci"};
  options.nvml = collect::NvmlQuery::never;
  const facts::Facts facts = collect::collect(root, options);
  if (!facts.pci) {
    return;
  }
  for (const facts::PciDevice& gpu : facts.pci.value().nvidia_gpus) {
    std::string address = gpu.address;
    if (const auto dot = address.rfind('.'); dot != std::string::npos) {
      address.resize(dot);
    }
    if (gpu.name) {
      machine.gpus.emplace_back(address, gpu.name.value());
    }
  }
}

} // namespace

int run_crashes(const CrashesOptions& options) {
  if (!options.from.empty() && !options.target.sysroot.empty()) {
    throw CommandError{k_exit_usage, "--from cannot be combined with --sysroot"};
  }
  const kb::KnowledgeBase kb = load_kb(options.target, {KbPart::crash});
  crash::Collected collected;
  std::string target;
  if (options.from.empty()) {
    const platform::SysRoot root = make_root(options.target);
    collected = collect::collect_machine(root, kb);
    target = options.target.sysroot.empty() ? "this machine" : "sysroot " + options.target.sysroot;
    if (root.os() == platform::OsFamily::linux) {
      add_gpu_names(collected.machine, options.target, kb);
    }
  } else {
    collected = collect::collect_files(options.from, kb);
    target =
        options.from.size() == 1 ? options.from[0] : fmt::format("{} inputs", options.from.size());
    const bool any_read =
        std::any_of(collected.sources.begin(),
                    collected.sources.end(),
                    [](const crash::SourceStatus& s) { return s.status == "read"; });
    if (!any_read) {
      for (const crash::SourceStatus& s : collected.sources) {
        (void)platform::write_stderr(
            fmt::format("cudnn-doctor: error: {}: {}\n", s.source, s.detail));
      }
      throw CommandError{k_exit_usage, "no input could be read as crash evidence"};
    }
  }
  crash::CrashReport report;
  report.observations = collected.observations.size();
  report.incidents = crash::analyse(std::move(collected.observations), kb, collected.machine);
  report.sources = std::move(collected.sources);
  if (options.from.empty() && !collected.earlier_boots_covered
      && !std::any_of(
          report.sources.begin(), report.sources.end(), [](const crash::SourceStatus& s) {
            return s.source.starts_with("eventlog:");
          })) {
    FindingDraft draft;
    draft.id = kb::ids::k_crash_no_persistent_log;
    draft.tags = {"linux"};
    if (auto note = kb::render(kb, draft)) {
      report.notes.push_back(std::move(*note));
    }
  }
  const report::CrashMeta meta{DOCTOR_VERSION, kb.version(), target};
  const OutputOptions& out = options.output;
  write_output(
      out.file,
      report::render_crashes(report, meta, out.format, use_color(out.color, out.format, out.file)));
  const bool errors =
      std::any_of(report.incidents.begin(), report.incidents.end(), [](const crash::Incident& i) {
        return i.severity >= Severity::error;
      });
  return errors ? k_exit_findings : k_exit_ok;
}

} // namespace doctor::cli
