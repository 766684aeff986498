// SPDX-License-Identifier: MIT
// The readers of the kinds the Linux kernel log gives (observation_kinds.cpp).
#include <doctor/crash/incident_readers.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::crash::readers {

namespace {

constexpr std::uint32_t k_max_xid_code = 100000;

// "Kernel Oops: …", the reason a kernel crash report names.
void kernel_crash(Incident& inc,
                  const Observation& obs,
                  std::string_view what,
                  const std::string& reason) {
  inc.subject = "the Linux kernel";
  inc.title =
      reason.empty() ? std::string(what) : fmt::format("{}: {}", what, util::sanitize(reason, 120));
  bool nvidia = false;
  for (const std::string& line : obs.lines) {
    nvidia = nvidia || line.find("nvidia") != std::string::npos;
  }
  if (nvidia) {
    inc.notes.push_back("the nvidia modules appear in this report");
  }
}

std::string reason_or_message(const Observation& obs) {
  return get(obs, "reason").empty() ? get(obs, "message") : get(obs, "reason");
}

} // namespace

const kb::XidEntry* xid_by_code(const Observation& obs, const kb::CrashCatalog& catalog) {
  const auto n = code_number(obs.code);
  return n && *n < k_max_xid_code ? catalog.xid(*n) : nullptr;
}

const kb::XidEntry* xid_of_lost_gpu(const Observation& /*obs*/, const kb::CrashCatalog& catalog) {
  // The message without an Xid line reports what the Xid row with the same finding reports.
  return catalog.xid_with_finding(kind_info(ObservationKind::gpu_lost).finding);
}

void nouveau_params(FindingDraft& draft, const Observation& obs) {
  draft.params = {{"gpu", get(obs, "pci").empty() ? "the NVIDIA GPU" : get(obs, "pci")},
                  {"how", "took the GPU before the NVIDIA driver could probe it"}};
}

void read_xid(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  const kb::XidEntry* entry = ctx.xid;
  inc.subject = gpu_subject(get(obs, "pci"), ctx.machine);
  const std::string what = entry != nullptr ? entry->description : "not in the Xid catalogue";
  inc.title = fmt::format("Xid {} on {}: {}", obs.code, inc.subject, what);
  if (entry == nullptr) {
    return;
  }
  inc.name = entry->name;
  inc.meaning = entry->meaning;
  inc.cause_class = entry->cause_class;
  if (entry->category == "informational") {
    inc.severity = Severity::info;
  }
  merge_fixes(inc, entry->fixes, {});
  if (!entry->immediate_action.empty()) {
    inc.notes.push_back(fmt::format("NVIDIA's catalogue: immediate action {}{}",
                                    entry->immediate_action,
                                    entry->investigatory_action.empty()
                                        ? std::string()
                                        : ", then " + entry->investigatory_action));
  }
}

void read_sxid(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  const std::string pci = get(obs, "pci");
  const std::string severity = get(obs, "severity");
  const bool fatal = fatal_text(severity);
  inc.subject = pci.empty() ? "an NVSwitch" : "NVSwitch " + pci;
  inc.title = fmt::format(
      "SXid {} on {}{}", obs.code, inc.subject, severity.empty() ? "" : " (" + severity + ")");
  inc.cause_class = fatal ? CauseClass::hardware_fault : CauseClass::hardware_unstable;
  inc.severity = fatal ? Severity::error : Severity::warning;
}

void read_gpu_lost(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  inc.subject = gpu_subject(get(obs, "pci"), ctx.machine);
  inc.title = fmt::format("{} fell off the PCIe bus", inc.subject);
  if (ctx.xid != nullptr) {
    inc.name = ctx.xid->name;
    inc.cause_class = ctx.xid->cause_class;
    merge_fixes(inc, ctx.xid->fixes, {});
  }
}

void read_gpu_init_failed(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  inc.subject = gpu_subject(get(obs, "pci"), ctx.machine);
  inc.title = fmt::format("The driver could not initialise {}{}",
                          inc.subject,
                          get(obs, "status").empty() ? "" : " (" + get(obs, "status") + ")");
}

void read_driver_mismatch(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  inc.subject = "the NVIDIA driver";
  const std::string client = get(obs, "client_version");
  const std::string kernel = get(obs, "kernel_version");
  inc.title =
      client.empty() || kernel.empty()
          ? std::string("Driver API mismatch between user space and the kernel module")
          : fmt::format("Driver API mismatch: user space {}, kernel module {}", client, kernel);
}

void read_driver_conflict(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  const std::string pci = get(obs, "pci");
  inc.subject = pci.empty() ? "the NVIDIA GPU" : gpu_subject(pci, ctx.machine);
}

void read_gsp_error(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  inc.subject = gpu_subject(get(obs, "pci"), ctx.machine);
  inc.title = fmt::format("The GSP firmware of {} failed", inc.subject);
}

void read_mce(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  hardware_verdict(inc, obs, true); // a machine check is never a corrected error
  inc.title = "Machine check: the CPU reported a hardware error";
}

void read_edac(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  const bool fatal = fatal_text(get(obs, "severity")) || get(obs, "type") == "UE";
  hardware_verdict(inc, obs, fatal);
  inc.title = fmt::format("Memory controller reported {} memory error(s)",
                          fatal ? "uncorrectable" : "corrected");
}

void read_pcie_aer(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  const std::string severity = get(obs, "severity");
  hardware_verdict(inc, obs, fatal_text(severity));
  inc.title = fmt::format("PCIe bus error{}{}",
                          severity.empty() ? "" : " (" + severity + ")",
                          get(obs, "device").empty() ? "" : " on " + get(obs, "device"));
}

void read_oom_kill(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  const std::string process = get(obs, "process");
  inc.subject = process.empty() ? "a process" : process;
  inc.title = fmt::format("The kernel's OOM killer ended {}{}",
                          inc.subject,
                          get(obs, "pid").empty() ? "" : " (pid " + get(obs, "pid") + ")");
}

void read_kernel_oops(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  kernel_crash(inc, obs, "Kernel Oops", reason_or_message(obs));
}

void read_kernel_panic(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  kernel_crash(inc, obs, "Kernel panic", reason_or_message(obs));
}

void read_lockup(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  std::string reason = reason_or_message(obs);
  if (reason.empty()) {
    // "soft lockup on CPU 3 for 27 s (cuda-EvtHandlr)"
    const std::string type = util::replace_all(get(obs, "type"), "_", " ");
    reason = fmt::format("{}{}{}{}",
                         type.empty() ? "lockup" : type,
                         get(obs, "cpu").empty() ? "" : " on CPU " + get(obs, "cpu"),
                         get(obs, "seconds").empty() ? "" : " for " + get(obs, "seconds") + " s",
                         get(obs, "process").empty() ? "" : " (" + get(obs, "process") + ")");
  }
  kernel_crash(inc, obs, "Kernel lockup", reason);
}

} // namespace doctor::crash::readers
