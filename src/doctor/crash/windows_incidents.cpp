// SPDX-License-Identifier: MIT
// The readers of the kinds Windows dumps and event logs give (observation_kinds.cpp); app_crash
// also reads the Linux kernel's report of a user-space crash.
#include <doctor/crash/incident_readers.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace doctor::crash::readers {

namespace {

// The WHEA-Logger event ids of fatal hardware errors (1 fatal, 16 fatal PCIe, 18 fatal machine
// check, 20 fatal other): research note anchors-crash-forensics.md 4.1. The others (17, 19, 47…)
// report corrected errors.
constexpr std::array<std::string_view, 4> k_fatal_whea_events = {"1", "16", "18", "20"};

} // namespace

const kb::XidEntry* xid_of_nvlddmkm_event(const Observation& obs, const kb::CrashCatalog& catalog) {
  const auto id = code_number(obs.code);
  return id ? catalog.xid_for_nvlddmkm_event(*id) : nullptr;
}

void read_bugcheck(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  const auto& catalog = ctx.kb.crash();
  const auto code = code_number(obs.code);
  const kb::BugCheckEntry* entry = code ? catalog.bugcheck(*code) : nullptr;
  const std::string module = get(obs, "module");
  const kb::CrashModuleEntry* mod = module.empty() ? nullptr : catalog.module(module);
  std::string where;
  if (!module.empty()) {
    std::string built = get(obs, "module_timestamp");
    where = fmt::format(" in {}{}{}",
                        module,
                        mod != nullptr ? " (" + mod->component + ")" : std::string(),
                        built.empty() ? std::string() : ", built " + built);
  }
  const std::string name = entry != nullptr ? entry->name : "not in the bug check catalogue";
  inc.title = fmt::format("Bug check {} {}{}", obs.code, name, where);
  inc.subject = module.empty() ? "this machine" : module;
  for (int i = 1; i <= 4; ++i) {
    const std::string p = get(obs, fmt::format("param{}", i));
    if (p.empty()) {
      continue;
    }
    std::string desc;
    if (entry != nullptr && static_cast<std::size_t>(i) <= entry->params.size()) {
      desc = entry->params[static_cast<std::size_t>(i) - 1];
    }
    add_evidence(inc, obs, fmt::format("P{} = {}{}", i, p, desc.empty() ? "" : " (" + desc + ")"));
  }
  if (!module.empty()) {
    const std::string offset = get(obs, "module_offset");
    const std::string how = get(obs, "blamed_by");
    add_evidence(inc,
                 obs,
                 fmt::format("faulting module {}{}{}",
                             module,
                             offset.empty() ? "" : "+" + offset,
                             how.empty() ? "" : " (found by " + how + ")"));
  }
  if (const std::string stack = get(obs, "stack_drivers"); !stack.empty()) {
    add_evidence(inc, obs, "drivers on the saved stack: " + stack);
  }
  if (entry == nullptr) {
    return;
  }
  inc.name = entry->name;
  inc.meaning = entry->meaning;
  inc.cause_class = entry->cause_class;
  if (entry->points_at == "live_dump") {
    inc.severity = Severity::warning;
  }
  if (mod != nullptr && mod->gpu && entry->points_at != "hardware" && entry->points_at != "power") {
    inc.cause_class = CauseClass::os_tdr_or_bugcheck;
    inc.notes.push_back(
        fmt::format("the crash address lies in {}, part of the {}: the GPU driver "
                    "(or the GPU under it) failed",
                    module,
                    mod->component));
  } else if (entry->points_at == "hardware") {
    inc.notes.push_back("this code points at hardware: CPU, memory, PCIe, power or overclocking");
  }
  merge_fixes(inc, entry->fixes, {});
}

void read_tdr(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  const std::string driver = get(obs, "driver");
  inc.subject = driver.empty() ? "the display driver" : driver;
  if (auto n = code_number(obs.code); n && obs.code.rfind("0x", 0) == 0) {
    // A LiveKernelEvent: its code is the bug check code of the live dump.
    if (const kb::BugCheckEntry* entry = ctx.kb.crash().bugcheck(*n)) {
      inc.name = entry->name;
      merge_fixes(inc, entry->fixes, {});
    }
    inc.title = fmt::format("GPU timeout recovered (live kernel event {}{})",
                            obs.code,
                            inc.name.empty() ? "" : " " + inc.name);
  } else {
    inc.title = fmt::format("{} stopped responding and was reset (TDR, event {})",
                            driver.empty() ? std::string("The display driver") : driver,
                            obs.code);
  }
  inc.severity = Severity::warning;
}

void read_nvidia_event(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  inc.subject = get(obs, "device").empty() ? "the NVIDIA GPU" : get(obs, "device");
  const std::string message = get(obs, "message");
  inc.title = fmt::format("NVIDIA driver event {}{}",
                          obs.code,
                          message.empty() ? "" : ": " + util::sanitize(message, 120));
  if (ctx.xid != nullptr) {
    inc.name = ctx.xid->name;
    inc.cause_class = ctx.xid->cause_class;
    inc.notes.push_back(
        fmt::format("nvlddmkm event {} is the Windows form of Xid {}", obs.code, ctx.xid->code));
    merge_fixes(inc, ctx.xid->fixes, {});
  }
}

void read_power_loss(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  inc.subject = "this machine";
  inc.title = "The machine restarted without a bug check (power lost or reset; Kernel-Power 41)";
  const std::string button = get(obs, "power_button_timestamp");
  const std::string long_press = util::to_lower(get(obs, "long_power_button_press"));
  if ((!button.empty() && button != "0") || long_press == "true") {
    inc.notes.push_back(
        "the power button was pressed: the machine had hung before it was "
        "switched off");
  } else {
    inc.notes.push_back(
        "no bug check and no power button: power was cut or the machine was "
        "reset (a power supply tripping under GPU load does this)");
  }
}

void read_unexpected_shutdown(Incident& inc,
                              const Observation& /*obs*/,
                              const ReadContext& /*ctx*/) {
  inc.subject = "this machine";
  inc.title = "The previous shutdown was unexpected (EventLog 6008)";
  inc.severity = Severity::warning;
}

void read_whea(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  const bool fatal = fatal_text(get(obs, "severity"))
                     || std::find(k_fatal_whea_events.begin(), k_fatal_whea_events.end(), obs.code)
                            != k_fatal_whea_events.end();
  hardware_verdict(inc, obs, fatal);
  inc.title =
      fmt::format("WHEA hardware error (event {}, {})", obs.code, fatal ? "fatal" : "corrected");
}

void read_app_crash(Incident& inc, const Observation& obs, const ReadContext& ctx) {
  const auto& catalog = ctx.kb.crash();
  const std::string process = get(obs, "process");
  const std::string module = get(obs, "module");
  const kb::CrashModuleEntry* mod = module.empty() ? nullptr : catalog.module(module);
  const auto code = code_number(obs.code);
  const kb::ExceptionCodeEntry* exc = code ? catalog.exception(*code) : nullptr;
  inc.subject = process.empty() ? "a program" : process;
  std::string in;
  if (!module.empty()) {
    in = fmt::format(" in {}{}", module, mod != nullptr ? " (" + mod->component + ")" : "");
  }
  inc.title = fmt::format("{} crashed{}: {}{}",
                          inc.subject,
                          in,
                          obs.code.empty() ? "unknown exception" : obs.code,
                          exc != nullptr ? " " + exc->name : "");
  if (!module.empty()) {
    const std::string offset =
        get(obs, "module_offset").empty() ? get(obs, "offset") : get(obs, "module_offset");
    const std::string version = get(obs, "module_version");
    add_evidence(inc,
                 obs,
                 fmt::format("faulting module {}{}{}",
                             module,
                             offset.empty() ? "" : "+" + offset,
                             version.empty() ? "" : ", version " + version));
  }
  if (const std::string access = get(obs, "access"); !access.empty()) {
    add_evidence(inc, obs, "access: " + access);
  }
  if (exc != nullptr) {
    inc.name = exc->name;
    inc.meaning = exc->meaning;
    inc.cause_class = exc->cause_class;
    merge_fixes(inc, exc->fixes, {});
  }
  if (mod != nullptr && mod->gpu) {
    inc.notes.push_back(fmt::format(
        "the crash is inside {} ({}): compare its version with the rest of the GPU stack",
        module,
        mod->component));
  }
}

void read_app_hang(Incident& inc, const Observation& obs, const ReadContext& /*ctx*/) {
  inc.subject = get(obs, "process").empty() ? "a program" : get(obs, "process");
  inc.title = fmt::format("{} stopped responding (Application Hang)", inc.subject);
}

} // namespace doctor::crash::readers
