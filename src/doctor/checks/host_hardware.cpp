// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

// Family 6 of the troubleshooting guide (unstable hardware), the host's part: the guide tells a
// person to run memory and disk diagnostics when training crashes at random. The doctor reads
// what the hardware already counted: the memory controllers' corrected and uncorrected errors
// (Linux EDAC) and the disks' own SMART verdict and media counters (smartctl, asked by `probe`).
// A GPU's own state is in unstable_hardware.cpp.
namespace doctor::checks {

namespace {

// At most this many DIMMs are named in the message; the evidence lists every one with errors.
constexpr std::size_t k_named_dimms = 4;
// At most this many CPUs or banks are named in a message.
constexpr std::size_t k_named_ids = 8;

// "DIMM CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (mc0/dimm2): 12 corrected, 1 uncorrected".
std::string describe_dimm(const facts::EdacController& mc, const facts::EdacDimm& d) {
  const std::string where = fmt::format("{}/{}", mc.name, d.name);
  return fmt::format("{} ({}): {} corrected, {} uncorrected",
                     d.label.empty() ? std::string("a DIMM without a label") : "DIMM " + d.label,
                     where,
                     d.ce_count,
                     d.ue_count);
}

// What in `disk`'s SMART data says its media fail, one phrase each.
std::vector<std::string> disk_problems(const facts::DiskHealth& disk) {
  std::vector<std::string> out;
  if (disk.passed && !*disk.passed) {
    out.emplace_back("the drive's own SMART verdict is FAILED");
  } else if ((disk.exit_status & 0x8) != 0) {
    out.emplace_back("smartctl says the disk is failing");
  }
  const std::pair<std::string_view, std::string_view> counters[] = {
      {"reallocated_sectors", "sectors reallocated"},
      {"pending_sectors", "sectors pending reallocation (unreadable now)"},
      {"offline_uncorrectable", "sectors uncorrectable"},
      {"media_errors", "media and data integrity errors"}};
  for (const auto& [key, what] : counters) {
    if (const auto it = disk.counters.find(std::string(key));
        it != disk.counters.end() && it->second > 0) {
      out.push_back(fmt::format("{} {}", it->second, what));
    }
  }
  if (const auto it = disk.counters.find("critical_warning");
      it != disk.counters.end() && it->second != 0) {
    out.push_back(fmt::format("NVMe critical warning {:#x}", it->second));
  }
  if (const auto it = disk.counters.find("percentage_used");
      it != disk.counters.end() && it->second >= 100) {
    out.push_back(fmt::format("{}% of its rated endurance used", it->second));
  }
  return out;
}

} // namespace

// A disk whose SMART data says its media are failing: its own verdict, or counters of
// reallocated, pending or uncorrectable sectors, NVMe media errors or a critical warning. A
// failing disk corrupts checkpoints and datasets and hangs the processes that read them. Where
// `probe` could not ask (smartctl not installed), an info finding says so.
void check_disk_health(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& disks = facts.host_hardware.disks;
  if (!disks) {
    if (facts.probe.ran && facts.collection.live) {
      FindingDraft d;
      d.id = kb::ids::k_probe_disk_health_unknown;
      d.subject = "disks";
      d.params = {{"reason", disks.reason()}};
      d.tags = {facts.collection.os_family == "windows" ? "windows" : "linux"};
      out.add(std::move(d));
    }
    return;
  }
  for (const facts::DiskHealth& disk : *disks) {
    const std::vector<std::string> problems = disk_problems(disk);
    if (problems.empty()) {
      continue;
    }
    const std::string name =
        disk.model.empty() ? disk.device : fmt::format("{} ({})", disk.device, disk.model);
    FindingDraft d;
    d.id = kb::ids::k_hardware_disk_failing;
    d.subject = name;
    d.params = {{"disk", name}, {"detail", util::join(problems, "; ")}, {"device", disk.device}};
    for (const std::string& p : problems) {
      d.evidence.push_back(Evidence{"smartctl", p});
    }
    if (disk.passed && !*disk.passed) {
      d.severity = Severity::critical;
    }
    out.add(std::move(d));
  }
}

// Hardware errors Windows logged through WHEA (System log, Microsoft-Windows-WHEA-Logger):
// corrected ones are a warning (the hardware is marginal: a link, a DIMM, a CPU under an
// overclock), fatal ones an error (each ended in a crash, BugCheck 0x124).
void check_whea_errors(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& whea = facts.host_hardware.whea;
  if (!whea || (whea->fatal == 0 && whea->corrected == 0)) {
    return;
  }
  std::vector<std::string> events;
  for (const auto& [id, n] : whea->by_event) {
    events.push_back(fmt::format("event {}: {}", id, n));
  }
  FindingDraft d;
  d.id = kb::ids::k_hardware_whea_errors;
  d.subject = "hardware errors (WHEA)";
  d.params = {{"fatal", std::to_string(whea->fatal)},
              {"corrected", std::to_string(whea->corrected)},
              {"events", util::join(events, ", ")}};
  d.evidence.push_back(Evidence{whea.source(),
                                fmt::format("Microsoft-Windows-WHEA-Logger: {} fatal, {} corrected "
                                            "({})",
                                            whea->fatal,
                                            whea->corrected,
                                            util::join(events, ", "))});
  if (whea->fatal > 0) {
    d.severity = Severity::error;
  }
  d.tags = {"windows"};
  out.add(std::move(d));
}

// Machine checks the Linux kernel logged in this boot (collected by `probe`): corrected ones are
// a warning (marginal hardware: an overclock, an undervolt, failing memory), any uncorrected one
// is critical (data was lost; the next one may panic the kernel). Notices without a record are
// counted as unclassified events and warn.
void check_machine_checks(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& mce = facts.host_hardware.machine_checks;
  if (!mce || mce->events == 0) {
    return;
  }
  const auto numbers = [](const std::vector<std::uint64_t>& ids) {
    std::vector<std::string> parts;
    for (const std::uint64_t n : ids) {
      if (parts.size() == k_named_ids) {
        parts.push_back(fmt::format("{} more", ids.size() - k_named_ids));
        break;
      }
      parts.push_back(std::to_string(n));
    }
    return util::join(parts, ", ");
  };
  std::string where = "the log names no CPU or bank (mcelog or rasdaemon took the records)";
  if (!mce->cpus.empty()) {
    where = fmt::format("{} {}; {} {}",
                        mce->cpus.size() == 1 ? "CPU" : "CPUs",
                        numbers(mce->cpus),
                        mce->banks.size() == 1 ? "bank" : "banks",
                        numbers(mce->banks));
  }
  std::string when = mce->first == mce->last ? fmt::format("at {}", mce->first)
                                             : fmt::format("from {} to {}", mce->first, mce->last);
  if (mce->at_boot > 0) {
    when += fmt::format(
        "; {} logged as the kernel started, left in the banks from before the "
        "last reset",
        mce->at_boot);
  }
  FindingDraft d;
  d.id = kb::ids::k_hardware_machine_check_errors;
  d.subject = "machine checks";
  d.params = {{"events", std::to_string(mce->events)},
              {"corrected", std::to_string(mce->corrected)},
              {"uncorrected", std::to_string(mce->uncorrected)},
              {"unclassified", std::to_string(mce->unclassified)},
              {"where", where},
              {"when", when}};
  for (const std::string& line : mce->lines) {
    d.evidence.push_back(Evidence{mce.source(), line});
  }
  if (mce->uncorrected > 0) {
    d.severity = Severity::critical;
  }
  d.tags = {"linux"};
  out.add(std::move(d));
}

// Corrected or uncorrected memory errors counted by any memory controller since boot. Corrected
// errors are a warning (the memory still works, but a DIMM that corrects errors is failing, and
// ECC cannot correct every error it will make); uncorrected ones are critical (data was lost; the
// kernel may have killed processes or panicked).
void check_host_memory_errors(const facts::Facts& facts,
                              const kb::KnowledgeBase&,
                              FindingSink& out) {
  const auto& edac = facts.host_hardware.edac;
  if (!edac) {
    return;
  }
  std::uint64_t ce = 0;
  std::uint64_t ue = 0;
  std::vector<std::string> named;
  std::size_t dimms_with_errors = 0;
  FindingDraft d;
  for (const facts::EdacController& mc : *edac) {
    ce += mc.ce_count;
    ue += mc.ue_count;
    if (mc.ce_count == 0 && mc.ue_count == 0) {
      continue;
    }
    d.evidence.push_back(
        Evidence{fmt::format("file:/sys/devices/system/edac/mc/{}/ce_count", mc.name),
                 fmt::format("{}{}: {} corrected, {} uncorrected errors since boot",
                             mc.name,
                             mc.mc_name.empty() ? "" : fmt::format(" ({})", mc.mc_name),
                             mc.ce_count,
                             mc.ue_count)});
    for (const facts::EdacDimm& dimm : mc.dimms) {
      if (dimm.ce_count == 0 && dimm.ue_count == 0) {
        continue;
      }
      ++dimms_with_errors;
      if (named.size() < k_named_dimms) {
        named.push_back(describe_dimm(mc, dimm));
      }
      d.evidence.push_back(
          Evidence{fmt::format("file:/sys/devices/system/edac/mc/{}/{}", mc.name, dimm.name),
                   describe_dimm(mc, dimm)});
    }
  }
  if (ce == 0 && ue == 0) {
    return;
  }
  if (dimms_with_errors > named.size()) {
    named.push_back(fmt::format("{} more", dimms_with_errors - named.size()));
  }
  d.id = kb::ids::k_hardware_host_memory_errors;
  d.subject = "host memory";
  d.params = {{"corrected", std::to_string(ce)},
              {"uncorrected", std::to_string(ue)},
              {"where",
               named.empty() ? std::string("the EDAC driver does not say which DIMM")
                             : util::join(named, "; ")}};
  if (ue > 0) {
    d.severity = Severity::critical;
  }
  d.tags = {"linux"}; // EDAC is Linux's
  out.add(std::move(d));
}

} // namespace doctor::checks
