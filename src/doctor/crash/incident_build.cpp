// SPDX-License-Identifier: MIT
#include <doctor/crash/incident_build.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/render.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::crash {

namespace {

constexpr std::size_t k_max_fixes = 6;
// The finding's general fixes fill up to this many after the catalogue's specific ones.
constexpr std::size_t k_general_fill = 5;

std::string get(const Observation& obs, std::string_view name) {
  const std::string* v = obs.field(name);
  return v != nullptr ? *v : std::string();
}

std::optional<std::uint64_t> number(std::string_view text) {
  text = util::trim(text);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return util::parse_hex(text.substr(2));
  }
  return util::parse_uint(text);
}

std::string gpu_subject(const std::string& pci, const MachineContext& machine) {
  if (pci.empty()) {
    return "a GPU";
  }
  for (const auto& [address, name] : machine.gpus) {
    if (address == pci) {
      return fmt::format("GPU {} ({})", pci, name);
    }
  }
  return "GPU " + pci;
}

// The finding whose message and fixes an observation kind takes; Xids by catalogue category.
std::string finding_for(const Observation& obs, const kb::XidEntry* xid) {
  switch (obs.kind) {
  case ObservationKind::xid:
    if (xid == nullptr) {
      return "crash.gpu_driver_error";
    }
    if (xid->category == "application") {
      return "log.gpu_app_fault";
    }
    if (xid->category == "memory") {
      return "log.gpu_memory_error";
    }
    if (xid->category == "gsp") {
      return "log.gsp_error";
    }
    if (xid->code == 79) {
      return "log.gpu_fallen_off_bus";
    }
    return "crash.gpu_driver_error";
  case ObservationKind::sxid:
    return "crash.nvswitch_error";
  case ObservationKind::gpu_lost:
    return "log.gpu_fallen_off_bus";
  case ObservationKind::gpu_init_failed:
    return "log.gpu_init_failed";
  case ObservationKind::driver_mismatch:
    return "log.driver_library_mismatch";
  case ObservationKind::driver_conflict:
    return "driver.nouveau_bound";
  case ObservationKind::gsp_error:
    return "log.gsp_error";
  case ObservationKind::mce:
  case ObservationKind::edac:
  case ObservationKind::pcie_aer:
  case ObservationKind::whea:
    return "log.hardware_error";
  case ObservationKind::oom_kill:
    return "log.host_out_of_memory";
  case ObservationKind::kernel_oops:
  case ObservationKind::kernel_panic:
  case ObservationKind::lockup:
    return "crash.kernel_crash";
  case ObservationKind::bugcheck:
    return "log.bugcheck";
  case ObservationKind::tdr:
    return "log.display_tdr";
  case ObservationKind::nvidia_event:
    return xid != nullptr && xid->category == "application" ? "log.gpu_app_fault"
                                                            : "crash.gpu_driver_error";
  case ObservationKind::power_loss:
  case ObservationKind::unexpected_shutdown:
    return "log.unexpected_power_loss";
  case ObservationKind::app_crash:
    return "crash.app_crash";
  case ObservationKind::app_hang:
    return "crash.app_hang";
  }
  return "crash.gpu_driver_error";
}

void add_fix(Incident& inc, Fix fix) {
  if (inc.fixes.size() >= k_max_fixes) {
    return;
  }
  const bool seen = std::any_of(inc.fixes.begin(), inc.fixes.end(), [&](const Fix& f) {
    return f.text == fix.text && f.command == fix.command;
  });
  if (!seen) {
    inc.fixes.push_back(std::move(fix));
  }
}

// Catalogue fixes first (they are specific to the code), then the finding's.
void merge_fixes(Incident& inc,
                 const std::vector<std::string>& specific,
                 std::vector<Fix> general) {
  std::vector<Fix> generic = std::move(inc.fixes);
  inc.fixes.clear();
  for (const std::string& text : specific) {
    add_fix(inc, Fix{text, ""});
  }
  for (Fix& f : general) {
    add_fix(inc, std::move(f));
  }
  for (Fix& f : generic) {
    if (inc.fixes.size() >= k_general_fill) {
      break;
    }
    // A catalogue step that already quotes the command says the same thing.
    const bool quoted =
        !f.command.empty() && std::any_of(inc.fixes.begin(), inc.fixes.end(), [&](const Fix& have) {
          return have.text.find(f.command) != std::string::npos;
        });
    if (!quoted) {
      add_fix(inc, std::move(f));
    }
  }
}

void evidence(Incident& inc, const Observation& obs, std::string value) {
  inc.evidence.push_back(Evidence{origin_label(obs.origin), std::move(value)});
}

bool fatal_text(std::string_view text) {
  const std::string lower = util::to_lower(text);
  return lower.find("uncorrect") != std::string::npos || lower.find("fatal") != std::string::npos;
}

// "0x116" from a masked code text; nullopt if it is not a number.
std::optional<std::uint32_t> code_number(const std::string& code) {
  auto n = number(code);
  if (!n || *n > 0xFFFFFFFFULL) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*n);
}

void read_xid(Incident& inc,
              const Observation& obs,
              const kb::XidEntry* entry,
              const MachineContext& machine) {
  const std::string pci = get(obs, "pci");
  inc.subject = gpu_subject(pci, machine);
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

void read_bugcheck(Incident& inc, const Observation& obs, const kb::KnowledgeBase& kb) {
  const auto& catalog = kb.crash();
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
    evidence(inc, obs, fmt::format("P{} = {}{}", i, p, desc.empty() ? "" : " (" + desc + ")"));
  }
  if (!module.empty()) {
    const std::string offset = get(obs, "module_offset");
    const std::string how = get(obs, "blamed_by");
    evidence(inc,
             obs,
             fmt::format("faulting module {}{}{}",
                         module,
                         offset.empty() ? "" : "+" + offset,
                         how.empty() ? "" : " (found by " + how + ")"));
  }
  if (const std::string stack = get(obs, "stack_drivers"); !stack.empty()) {
    evidence(inc, obs, "drivers on the saved stack: " + stack);
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

void read_app_crash(Incident& inc, const Observation& obs, const kb::KnowledgeBase& kb) {
  const auto& catalog = kb.crash();
  std::string process = get(obs, "process");
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
    evidence(inc,
             obs,
             fmt::format("faulting module {}{}{}",
                         module,
                         offset.empty() ? "" : "+" + offset,
                         version.empty() ? "" : ", version " + version));
  }
  if (const std::string access = get(obs, "access"); !access.empty()) {
    evidence(inc, obs, "access: " + access);
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

void read_hardware(Incident& inc, const Observation& obs) {
  std::string severity = get(obs, "severity");
  const bool fatal =
      obs.kind == ObservationKind::mce || fatal_text(severity)
      || (obs.kind == ObservationKind::edac && get(obs, "type") == "UE")
      || (obs.kind == ObservationKind::whea
          && (obs.code == "1" || obs.code == "16" || obs.code == "18" || obs.code == "20"));
  inc.cause_class = fatal ? CauseClass::hardware_fault : CauseClass::hardware_unstable;
  inc.severity = fatal ? Severity::error : Severity::warning;
  switch (obs.kind) {
  case ObservationKind::mce:
    inc.title = "Machine check: the CPU reported a hardware error";
    break;
  case ObservationKind::edac:
    inc.title = fmt::format("Memory controller reported {} memory error(s)",
                            fatal ? "uncorrectable" : "corrected");
    break;
  case ObservationKind::pcie_aer:
    inc.title = fmt::format("PCIe bus error{}{}",
                            severity.empty() ? "" : " (" + severity + ")",
                            get(obs, "device").empty() ? "" : " on " + get(obs, "device"));
    break;
  default:
    inc.title =
        fmt::format("WHEA hardware error (event {}, {})", obs.code, fatal ? "fatal" : "corrected");
    break;
  }
  inc.subject = get(obs, "device").empty() ? "this machine" : get(obs, "device");
}

} // namespace

std::string platform_of(ObservationKind kind) {
  switch (kind) {
  case ObservationKind::bugcheck:
  case ObservationKind::tdr:
  case ObservationKind::nvidia_event:
  case ObservationKind::power_loss:
  case ObservationKind::unexpected_shutdown:
  case ObservationKind::whea:
  case ObservationKind::app_crash:
  case ObservationKind::app_hang:
    return "windows";
  default:
    return "linux";
  }
}

std::string origin_label(const Origin& origin) {
  return origin.locator.empty() ? origin.source : origin.source + ", " + origin.locator;
}

Incident
make_incident(const Observation& obs, const kb::KnowledgeBase& kb, const MachineContext& machine) {
  Incident inc;
  inc.kind = obs.kind;
  inc.code = obs.code;
  inc.when = obs.when;
  inc.last = obs.when;
  inc.origins.push_back(obs.origin);
  inc.fields = obs.fields;
  inc.platform = platform_of(obs.kind);
  if (obs.kind == ObservationKind::app_crash && obs.code.rfind("SIG", 0) == 0) {
    inc.platform = "linux"; // the kernel's segfault/traps line
  }

  const kb::XidEntry* xid = nullptr;
  if (obs.kind == ObservationKind::xid || obs.kind == ObservationKind::gpu_lost) {
    const auto n = number(obs.kind == ObservationKind::gpu_lost ? "79" : obs.code);
    xid = n && *n < 100000 ? kb.crash().xid(static_cast<unsigned>(*n)) : nullptr;
  } else if (obs.kind == ObservationKind::nvidia_event) {
    // nvlddmkm 13 carries the text the Linux driver prints for Xid 13.
    xid = obs.code == "13" ? kb.crash().xid(13) : nullptr;
  }

  inc.finding = finding_for(obs, obs.kind == ObservationKind::gpu_lost ? nullptr : xid);
  FindingDraft draft;
  draft.id = inc.finding;
  draft.tags = {inc.platform};
  if (inc.finding == "driver.nouveau_bound") {
    draft.params = {{"gpu", get(obs, "pci").empty() ? "the NVIDIA GPU" : get(obs, "pci")},
                    {"how", "took the GPU before the NVIDIA driver could probe it"}};
  }
  if (auto rendered = kb::render(kb, draft)) {
    inc.title = rendered->title;
    inc.severity = rendered->severity;
    inc.cause_class = rendered->cause_class;
    inc.fixes = rendered->fixes;
    inc.meaning = rendered->message;
  }
  for (const std::string& line : obs.lines) {
    evidence(inc, obs, line);
  }

  const std::string pci = get(obs, "pci");
  switch (obs.kind) {
  case ObservationKind::xid:
    read_xid(inc, obs, xid, machine);
    break;
  case ObservationKind::gpu_lost:
    inc.subject = gpu_subject(pci, machine);
    inc.title = fmt::format("{} fell off the PCIe bus", inc.subject);
    if (xid != nullptr) {
      inc.name = xid->name;
      inc.cause_class = xid->cause_class;
      merge_fixes(inc, xid->fixes, {});
    }
    break;
  case ObservationKind::sxid: {
    const bool fatal = fatal_text(get(obs, "severity"));
    inc.subject = pci.empty() ? "an NVSwitch" : "NVSwitch " + pci;
    inc.title = fmt::format("SXid {} on {}{}",
                            obs.code,
                            inc.subject,
                            get(obs, "severity").empty() ? "" : " (" + get(obs, "severity") + ")");
    inc.cause_class = fatal ? CauseClass::hardware_fault : CauseClass::hardware_unstable;
    inc.severity = fatal ? Severity::error : Severity::warning;
    break;
  }
  case ObservationKind::gpu_init_failed:
    inc.subject = gpu_subject(pci, machine);
    inc.title = fmt::format("The driver could not initialise {}{}",
                            inc.subject,
                            get(obs, "status").empty() ? "" : " (" + get(obs, "status") + ")");
    break;
  case ObservationKind::gsp_error:
    inc.subject = gpu_subject(pci, machine);
    inc.title = fmt::format("The GSP firmware of {} failed", inc.subject);
    break;
  case ObservationKind::driver_mismatch: {
    inc.subject = "the NVIDIA driver";
    const std::string client = get(obs, "client_version");
    const std::string kernel = get(obs, "kernel_version");
    inc.title =
        client.empty() || kernel.empty()
            ? std::string("Driver API mismatch between user space and the kernel module")
            : fmt::format("Driver API mismatch: user space {}, kernel module {}", client, kernel);
    break;
  }
  case ObservationKind::driver_conflict:
    inc.subject = pci.empty() ? "the NVIDIA GPU" : gpu_subject(pci, machine);
    break;
  case ObservationKind::mce:
  case ObservationKind::edac:
  case ObservationKind::pcie_aer:
  case ObservationKind::whea:
    read_hardware(inc, obs);
    break;
  case ObservationKind::oom_kill: {
    const std::string process = get(obs, "process");
    inc.subject = process.empty() ? "a process" : process;
    inc.title = fmt::format("The kernel's OOM killer ended {}{}",
                            inc.subject,
                            get(obs, "pid").empty() ? "" : " (pid " + get(obs, "pid") + ")");
    break;
  }
  case ObservationKind::kernel_oops:
  case ObservationKind::kernel_panic:
  case ObservationKind::lockup: {
    inc.subject = "the Linux kernel";
    const char* what = obs.kind == ObservationKind::kernel_panic ? "Kernel panic"
                       : obs.kind == ObservationKind::lockup     ? "Kernel lockup"
                                                                 : "Kernel Oops";
    std::string reason = get(obs, "reason").empty() ? get(obs, "message") : get(obs, "reason");
    if (obs.kind == ObservationKind::lockup && reason.empty()) {
      // "soft lockup on CPU 3 for 27 s (cuda-EvtHandlr)"
      std::string type = util::replace_all(get(obs, "type"), "_", " ");
      reason = fmt::format("{}{}{}{}",
                           type.empty() ? "lockup" : type,
                           get(obs, "cpu").empty() ? "" : " on CPU " + get(obs, "cpu"),
                           get(obs, "seconds").empty() ? "" : " for " + get(obs, "seconds") + " s",
                           get(obs, "process").empty() ? "" : " (" + get(obs, "process") + ")");
    }
    inc.title = reason.empty() ? std::string(what)
                               : fmt::format("{}: {}", what, util::sanitize(reason, 120));
    bool nvidia = false;
    for (const std::string& line : obs.lines) {
      nvidia = nvidia || line.find("nvidia") != std::string::npos;
    }
    if (nvidia) {
      inc.notes.push_back("the nvidia modules appear in this report");
    }
    break;
  }
  case ObservationKind::bugcheck:
    read_bugcheck(inc, obs, kb);
    break;
  case ObservationKind::tdr: {
    const std::string driver = get(obs, "driver");
    inc.subject = driver.empty() ? "the display driver" : driver;
    if (auto n = code_number(obs.code); n && obs.code.rfind("0x", 0) == 0) {
      if (const kb::BugCheckEntry* entry = kb.crash().bugcheck(*n)) {
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
    break;
  }
  case ObservationKind::nvidia_event: {
    inc.subject = get(obs, "device").empty() ? "the NVIDIA GPU" : get(obs, "device");
    const std::string message = get(obs, "message");
    inc.title = fmt::format("NVIDIA driver event {}{}",
                            obs.code,
                            message.empty() ? "" : ": " + util::sanitize(message, 120));
    if (xid != nullptr) {
      inc.name = xid->name;
      inc.cause_class = xid->cause_class;
      inc.notes.push_back("nvlddmkm event 13 is the Windows form of Xid 13");
      merge_fixes(inc, xid->fixes, {});
    }
    break;
  }
  case ObservationKind::power_loss: {
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
    break;
  }
  case ObservationKind::unexpected_shutdown:
    inc.subject = "this machine";
    inc.title = "The previous shutdown was unexpected (EventLog 6008)";
    inc.severity = Severity::warning;
    break;
  case ObservationKind::app_crash:
    read_app_crash(inc, obs, kb);
    break;
  case ObservationKind::app_hang:
    inc.subject = get(obs, "process").empty() ? "a program" : get(obs, "process");
    inc.title = fmt::format("{} stopped responding (Application Hang)", inc.subject);
    break;
  }
  // "a GPU fell off…" begins a sentence.
  if (inc.title.rfind("a ", 0) == 0 || inc.title.rfind("the ", 0) == 0) {
    inc.title[0] = static_cast<char>(inc.title[0] - 'a' + 'A');
  }
  return inc;
}

} // namespace doctor::crash
