// SPDX-License-Identifier: MIT
#include <doctor/crash/kernel_events.hpp>
#include <doctor/util/regex.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

namespace doctor::crash {

namespace {

constexpr std::size_t k_max_evidence_lines = 12;
constexpr std::size_t k_max_evidence_chars = 400;
constexpr std::size_t k_oops_span = 150;  // lines an oops report may take after its first line
constexpr std::size_t k_detail_span = 12; // lines the details of an AER/MCE/OOM report may take
constexpr std::size_t k_max_field_chars = 300;

bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Compiles one of the fixed patterns below; a pattern that does not compile is a bug that every
// test run shows at once.
Regex compile(std::string_view pattern) {
  auto re = Regex::compile(pattern);
  if (!re) {
    std::abort();
  }
  return std::move(*re);
}

// A successful search, read by group name.
class Found {
public:
  Found(const Regex& re, std::string_view text)
      : m_re(re)
      , m_text(text)
      , m_ok(re.search(text, &m_match)) {}
  explicit operator bool() const { return m_ok; }
  std::string_view operator[](std::string_view name) const {
    return m_match.group(m_text, m_re.group_index(name));
  }

private:
  const Regex& m_re;
  std::string_view m_text;
  RegexMatch m_match;
  bool m_ok = false;
};

// The first PCI address "dddd:bb:dd" or "dddd:bb:dd.f" in `s` at or after `from`, or empty.
std::string_view find_pci(std::string_view s, std::size_t from = 0) {
  for (std::size_t i = from; i < s.size() && s.size() - i >= 10; ++i) {
    if (i > 0 && (is_hex(s[i - 1]) || s[i - 1] == ':')) {
      continue;
    }
    const std::string_view c = s.substr(i, 10);
    if (is_hex(c[0]) && is_hex(c[1]) && is_hex(c[2]) && is_hex(c[3]) && c[4] == ':' && is_hex(c[5])
        && is_hex(c[6]) && c[7] == ':' && is_hex(c[8]) && is_hex(c[9])) {
      if (i + 12 <= s.size() && s[i + 10] == '.' && s[i + 11] >= '0' && s[i + 11] <= '7') {
        return s.substr(i, 12);
      }
      return c;
    }
  }
  return {};
}

// "0000:B3:00.0" → "0000:b3:00": the GPU's address as Xid lines write it.
std::string pci_key(std::string_view address) {
  return util::to_lower(address.substr(0, 10));
}

// Sets "pci" (domain:bus:device, as Xid lines write it) and, when the address names a
// function, "bdf" as written.
void set_pci(Observation& o, std::string_view address) {
  if (address.empty()) {
    return;
  }
  o.set("pci", pci_key(address));
  if (address.size() > 10) {
    o.set("bdf", util::to_lower(address));
  }
}

void set_field(Observation& o, std::string name, std::string_view value) {
  if (!value.empty() && o.field(name) == nullptr) {
    o.set(std::move(name), util::sanitize(util::trim(value), k_max_field_chars));
  }
}

void add_evidence(Observation& o, std::string_view text) {
  for (const std::string_view line : util::split(text, '\n')) {
    if (o.lines.size() >= k_max_evidence_lines) {
      return;
    }
    o.lines.push_back(util::sanitize(line, k_max_evidence_chars));
  }
}

// Appends `value` to the list in field `name` ("RxErr, BadTLP").
void append_field(Observation& o, std::string_view name, std::string_view value) {
  if (value.empty()) {
    return;
  }
  for (auto& [key, list] : o.fields) {
    if (key == name) {
      if (list.size() < k_max_field_chars) {
        list += ", ";
        list += util::sanitize(value, k_max_field_chars);
      }
      return;
    }
  }
  set_field(o, std::string(name), value);
}

// "CPU: 0 PID: 1899 Comm: bash Not tainted 4.7.0-coreos #1",
// "CPU: 17 PID: 2024380 Comm: nvidia-smi Tainted: P           OE     5.15.0-112-generic #122".
void parse_cpu_line(Observation& o, std::string_view t) {
  const std::size_t pid = t.find(" PID: ") + 6;
  set_field(o, "pid", t.substr(pid, t.find(' ', pid) - pid));
  const std::size_t comm = t.find("Comm: ") + 6;
  std::size_t end = t.find(" Not tainted", comm);
  std::string tainted = "no";
  std::string_view after;
  if (end != std::string_view::npos) {
    after = t.substr(end + 12);
  } else if (end = t.find(" Tainted: ", comm); end != std::string_view::npos) {
    tainted.clear();
    after = t.substr(end + 10);
    while (!after.empty()) {
      after = util::trim(after);
      const std::string_view token = after.substr(0, after.find(' '));
      const bool flags =
          std::all_of(token.begin(), token.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
      if (!flags || token.empty()) {
        break;
      }
      tainted += tainted.empty() ? "" : " ";
      tainted += token;
      after.remove_prefix(token.size());
    }
  } else {
    return;
  }
  set_field(o, "process", t.substr(comm, end - comm));
  set_field(o, "tainted", tainted);
  after = util::trim(after);
  set_field(o, "kernel", after.substr(0, after.find(' ')));
}

// Newer kernels say "Correctable"/"Uncorrectable (Non-Fatal)", older ones "Corrected"/
// "Uncorrected (Non-Fatal)": one spelling, the older.
std::string aer_severity(std::string_view written) {
  std::string s(util::trim(written));
  if (starts_with(s, "Multiple ")) {
    s.erase(0, 9);
  }
  if (starts_with(s, "Correctable")) {
    s.replace(0, 11, "Corrected");
  } else if (starts_with(s, "Uncorrectable")) {
    s.replace(0, 13, "Uncorrected");
  }
  return s;
}

// A joined NVRM message as one sentence: the "NVRM: " of each line removed, lines joined by
// spaces, runs of spaces collapsed.
std::string flatten_nvrm(std::string_view text) {
  std::string out;
  for (std::string_view line : util::split(text, '\n')) {
    if (starts_with(line, "NVRM:")) {
      line.remove_prefix(5);
    }
    out += ' ';
    out += util::trim(line);
  }
  std::string collapsed;
  for (const char c : out) {
    if (c == ' ' && (collapsed.empty() || collapsed.back() == ' ')) {
      continue;
    }
    collapsed += c;
  }
  return std::string(util::trim(collapsed));
}

// pid='<unknown>' → "unknown"; pid=35521 → "35521".
std::string_view unwrap_unknown(std::string_view v) {
  v = util::unquote(util::trim(v));
  if (v == "<unknown>") {
    return "unknown";
  }
  return v;
}

// The part of an Xid line after "NN, ": pid, name, the message and its known forms.
void parse_xid_rest(Observation& o, std::string_view rest) {
  if (starts_with(rest, "pid=")) {
    const std::size_t comma = rest.find(',');
    set_field(o, "pid", unwrap_unknown(rest.substr(4, comma - 4)));
    rest =
        comma == std::string_view::npos ? std::string_view() : util::trim(rest.substr(comma + 1));
    if (starts_with(rest, "name=")) {
      const std::size_t sep = rest.find(", ");
      set_field(o, "process", unwrap_unknown(rest.substr(5, sep - 5)));
      rest = sep == std::string_view::npos ? std::string_view() : rest.substr(sep + 2);
    }
  }
  std::string_view caused_by;
  const std::size_t cb = rest.find("caused by previous Xid ");
  if (cb != std::string_view::npos) {
    caused_by = rest.substr(cb + 23);
    std::size_t n = 0;
    while (n < caused_by.size() && caused_by[n] >= '0' && caused_by[n] <= '9') {
      ++n;
    }
    caused_by = caused_by.substr(0, n);
    rest = util::trim(rest.substr(0, cb));
  }
  set_field(o, "message", rest);
  set_field(o, "caused_by", caused_by);
}

// Xid 154: "GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)".
void parse_recovery_action(Observation& o, std::string_view message) {
  static const Regex re = compile(R"(to (?<code>0x[0-9a-fA-F]+) \((?<name>[^)]*)\))");
  if (const Found f(re, message); f) {
    set_field(o, "recovery_action", f["name"]);
    set_field(o, "recovery_action_code", f["code"]);
  }
}

// NVLink5 Xid 144–150: "NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000 …)".
void parse_nvlink5(Observation& o, std::string_view message) {
  static const Regex re = compile(
      R"(^(?<unit>[A-Z0-9_]+)\s+(?<sev>Fatal|Nonfatal|Non-fatal)\s+(?<xc>XC\d)\s+i\d+\s+Link\s+(?<link>\d+)(?:\s+\((?<info>[^)]*)\)?)?)");
  if (const Found f(re, message); f) {
    set_field(o, "unit", f["unit"]);
    set_field(o, "severity", f["sev"]);
    set_field(o, "containment", f["xc"]);
    set_field(o, "link", f["link"]);
    set_field(o, "info", f["info"]);
  }
}

} // namespace

Observation&
KernelEventScanner::emit(ObservationKind kind, const formats::KernelLine& line, Open open) {
  Observation o;
  o.kind = kind;
  o.platform = Platform::linux; // the Linux kernel's log
  o.when = line.when;
  o.origin = line.origin;
  add_evidence(o, line.text);
  m_out.push_back(std::move(o));
  m_open = open;
  m_open_age = 0;
  return m_out.back();
}

bool KernelEventScanner::scan_nvidia(const formats::KernelLine& line) {
  const std::string_view t = line.text;
  static const Regex xid = compile(
      R"(NVRM: Xid \((?:PCI:)?(?<pci>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.[0-7])?(?: GPU-I:(?<gi>\d+))?(?: GPU-CI:(?<ci>\d+))?\): (?<code>\d+)(?:,\s*(?<rest>.*))?)");
  static const Regex sxid =
      compile(R"(SXid \((?:PCI:)?(?<pci>[0-9a-fA-F:.]+)\): (?<code>\d+)(?:,\s*(?<rest>.*))?)");
  static const Regex gpu_at = compile(
      R"(NVRM: GPU at PCI:(?<pci>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.[0-7])?: (?<uuid>GPU-[0-9a-fA-F-]+))");
  static const Regex rm_init =
      compile(R"(RmInitAdapter failed! \((?<status>0x[0-9a-fA-F]+:0x[0-9a-fA-F]+:\d+)\))");
  static const Regex mismatch = compile(
      R"(API mismatch: the client(?: '(?<client>[^']*)' \(pid (?<pid>\d+)\))? has the version (?<cv>\d+(?:\.\d+)*), but this kernel module has the version (?<kv>\d+(?:\.\d+)*))");
  static const Regex firmware =
      compile(R"(Direct firmware load for (?<fw>\S*gsp\S*) failed with error (?<err>-?\d+))");

  if (contains(t, "Xid")) {
    if (const Found f(xid, t); f) {
      Observation& o = emit(ObservationKind::xid, line);
      o.code = std::string(f["code"]);
      const std::string pci = pci_key(f["pci"]);
      o.set("pci", pci);
      set_field(o, "gpu_instance", f["gi"]);
      set_field(o, "compute_instance", f["ci"]);
      parse_xid_rest(o, f["rest"]);
      const std::string* message = o.field("message");
      const auto code = util::parse_uint(o.code);
      if (message != nullptr && code && *code == 154) {
        parse_recovery_action(o, *message);
      } else if (message != nullptr && code && *code >= 144 && *code <= 150) {
        parse_nvlink5(o, *message);
      }
      if (const auto it = m_uuid_by_pci.find(pci); it != m_uuid_by_pci.end()) {
        o.set("uuid", it->second);
      }
      return true;
    }
    if (const Found f(sxid, t); f) {
      Observation& o = emit(ObservationKind::sxid, line);
      o.code = std::string(f["code"]);
      set_field(o, "pci", util::to_lower(f["pci"]));
      std::string_view rest = f["rest"];
      for (const std::string_view severity : {"Fatal", "Non-fatal", "Nonfatal"}) {
        if (starts_with(rest, severity)
            && (rest.size() == severity.size() || rest[severity.size()] == ',')) {
          set_field(o, "severity", severity);
          rest = util::trim(rest.substr(std::min(rest.size(), severity.size() + 1)));
          break;
        }
      }
      set_field(o, "message", rest);
      return true;
    }
  }
  if (starts_with(t, "NVRM: GPU at PCI:")) {
    if (const Found f(gpu_at, t); f && m_uuid_by_pci.size() < 4096) {
      m_uuid_by_pci[pci_key(f["pci"])] = std::string(f["uuid"]);
    }
    return false;
  }
  if (contains(t, "fallen off the bus")) {
    const std::string flat = flatten_nvrm(t);
    Observation& o = emit(ObservationKind::gpu_lost, line);
    set_pci(o, find_pci(flat));
    const std::size_t id = flat.find("PCI ID: ");
    if (id != std::string::npos) {
      set_field(o, "pci_id", std::string_view(flat).substr(id + 8, 9));
    }
    return true;
  }
  if (contains(t, "RmInitAdapter failed!")) {
    Observation& o = emit(ObservationKind::gpu_init_failed, line);
    o.set("type", "rm_init_adapter");
    set_pci(o, find_pci(t));
    if (const Found f(rm_init, t); f) {
      set_field(o, "status", f["status"]);
    }
    return true;
  }
  if (contains(t, "rm_init_adapter failed")) {
    const std::size_t minor = t.find("minor number ");
    const std::string_view minor_text =
        minor == std::string_view::npos ? std::string_view() : t.substr(minor + 13);
    const std::string_view pci = find_pci(t);
    // "RmInitAdapter failed! (…)" is followed by "rm_init_adapter failed, device minor number
    // 0" for the same GPU: one event.
    if (!m_out.empty() && m_out.back().kind == ObservationKind::gpu_init_failed
        && m_out.back().field("minor") == nullptr
        && (pci.empty() || m_out.back().field("pci") == nullptr
            || *m_out.back().field("pci") == pci_key(pci))) {
      add_evidence(m_out.back(), t);
      set_field(m_out.back(), "minor", minor_text);
      return true;
    }
    Observation& o = emit(ObservationKind::gpu_init_failed, line);
    o.set("type", "rm_init_adapter");
    set_pci(o, pci);
    set_field(o, "minor", minor_text);
    return true;
  }
  if (contains(t, "No NVIDIA graphics adapter probed")
      || contains(t, "NVRM: No NVIDIA GPU found")) {
    emit(ObservationKind::gpu_init_failed, line).set("type", "no_adapter");
    return true;
  }
  if (contains(t, "probe routine failed for")
      || (starts_with(t, "nvidia ") && contains(t, ": probe of ") && contains(t, " failed"))) {
    Observation& o = emit(ObservationKind::gpu_init_failed, line);
    o.set("type", "probe_failed");
    if (starts_with(t, "nvidia ")) {
      set_pci(o, find_pci(t, t.find("probe of ")));
    }
    return true;
  }
  if (starts_with(t, "NVRM: The NVIDIA GPU ") && contains(t, "is not supported")) {
    Observation& o = emit(ObservationKind::gpu_init_failed, line);
    o.set("type", "unsupported_gpu");
    set_pci(o, find_pci(t));
    return true;
  }
  if (contains(t, "Cannot initialize GSP firmware RM")) {
    emit(ObservationKind::gsp_error, line).set("type", "gsp_init");
    return true;
  }
  if (contains(t, "kgspWaitForGfwBootOk") && contains(t, "failed")) {
    emit(ObservationKind::gsp_error, line).set("type", "gfw_boot_timeout");
    return true;
  }
  if (contains(t, "WPR2 already up")) {
    emit(ObservationKind::gsp_error, line).set("type", "wpr2_up");
    return true;
  }
  if (contains(t, "RmFetchGspRmImages") && contains(t, "No firmware image found")) {
    emit(ObservationKind::gsp_error, line).set("type", "firmware_missing");
    return true;
  }
  if (contains(t, "Direct firmware load for")) {
    if (const Found f(firmware, t); f) {
      Observation& o = emit(ObservationKind::gsp_error, line);
      o.set("type", "firmware_load");
      set_field(o, "firmware", f["fw"]);
      set_field(o, "error", f["err"]);
      set_pci(o, find_pci(t.substr(0, t.find("Direct firmware"))));
      return true;
    }
    return false;
  }
  if (contains(t, "API mismatch")) {
    Observation& o = emit(ObservationKind::driver_mismatch, line);
    const std::string flat = flatten_nvrm(t);
    if (const Found f(mismatch, flat); f) {
      set_field(o, "client_version", f["cv"]);
      set_field(o, "kernel_version", f["kv"]);
      set_field(o, "client", f["client"]);
      set_field(o, "client_pid", f["pid"]);
    }
    return true;
  }
  if (contains(t, "probe routine was not called for ")) {
    Observation& o = emit(ObservationKind::driver_conflict, line);
    o.set("type", "probe_not_called");
    const std::string_view after = t.substr(t.find("not called for ") + 15);
    set_field(o, "count", after.substr(0, after.find(' ')));
    return true;
  }
  if (starts_with(t, "nouveau ")) {
    const std::string_view pci = find_pci(t.substr(0, 20));
    if (!pci.empty() && m_nouveau_seen.size() < 256
        && m_nouveau_seen.insert(util::to_lower(pci)).second) {
      Observation& o = emit(ObservationKind::driver_conflict, line);
      o.set("type", "nouveau_bound");
      set_pci(o, pci);
      return true;
    }
  }
  return false;
}

bool KernelEventScanner::scan_hardware(const formats::KernelLine& line) {
  const std::string_view t = line.text;
  static const Regex machine_check = compile(
      R"(CPU (?<cpu>\d+): Machine Check(?: Exception)?: (?:\S+ )?Bank (?<bank>\d+):? ?(?<status>[0-9a-fA-F]*))");
  static const Regex edac = compile(
      R"(EDAC (?:\w+ )?MC(?<mc>\d+): (?:(?<count>\d+) )?(?<type>CE|UE)\b ?(?<what>[^(]*?)(?: on (?<loc>\S+))?(?: \((?<detail>[^)]*)\)?)?$)");
  static const Regex aer_received = compile(
      R"(AER: (?:Multiple )?(?<sev>Corrected|Correctable|Uncorrected|Uncorrectable)(?: \((?<fatal>Non-Fatal|Fatal)\))? error (?:message )?received)");
  static const Regex bus_error =
      compile(R"(PCIe Bus Error: severity=(?<sev>[^,]+), type=(?<type>[^,]+)(?:, (?<agent>.*))?)");

  if (contains(t, "[Hardware Error]") || contains(t, "mce: ")) {
    if (contains(t, "Machine check events logged")) {
      emit(ObservationKind::mce, line, Open::mce).set("type", "events_logged");
      return true;
    }
    if (const Found f(machine_check, t); f) {
      Observation& o = emit(ObservationKind::mce, line, Open::mce);
      o.set("type", "machine_check");
      set_field(o, "cpu", f["cpu"]);
      set_field(o, "bank", f["bank"]);
      set_field(o, "status", f["status"]);
      return true;
    }
    if (contains(t, "[Hardware Error]: Corrected error")
        || contains(t, "[Hardware Error]: Uncorrected") || contains(t, "hardware memory error")) {
      Observation& o = emit(ObservationKind::mce, line, Open::mce);
      o.set("type", contains(t, "Corrected error") ? "corrected" : "uncorrected");
      return true;
    }
    return false;
  }
  if (contains(t, "EDAC ")) {
    if (const Found f(edac, t); f) {
      Observation& o = emit(ObservationKind::edac, line);
      set_field(o, "mc", f["mc"]);
      set_field(o, "count", f["count"]);
      set_field(o, "type", f["type"]);
      set_field(o, "error", f["what"]);
      set_field(o, "location", f["loc"]);
      set_field(o, "detail", f["detail"]);
      return true;
    }
    return false;
  }
  if (contains(t, "AER: ")) {
    if (const Found f(aer_received, t); f) {
      Observation& o = emit(ObservationKind::pcie_aer, line, Open::aer);
      std::string severity(f["sev"]);
      if (!f["fatal"].empty()) {
        severity += " (" + std::string(f["fatal"]) + ")";
      }
      o.set("severity", aer_severity(severity));
      const std::size_t aer = t.find("AER: ");
      set_field(o, "port", util::to_lower(find_pci(t.substr(0, aer))));
      set_field(o, "device", util::to_lower(find_pci(t, aer)));
      return true;
    }
  }
  if (contains(t, "PCIe Bus Error: ")) {
    if (const Found f(bus_error, t); f) {
      const std::size_t at = t.find("PCIe Bus Error");
      const std::string reporter = util::to_lower(find_pci(t.substr(0, at)));
      const bool from_port = starts_with(t, "pcieport ");
      std::string_view agent = f["agent"];
      if (const std::size_t open = agent.find('('); open != std::string_view::npos) {
        agent = agent.substr(open + 1, agent.find(')', open) - open - 1);
      }
      Observation* o = nullptr;
      if (m_open == Open::aer && m_out.back().field("type") == nullptr) {
        o = &m_out.back();
        add_evidence(*o, t);
        m_open_age = 0;
      } else {
        // A device's own report after its port's ("nvidia 0000:07:00.0: PCIe Bus Error: …"
        // after "pcieport 0000:00:03.1: …") names the same port.
        std::string port;
        if (m_open == Open::aer && m_out.back().field("port") != nullptr) {
          port = *m_out.back().field("port");
        }
        o = &emit(ObservationKind::pcie_aer, line, Open::aer);
        set_field(*o, "severity", aer_severity(f["sev"]));
        set_field(*o, "port", from_port ? reporter : port);
      }
      set_field(*o, "type", f["type"]);
      set_field(*o, "agent", agent);
      set_field(*o, "device", reporter);
      return true;
    }
  }
  return false;
}

bool KernelEventScanner::scan_system(const formats::KernelLine& line) {
  const std::string_view t = line.text;
  static const Regex killed =
      compile(R"((?i)out of memory: kill(?:ed)? process (?<pid>\d+)[^(]*\((?<comm>[^)]*)\))");
  static const Regex soft_lockup = compile(
      R"(soft lockup - CPU#(?<cpu>\d+) stuck for (?<secs>\d+)s! \[(?<comm>.*):(?<pid>\d+)\])");
  static const Regex hard_lockup = compile(R"((?i)hard lockup on cpu (?<cpu>\d+))");
  static const Regex hung_task =
      compile(R"(INFO: task (?<comm>.*):(?<pid>\d+) blocked for more than (?<secs>\d+) seconds)");
  static const Regex segfault = compile(
      R"((?<comm>\S+)\[(?<pid>\d+)\]:? (?<what>segfault at [0-9a-fA-F]+|general protection fault|trap [^:]*?)\b[^\[]*?(?: in (?<module>[^\[ ]+))?(?:\[|$))");

  if (starts_with(t, "oom-kill:")) {
    Observation& o = emit(ObservationKind::oom_kill, line, Open::oom);
    for (const std::string_view part : util::split(t.substr(9), ',')) {
      const std::size_t eq = part.find('=');
      const std::string_view key = part.substr(0, eq);
      const std::string_view value = eq == std::string_view::npos ? "" : part.substr(eq + 1);
      if (key == "constraint" || key == "oom_memcg" || key == "task_memcg") {
        set_field(o, std::string(key), value);
      } else if (key == "task") {
        set_field(o, "process", value);
      } else if (key == "pid") {
        set_field(o, "pid", value);
      }
    }
    return true;
  }
  if (contains(t, "ut of memory: Kill")) {
    if (const Found f(killed, t); f) {
      Observation* o = nullptr;
      if (m_open == Open::oom
          && (m_out.back().field("pid") == nullptr || *m_out.back().field("pid") == f["pid"])) {
        o = &m_out.back();
        add_evidence(*o, t);
        m_open = Open::none;
      } else {
        o = &emit(ObservationKind::oom_kill, line);
      }
      set_field(*o, "pid", f["pid"]);
      set_field(*o, "process", f["comm"]);
      if (starts_with(t, "Memory cgroup out of memory")) {
        set_field(*o, "constraint", "CONSTRAINT_MEMCG");
      }
      return true;
    }
    return false;
  }
  if (contains(t, "Kernel panic - not syncing")) {
    if (contains(t, "end Kernel panic")) {
      return false;
    }
    Observation& o = emit(ObservationKind::kernel_panic, line);
    const std::string_view reason = t.substr(t.find("not syncing") + 11);
    set_field(o, "reason", reason.substr(reason.empty() || reason[0] != ':' ? 0 : 1));
    return true;
  }
  if (contains(t, "lockup") || contains(t, "LOCKUP")) {
    if (const Found f(soft_lockup, t); f) {
      Observation& o = emit(ObservationKind::lockup, line);
      o.set("type", "soft_lockup");
      set_field(o, "cpu", f["cpu"]);
      set_field(o, "seconds", f["secs"]);
      set_field(o, "process", f["comm"]);
      set_field(o, "pid", f["pid"]);
      return true;
    }
    if (const Found f(hard_lockup, t); f) {
      Observation& o = emit(ObservationKind::lockup, line);
      o.set("type", "hard_lockup");
      set_field(o, "cpu", f["cpu"]);
      return true;
    }
    if (contains(t, "BUG: workqueue lockup")) {
      emit(ObservationKind::lockup, line).set("type", "workqueue");
      return true;
    }
  }
  if (contains(t, "blocked for more than")) {
    if (const Found f(hung_task, t); f) {
      Observation& o = emit(ObservationKind::lockup, line);
      o.set("type", "hung_task");
      set_field(o, "process", f["comm"]);
      set_field(o, "pid", f["pid"]);
      set_field(o, "seconds", f["secs"]);
      return true;
    }
  }
  if (contains(t, "rcu") && contains(t, "detected stall")) {
    emit(ObservationKind::lockup, line).set("type", "rcu_stall");
    return true;
  }
  if (contains(t, "segfault at ") || starts_with(t, "traps: ")) {
    // A user-space crash the kernel reports: "python3[1234]: segfault at 0 ip … error 4 in
    // libcudnn_cnn_infer.so.8[7f…+…]", "traps: python[1234] general protection fault ip:…".
    if (const Found f(segfault, t); f) {
      Observation& o = emit(ObservationKind::app_crash, line);
      const std::string_view what = f["what"];
      o.code = starts_with(what, "segfault") ? "SIGSEGV" : std::string(what);
      set_field(o, "process", f["comm"]);
      set_field(o, "pid", f["pid"]);
      set_field(o, "module", f["module"]);
      if (starts_with(what, "segfault at ")) {
        set_field(o, "address", what.substr(12));
      }
      return true;
    }
    return false;
  }
  return scan_oops(line);
}

bool KernelEventScanner::scan_oops(const formats::KernelLine& line) {
  const std::string_view t = line.text;
  std::string_view type;
  std::string_view message;
  if (const std::size_t bug = t.find("BUG: "); bug != std::string_view::npos) {
    message = t.substr(bug + 5);
    if (contains(message, "NULL pointer dereference")) {
      type = "null_pointer";
    } else if (starts_with(message, "unable to handle")) {
      type = "page_fault";
    } else {
      type = "bug";
    }
  } else if (contains(t, "kernel BUG at ")) {
    type = "bug";
    message = t.substr(t.find("kernel BUG at ") + 7);
  } else if (contains(t, "general protection fault")) {
    type = "general_protection";
    message = t.substr(t.find("general protection fault"));
  } else if (starts_with(t, "Oops: ") || contains(t, "Internal error: Oops")) {
    type = "oops";
  } else {
    return false;
  }
  Observation& o = emit(ObservationKind::kernel_oops, line, Open::oops);
  o.set("type", std::string(type));
  set_field(o, "message", message);
  if (const std::size_t oops = t.find("Oops: "); type == "oops" && oops != t.npos) {
    set_field(o, "oops", t.substr(oops + 6));
  }
  return true;
}

// The lines after an oops's first line that say more about it.
void KernelEventScanner::continue_oops(const formats::KernelLine& line) {
  Observation& o = m_out.back();
  const std::string_view t = line.text;
  if (starts_with(t, "Oops: ") && o.field("oops") == nullptr) {
    std::string_view oops = t;
    while (starts_with(oops, "Oops: ")) {
      oops.remove_prefix(6); // 6.x kernels print "Oops: Oops: 0000 [#1] SMP NOPTI"
    }
    set_field(o, "oops", oops);
    add_evidence(o, t);
  } else if (starts_with(t, "RIP: ") && o.field("rip") == nullptr) {
    std::string_view rip = t.substr(5);
    if (const std::size_t colon = rip.find(':'); colon != std::string_view::npos && colon < 6) {
      rip.remove_prefix(colon + 1);
    }
    if (const std::size_t old = rip.rfind("] "); starts_with(rip, "[<") && old != rip.npos) {
      rip.remove_prefix(old + 2); // "[<ffffffffbd3d1956>]  [<ffffffffbd3d1956>] sysrq_…"
    }
    set_field(o, "rip", rip);
    add_evidence(o, t);
  } else if (starts_with(t, "Modules linked in:")) {
    std::string nvidia;
    for (std::string_view module : util::split(t.substr(18), ' ')) {
      module = module.substr(0, module.find('('));
      if (module.find("nvidia") != std::string_view::npos && nvidia.size() < k_max_field_chars) {
        nvidia += nvidia.empty() ? "" : " ";
        nvidia += module;
      }
    }
    set_field(o, "nvidia_modules", nvidia);
    add_evidence(o, t);
  } else if (starts_with(t, "CPU: ") && contains(t, " PID: ") && contains(t, "Comm: ")
             && o.field("tainted") == nullptr) {
    parse_cpu_line(o, t);
    add_evidence(o, t);
  } else if (contains(t, "[nvidia") && o.field("nvidia_frame") == nullptr) {
    std::string_view frame = util::trim(t);
    if (starts_with(frame, "[<")) {
      frame.remove_prefix(std::min(frame.size(), frame.find("] ") + 2));
    }
    if (starts_with(frame, "? ")) {
      frame.remove_prefix(2);
    }
    set_field(o, "nvidia_frame", frame);
    add_evidence(o, t);
  } else if (contains(t, "---[ end trace")) {
    add_evidence(o, t);
    m_open = Open::none;
  }
}

// Lines that belong to the event the last Observation opened. Returns true if `line` was one.
bool KernelEventScanner::continue_open(const formats::KernelLine& line) {
  const std::string_view t = line.text;
  ++m_open_age;
  if (m_open_age > (m_open == Open::oops ? k_oops_span : k_detail_span)) {
    m_open = Open::none;
    return false;
  }
  switch (m_open) {
  case Open::oops:
    if (contains(t, "BUG: ") || contains(t, "Kernel panic") || contains(t, "NVRM: Xid")) {
      return false;
    }
    continue_oops(line);
    return true;
  case Open::aer:
    if (contains(t, "PCIe Bus Error") || contains(t, "error received")) {
      return false;
    }
    if (contains(t, "error status/mask") || contains(t, "device [")) {
      add_evidence(m_out.back(), t);
      return true;
    }
    if (const std::size_t bit = t.find("    ["); bit != std::string_view::npos) {
      std::string_view name = t.substr(bit);
      name.remove_prefix(std::min(name.size(), name.find(']') + 1));
      name = util::trim(name.substr(0, name.find('(')));
      Observation& o = m_out.back();
      append_field(o, "errors", name);
      add_evidence(o, t);
      return true;
    }
    return false;
  case Open::mce:
    if (contains(t, "[Hardware Error]") && !contains(t, "Machine check events logged")
        && !contains(t, ": Machine Check")) {
      add_evidence(m_out.back(), t);
      return true;
    }
    return false;
  case Open::oom:
  case Open::none:
    break;
  }
  return false;
}

void KernelEventScanner::add(const formats::KernelLine& line) {
  if (m_open != Open::none && !m_out.empty() && continue_open(line)) {
    return;
  }
  const std::string_view t = line.text;
  if ((contains(t, "NVRM") || contains(t, "Xid") || contains(t, "RmInitAdapter")
       || starts_with(t, "nouveau ") || starts_with(t, "nvidia "))
      && scan_nvidia(line)) {
    return;
  }
  if ((contains(t, "Hardware Error") || contains(t, "mce: ") || contains(t, "EDAC ")
       || contains(t, "AER: ") || contains(t, "PCIe Bus Error"))
      && scan_hardware(line)) {
    return;
  }
  if (contains(t, "emory") || contains(t, "oom-kill:") || contains(t, "BUG") || contains(t, "Oops")
      || contains(t, "protection fault") || contains(t, "panic") || contains(t, "ockup")
      || contains(t, "OCKUP") || contains(t, "blocked for more than") || contains(t, "stall")
      || contains(t, "segfault") || starts_with(t, "traps: ")) {
    scan_system(line);
  }
}

std::vector<Observation> KernelEventScanner::take() {
  m_open = Open::none;
  return std::exchange(m_out, {});
}

std::vector<Observation> observe_kernel_lines(const std::vector<formats::KernelLine>& lines) {
  KernelEventScanner scanner;
  for (const formats::KernelLine& line : lines) {
    scanner.add(line);
  }
  return scanner.take();
}

} // namespace doctor::crash
