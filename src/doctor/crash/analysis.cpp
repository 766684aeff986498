// SPDX-License-Identifier: MIT
#include <doctor/crash/analysis.hpp>
#include <doctor/crash/incident_build.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace doctor::crash {

namespace {

constexpr std::int64_t k_second = 1000000;
constexpr std::int64_t k_burst = k_second;                  // a burst: within one second
constexpr std::int64_t k_repeat = k_second * 60 * 10;       // a repeating error: 10 minutes
constexpr std::int64_t k_secondary_window = 30 * k_second;  // Xid 43/45 after another Xid
constexpr std::int64_t k_crash_window = k_second * 60 * 30; // one Windows crash, several records
constexpr std::int64_t k_tdr_window = 60 * k_second;        // the records of one TDR
constexpr std::int64_t k_aer_window = 120 * k_second;       // PCIe errors before a GPU was lost
constexpr std::size_t k_max_origins = 8;
constexpr std::size_t k_max_evidence = 12;
constexpr std::size_t k_lookback = 64;

std::string field(const Incident& inc, std::string_view name) {
  for (const auto& [k, v] : inc.fields) {
    if (k == name) {
      return v;
    }
  }
  return {};
}

// Microseconds between two times of the same clock: absolute, or uptime within one boot.
std::optional<std::int64_t> distance(const When& a, const When& b) {
  if (a.utc_usec && b.utc_usec) {
    return std::llabs(*a.utc_usec - *b.utc_usec);
  }
  if (a.uptime_usec && b.uptime_usec && a.boot == b.boot) {
    return std::llabs(*a.uptime_usec - *b.uptime_usec);
  }
  return std::nullopt;
}

// b after a (or at the same time) by at most `window`; without comparable times, b follows a
// in the same source.
bool shortly_after(const Incident& a, const Incident& b, std::int64_t window) {
  if (a.last.utc_usec && b.when.utc_usec) {
    const std::int64_t d = *b.when.utc_usec - *a.last.utc_usec;
    return d >= -k_second && d <= window;
  }
  if (a.last.uptime_usec && b.when.uptime_usec && a.last.boot == b.when.boot) {
    const std::int64_t d = *b.when.uptime_usec - *a.last.uptime_usec;
    return d >= -k_second && d <= window;
  }
  return !a.origins.empty() && !b.origins.empty() && a.origins[0].source == b.origins[0].source
         && !b.when.utc_usec && !b.when.uptime_usec;
}

std::string subject_key(const Incident& inc) {
  std::string pci = field(inc, "pci");
  if (!pci.empty()) {
    return pci;
  }
  std::string key = field(inc, "process") + "|" + field(inc, "module") + "|" + field(inc, "device");
  return key;
}

// The processes an incident was seen in, for the "many processes, one GPU" pattern.
void add_process(Incident& inc, const std::string& who) {
  if (who.empty() || who == "unknown") {
    return;
  }
  for (auto& [k, v] : inc.fields) {
    if (k == "processes") {
      for (std::string_view p : util::split(v, ',')) {
        if (p == who) {
          return;
        }
      }
      v += "," + who;
      return;
    }
  }
  inc.fields.emplace_back("processes", who);
}

std::string who(const Incident& inc) {
  const std::string pid = field(inc, "pid");
  return pid.empty() || pid == "unknown" ? field(inc, "process") : pid;
}

void absorb(Incident& into, Incident&& from) {
  into.count += from.count;
  add_process(into, who(into));
  add_process(into, who(from));
  // The list must outlive the views split() returns into it.
  const std::string listed = field(from, "processes");
  for (std::string_view p : util::split(listed, ',')) {
    add_process(into, std::string(p));
  }
  if (from.last.utc_usec || from.last.uptime_usec || !from.last.label.empty()) {
    into.last = from.last;
  }
  for (Origin& o : from.origins) {
    if (into.origins.size() < k_max_origins) {
      into.origins.push_back(std::move(o));
    }
  }
  for (Evidence& e : from.evidence) {
    const bool seen = std::any_of(into.evidence.begin(),
                                  into.evidence.end(),
                                  [&](const Evidence& x) { return x.value == e.value; });
    if (!seen && into.evidence.size() < k_max_evidence) {
      into.evidence.push_back(std::move(e));
    }
  }
  for (std::string& n : from.notes) {
    if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end()) {
      into.notes.push_back(std::move(n));
    }
  }
  // Fields the first record lacked (a dump's module, an event's dump path) fill in.
  for (auto& [k, v] : from.fields) {
    if (field(into, k).empty() && !v.empty()) {
      into.fields.emplace_back(k, std::move(v));
    }
  }
}

// Kinds whose records are one event each: two crashes are two incidents, however close.
bool one_per_event(ObservationKind kind) {
  switch (kind) {
  case ObservationKind::bugcheck:
  case ObservationKind::power_loss:
  case ObservationKind::unexpected_shutdown:
  case ObservationKind::app_crash:
  case ObservationKind::app_hang:
  case ObservationKind::oom_kill:
  case ObservationKind::kernel_oops:
  case ObservationKind::kernel_panic:
    return true;
  default:
    return false;
  }
}

// The same error again on the same subject: a burst (within a second), or for errors that
// repeat while a fault lasts (Xids, PCIe and memory errors, TDRs), within ten minutes of the
// last one.
bool same_burst(const Incident& a, const Incident& b) {
  if (a.kind != b.kind || a.code != b.code || subject_key(a) != subject_key(b)) {
    return false;
  }
  if (a.consequence_of || b.consequence_of) {
    return false;
  }
  return shortly_after(a, b, one_per_event(a.kind) ? k_burst : k_repeat);
}

// The dump, the BugCheck event and Kernel-Power 41 of one crash carry the same code; a 6008
// belongs to the crash or power loss next to it.
bool same_windows_crash(const Incident& a, const Incident& b) {
  const auto d = distance(a.when, b.when);
  if (!d || *d > k_crash_window) {
    return false;
  }
  if (a.kind == ObservationKind::bugcheck && b.kind == ObservationKind::bugcheck) {
    // Two records of one crash come from different places (a dump, event 1001, event 41); two
    // crashes with the same code come as two records of the same kind.
    return a.code == b.code
           && (a.origins[0].source != b.origins[0].source
               || field(a, "event_id") != field(b, "event_id"));
  }
  // One GPU timeout leaves several records: Display 4101, nvlddmkm 153, a LiveKernelEvent, the
  // application's own report.
  if (a.kind == ObservationKind::tdr && b.kind == ObservationKind::tdr) {
    return *d <= k_tdr_window && field(a, "event_id") != field(b, "event_id");
  }
  const auto is_restart = [](const Incident& i) {
    return i.kind == ObservationKind::bugcheck || i.kind == ObservationKind::power_loss;
  };
  return (is_restart(a) && b.kind == ObservationKind::unexpected_shutdown)
         || (a.kind == ObservationKind::unexpected_shutdown && is_restart(b));
}

// Prefer the record that knows most: a dump (module, parameters) over events.
bool richer(const Incident& a, const Incident& b) {
  const bool a_module = !field(a, "module").empty();
  const bool b_module = !field(b, "module").empty();
  if (a_module != b_module) {
    return a_module;
  }
  return a.kind != ObservationKind::unexpected_shutdown
         && b.kind == ObservationKind::unexpected_shutdown;
}

std::vector<Incident> fold(std::vector<Incident> in) {
  std::vector<Incident> out;
  for (Incident& inc : in) {
    const std::size_t from = out.size() > k_lookback ? out.size() - k_lookback : 0;
    // The newest earlier incident this one belongs to, and how.
    std::optional<std::size_t> match;
    bool crash = false;
    for (std::size_t i = out.size(); i-- > from;) {
      if (same_burst(out[i], inc)) {
        match = i;
        break;
      }
      if (same_windows_crash(out[i], inc)) {
        match = i;
        crash = true;
        break;
      }
    }
    if (!match) {
      out.push_back(std::move(inc));
      continue;
    }
    Incident& prev = out[*match];
    if (crash && richer(inc, prev)) {
      // The dump leads: it names the module. The incident keeps the earliest time.
      Incident older = std::move(prev);
      prev = std::move(inc);
      const When first = older.when;
      absorb(prev, std::move(older));
      prev.when = first;
    } else {
      absorb(prev, std::move(inc));
    }
  }
  return out;
}

bool is_secondary(const Incident& inc, const kb::KnowledgeBase& kb) {
  if (inc.kind != ObservationKind::xid) {
    return false;
  }
  const kb::XidEntry* e = nullptr;
  if (auto n = util::parse_uint(inc.code); n && *n < 100000) {
    e = kb.crash().xid(static_cast<unsigned>(*n));
  }
  return e != nullptr && e->secondary;
}

void link_consequences(std::vector<Incident>& incidents, const kb::KnowledgeBase& kb) {
  for (std::size_t i = 0; i < incidents.size(); ++i) {
    Incident& inc = incidents[i];
    const std::string caused_by = field(inc, "caused_by");
    const std::string pci = field(inc, "pci");
    for (std::size_t j = i; j-- > 0;) {
      const Incident& prev = incidents[j];
      if (prev.consequence_of) {
        continue;
      }
      const bool same_gpu = pci.empty() || field(prev, "pci").empty() || field(prev, "pci") == pci;
      if (!same_gpu) {
        continue;
      }
      bool root = false;
      if (!caused_by.empty()) {
        root = prev.kind == ObservationKind::xid && prev.code == caused_by;
      } else if (is_secondary(inc, kb)) {
        root = prev.kind == ObservationKind::xid && !is_secondary(prev, kb)
               && shortly_after(prev, inc, k_secondary_window);
      } else if (inc.kind == ObservationKind::gpu_lost) {
        root = prev.kind == ObservationKind::xid && prev.code == "79"
               && shortly_after(prev, inc, k_secondary_window);
      }
      if (root) {
        inc.consequence_of = j;
        inc.notes.push_back(
            fmt::format("a consequence of the {} {} before it",
                        to_string(prev.kind) == "xid" ? "Xid" : to_string(prev.kind),
                        prev.code));
        break;
      }
    }
  }
}

void note_patterns(std::vector<Incident>& incidents, const MachineContext& machine) {
  // The same application-class Xid on one GPU from several processes: the GPU, not the code.
  std::map<std::string, std::set<std::string>> processes; // "code|pci" -> pids/names
  for (const Incident& inc : incidents) {
    if (inc.kind == ObservationKind::xid && (inc.code == "13" || inc.code == "31")
        && !field(inc, "pci").empty()) {
      auto& set = processes[inc.code + "|" + field(inc, "pci")];
      if (const std::string w = who(inc); !w.empty() && w != "unknown") {
        set.insert(w);
      }
      const std::string listed = field(inc, "processes");
      for (std::string_view p : util::split(listed, ',')) {
        if (!p.empty()) {
          set.insert(std::string(p));
        }
      }
    }
  }
  for (Incident& inc : incidents) {
    if (inc.kind != ObservationKind::xid) {
      continue;
    }
    auto it = processes.find(inc.code + "|" + field(inc, "pci"));
    if (it != processes.end() && it->second.size() >= 3) {
      inc.cause_class = CauseClass::hardware_unstable;
      inc.notes.push_back(fmt::format(
          "Xid {} came from {} different processes on this GPU: suspect the GPU, not one "
          "program (NVIDIA's workflow: run dcgmi diag -r 3, then field diagnostics)",
          inc.code,
          it->second.size()));
    }
    if (inc.code == "154") {
      const std::string action = field(inc, "recovery_action");
      inc.notes.push_back(action.empty() ? "the driver states a recovery action: follow it"
                                         : "the driver's own verdict: " + action);
    }
  }

  // Repeated TDRs, and what the machine's TDR settings say about them.
  std::size_t tdrs = 0;
  for (const Incident& inc : incidents) {
    if (inc.kind == ObservationKind::tdr
        || (inc.kind == ObservationKind::bugcheck && inc.code == "0x116")) {
      ++tdrs; // incidents, not records: one TDR leaves several records
    }
  }
  for (Incident& inc : incidents) {
    const bool tdr = inc.kind == ObservationKind::tdr
                     || (inc.kind == ObservationKind::bugcheck && inc.code == "0x116");
    if (!tdr) {
      continue;
    }
    if (tdrs >= 2) {
      inc.notes.push_back(
          fmt::format("{} GPU timeouts (TDR) in this evidence: a pattern, not a "
                      "one-off",
                      tdrs));
    }
    if (machine.tdr_settings_read) {
      const std::uint32_t delay = machine.tdr_delay.value_or(2);
      if (machine.tdr_level && *machine.tdr_level == 0) {
        inc.notes.push_back("TdrLevel is 0 on this machine: timeout detection is off now");
      } else if (delay <= 2) {
        inc.notes.push_back(fmt::format(
            "TdrDelay is {} s on this machine{}: a CUDA kernel running longer on a GPU that drives "
            "a display is reset; raise TdrDelay or compute on a GPU without a display",
            delay,
            machine.tdr_delay ? "" : " (the default)"));
      } else {
        inc.notes.push_back(
            fmt::format("TdrDelay is already {} s on this machine: a timeout "
                        "this long points at a hung GPU (driver, heat, power, "
                        "overclock) rather than a long kernel",
                        delay));
      }
    }
  }

  // Different stop codes on consecutive crashes that no driver explains: memory, overclock, power.
  std::set<std::string> codes;
  bool any_driver = false;
  std::size_t bugchecks = 0;
  for (const Incident& inc : incidents) {
    if (inc.kind == ObservationKind::bugcheck) {
      ++bugchecks;
      codes.insert(inc.code);
      const std::string module = util::to_lower(field(inc, "module"));
      any_driver = any_driver
                   || (!module.empty() && module != "ntoskrnl.exe" && module != "hal.dll"
                       && module.rfind("ntkrnl", 0) != 0);
    }
  }
  if (bugchecks >= 2 && codes.size() >= 2 && !any_driver) {
    for (Incident& inc : incidents) {
      if (inc.kind == ObservationKind::bugcheck) {
        inc.notes.push_back(fmt::format(
            "{} different stop codes and no driver named by any dump: the classic sign of "
            "unstable memory, CPU overclock or power rather than one driver",
            codes.size()));
      }
    }
  }

  // PCIe errors shortly before a GPU was lost.
  for (std::size_t i = 0; i < incidents.size(); ++i) {
    Incident& inc = incidents[i];
    const bool lost = inc.kind == ObservationKind::gpu_lost
                      || (inc.kind == ObservationKind::xid && inc.code == "79");
    if (!lost) {
      continue;
    }
    for (std::size_t j = i; j-- > 0;) {
      if (incidents[j].kind == ObservationKind::pcie_aer
          && shortly_after(incidents[j], inc, k_aer_window)) {
        inc.notes.push_back(
            "PCIe bus errors came just before: the link (slot, riser, cable, "
            "power) is the first suspect");
        break;
      }
    }
  }
}

} // namespace

std::vector<Incident> analyse(std::vector<Observation> observations,
                              const kb::KnowledgeBase& kb,
                              const MachineContext& machine) {
  // Timed events by time; the others after them, in the order read.
  std::stable_sort(
      observations.begin(), observations.end(), [](const Observation& a, const Observation& b) {
        if (a.when.utc_usec.has_value() != b.when.utc_usec.has_value()) {
          return a.when.utc_usec.has_value();
        }
        return a.when.utc_usec && *a.when.utc_usec < *b.when.utc_usec;
      });
  std::vector<Incident> incidents;
  incidents.reserve(observations.size());
  for (const Observation& obs : observations) {
    incidents.push_back(make_incident(obs, kb, machine));
  }
  incidents = fold(std::move(incidents));
  link_consequences(incidents, kb);
  note_patterns(incidents, machine);
  return incidents;
}

std::vector<std::string_view> incident_finding_ids() {
  return {"crash.gpu_driver_error",
          "crash.nvswitch_error",
          "crash.kernel_crash",
          "crash.app_crash",
          "crash.app_hang",
          "crash.no_persistent_log",
          "log.gpu_app_fault",
          "log.gpu_memory_error",
          "log.gsp_error",
          "log.gpu_fallen_off_bus",
          "log.gpu_init_failed",
          "log.driver_library_mismatch",
          "driver.nouveau_bound",
          "log.hardware_error",
          "log.host_out_of_memory",
          "log.bugcheck",
          "log.display_tdr",
          "log.unexpected_power_loss"};
}

} // namespace doctor::crash
