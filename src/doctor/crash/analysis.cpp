// SPDX-License-Identifier: MIT
#include <doctor/crash/analysis.hpp>
#include <doctor/crash/incident_build.hpp>
#include <doctor/crash/observation_kinds.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/finding_ids.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace doctor::crash {

namespace {

constexpr std::int64_t k_burst = k_one_second;                  // a burst: within one second
constexpr std::int64_t k_repeat = k_one_second * 60 * 10;       // a repeating error: 10 minutes
constexpr std::int64_t k_secondary_window = 30 * k_one_second;  // Xid 43/45 after another Xid
constexpr std::int64_t k_crash_window = k_one_second * 60 * 30; // a 6008 and the restart it records
constexpr std::int64_t k_aer_window = 120 * k_one_second;       // PCIe errors before a GPU was lost
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
    return d >= -k_one_second && d <= window;
  }
  if (a.last.uptime_usec && b.when.uptime_usec && a.last.boot == b.when.boot) {
    const std::int64_t d = *b.when.uptime_usec - *a.last.uptime_usec;
    return d >= -k_one_second && d <= window;
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
  return shortly_after(a, b, kind_info(a.kind).one_per_event ? k_burst : k_repeat);
}

// The records one event leaves (observation_kinds.cpp, record_window_usec): the dump, the
// BugCheck event and Kernel-Power 41 of one crash, which carry the same code; Display 4101,
// nvlddmkm 153, a LiveKernelEvent and the application's own report of one GPU timeout. And a
// 6008 belongs to the crash or power loss next to it.
bool same_event(const Incident& a, const Incident& b) {
  const auto d = distance(a.when, b.when);
  if (!d) {
    return false;
  }
  const KindInfo& kind_a = kind_info(a.kind);
  const KindInfo& kind_b = kind_info(b.kind);
  if (a.kind == b.kind && kind_a.record_window_usec > 0) {
    if (*d > kind_a.record_window_usec) {
      return false;
    }
    // Two records of one event are two different records (a dump and an event, or two event
    // ids); the same record twice is the event happening twice.
    const bool other_id = field(a, "event_id") != field(b, "event_id");
    if (kind_a.records_share_code) {
      return a.code == b.code && (a.origins[0].source != b.origins[0].source || other_id);
    }
    return other_id;
  }
  return *d <= k_crash_window
         && ((kind_a.restart && kind_b.joins_restart) || (kind_a.joins_restart && kind_b.restart));
}

// Prefer the record that knows most: a dump (module, parameters) over events, and anything over
// a record that only joins the restart.
bool richer(const Incident& a, const Incident& b) {
  const bool a_module = !field(a, "module").empty();
  const bool b_module = !field(b, "module").empty();
  if (a_module != b_module) {
    return a_module;
  }
  return !kind_info(a.kind).joins_restart && kind_info(b.kind).joins_restart;
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
      if (same_event(out[i], inc)) {
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
      } else if (kind_info(inc.kind).follows_xid) {
        // A message that reports what an Xid just reported (a "fallen off the bus" message
        // after Xid 79, both log.gpu_fallen_off_bus) follows from that Xid.
        root = prev.kind == ObservationKind::xid && prev.finding == inc.finding
               && shortly_after(prev, inc, k_secondary_window);
      }
      if (root) {
        inc.consequence_of = j;
        inc.notes.push_back(fmt::format("a consequence of the Xid {} before it", prev.code));
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
  // A GPU timeout: a recovered one, or VIDEO_TDR_FAILURE (0x116), the stop code of one that
  // could not be recovered.
  const auto is_tdr = [](const Incident& inc) {
    return kind_info(inc.kind).gpu_timeout
           || (inc.kind == ObservationKind::bugcheck && inc.code == "0x116");
  };
  const auto tdrs =
      static_cast<std::size_t>(std::count_if(incidents.begin(), incidents.end(), is_tdr));
  for (Incident& inc : incidents) {
    if (!is_tdr(inc)) {
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

  // PCIe errors shortly before a GPU was lost (a gpu_lost message, or an Xid the catalogue reads
  // as the same finding: Xid 79).
  const std::string_view lost_gpu = kind_info(ObservationKind::gpu_lost).finding;
  for (std::size_t i = 0; i < incidents.size(); ++i) {
    Incident& inc = incidents[i];
    if (inc.finding != lost_gpu) {
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

std::vector<std::string> incident_finding_ids(const kb::KnowledgeBase& kb) {
  std::set<std::string> ids = {std::string(kb::ids::k_crash_no_persistent_log)};
  for (const KindInfo& k : observation_kinds()) {
    ids.emplace(k.finding);
  }
  for (const kb::XidEntry& x : kb.crash().xids()) {
    ids.insert(x.finding);
  }
  return {ids.begin(), ids.end()};
}

} // namespace doctor::crash
