// SPDX-License-Identifier: MIT
#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/event_xml.hpp>
#include <doctor/util/strings.hpp>

#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace doctor::crash {

namespace {

constexpr std::uint64_t k_bugcheck_ex_flag = 0x10000000;
constexpr std::size_t k_max_line = 300;

// The names of Application Error 1000's <Data>, in the order older Windows 10 writes them
// without names.
constexpr std::array<std::string_view, 13> k_app_error_names = {"AppName",
                                                                "AppVersion",
                                                                "AppTimeStamp",
                                                                "ModuleName",
                                                                "ModuleVersion",
                                                                "ModuleTimeStamp",
                                                                "ExceptionCode",
                                                                "FaultingOffset",
                                                                "ProcessId",
                                                                "ProcessCreationTime",
                                                                "AppPath",
                                                                "ModulePath",
                                                                "IntegratorReportId"};

// Known CPER section types (UEFI spec appendix N), lower-case GUID -> our name.
struct CperSection {
  std::string_view guid;
  std::string_view name;
};
constexpr std::array<CperSection, 10> k_cper_sections = {{
    {"9876ccad-47b4-4bdb-b65e-16f193c4f3db", "processor_generic"},
    {"dc3ea0b0-a144-4797-b95b-53fa242b6e1d", "processor_x86"},
    {"e19e3d16-bc11-11e4-9caa-c2051d5d46b0", "processor_arm"},
    {"a5bc1114-6f64-4ede-b863-3e83ed7c83b1", "memory"},
    {"61ec04fc-48e6-d813-25c9-8daa44750b12", "memory2"},
    {"d995e954-bbc1-430f-ad91-b44dcb3c6f35", "pcie"},
    {"c5753963-3b84-4095-bf78-eddad3f9c9dd", "pci_bus"},
    {"eb5e4685-ca66-4769-b6a2-26068b001326", "pci_component"},
    {"81212a96-09ed-4996-9471-8d729c8e69ed", "firmware"},
    {"5b51fef7-c79d-4434-8f1b-aa62de3e2c64", "dmar_generic"},
}};

// Reads <Data> by name when the event names its data, else by position.
class DataView {
public:
  explicit DataView(const formats::EventRecord& r)
      : m_record(r) {
    for (const auto& [k, v] : r.data) {
      m_named = m_named || !k.empty();
    }
  }

  std::string get(std::string_view name, std::size_t index) const {
    if (m_named) {
      for (const auto& [k, v] : m_record.data) {
        if (util::to_lower(k) == util::to_lower(name)) {
          return v;
        }
      }
      return "";
    }
    return index < m_record.data.size() ? m_record.data[index].second : "";
  }

  const std::string* named(std::string_view name) const {
    for (const auto& [k, v] : m_record.data) {
      if (k == name) {
        return &v;
      }
    }
    return nullptr;
  }

  std::string at(std::size_t index) const {
    return index < m_record.data.size() ? m_record.data[index].second : "";
  }

private:
  const formats::EventRecord& m_record;
  bool m_named = false;
};

Observation start(const formats::EventRecord& r, ObservationKind kind, std::string code) {
  Observation o;
  o.kind = kind;
  o.platform = Platform::windows; // a Windows event log record
  o.code = std::move(code);
  o.origin = r.origin;
  if (r.time_utc_usec) {
    o.when.utc_usec = r.time_utc_usec;
    o.when.label = formats::format_utc_usec(*r.time_utc_usec);
  }
  o.set("provider", r.provider);
  o.set("event_id", std::to_string(r.event_id));
  std::string line;
  for (const auto& [k, v] : r.data) {
    if (v.empty() || k == "RawData") {
      continue;
    }
    line += line.empty() ? "" : ", ";
    if (!k.empty()) {
      line += k;
      line += '=';
    }
    line += v;
  }
  line = util::replace_all(util::replace_all(line, "\r\n", " "), "\n", " ");
  if (!line.empty()) {
    o.lines.push_back(util::sanitize(line, k_max_line));
  }
  return o;
}

void set_if(Observation& o, std::string name, const std::string& value) {
  if (!value.empty()) {
    o.set(std::move(name), value);
  }
}

// Formats a bug check code, masking the 0x10000000 "_M" flag; keeps the original as raw_code.
std::string bugcheck_code(std::uint64_t code, Observation* o) {
  const std::uint64_t masked = code & ~k_bugcheck_ex_flag;
  if (masked != code && masked != 0 && o != nullptr) {
    o->set("raw_code", util::hex(code));
  }
  return util::hex(masked != 0 ? masked : code);
}

// "c0000005" or "0xC0000005" -> "0xc0000005"; text that is not hex stays as written.
std::string exception_code(std::string_view s) {
  const auto v = util::parse_hex(util::trim(s));
  if (!v) {
    return std::string(s);
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(*v));
  return buf;
}

// "0002da71" -> "0x0002da71"; the digits are kept as written, lower-cased.
std::string hex_offset(std::string_view s) {
  s = util::trim(s);
  if (s.empty()) {
    return "";
  }
  const std::string lower = util::to_lower(s);
  return lower.rfind("0x", 0) == 0 ? lower : "0x" + lower;
}

// "0x3ef8" or "3ef8" (hex, as Windows writes process ids in these events) -> "16120".
std::string hex_pid(std::string_view s) {
  const auto v = util::parse_hex(util::trim(s));
  return v ? std::to_string(*v) : std::string(s);
}

std::optional<Observation> kernel_power_41(const formats::EventRecord& r, const DataView& d) {
  const std::string text = d.get("BugcheckCode", 0);
  const auto trimmed = util::trim(text);
  const auto code =
      trimmed.rfind("0x", 0) == 0 ? util::parse_hex(trimmed) : util::parse_uint(trimmed);
  if (code && *code != 0) {
    Observation o = start(r, ObservationKind::bugcheck, "");
    o.code = bugcheck_code(*code, &o);
    for (int i = 1; i <= 4; ++i) {
      set_if(o, "param" + std::to_string(i), d.get("BugcheckParameter" + std::to_string(i), i));
    }
    return o;
  }
  Observation o = start(r, ObservationKind::power_loss, "41");
  set_if(o, "power_button_timestamp", d.get("PowerButtonTimestamp", 6));
  set_if(o, "long_power_button_press", d.get("LongPowerButtonPressDetected", 15));
  set_if(o, "sleep_in_progress", d.get("SleepInProgress", 5));
  return o;
}

// BugCheck 1001 param1: "0x00000116 (0xffff…, 0x…, 0x…, 0x…)".
std::optional<Observation> bugcheck_1001(const formats::EventRecord& r, const DataView& d) {
  const std::string p1 = d.get("param1", 0);
  const auto open = p1.find('(');
  const auto code = util::parse_hex(util::trim(std::string_view(p1).substr(0, open)));
  if (!code) {
    return std::nullopt;
  }
  Observation o = start(r, ObservationKind::bugcheck, "");
  o.code = bugcheck_code(*code, &o);
  if (open != std::string::npos) {
    const auto close = p1.find(')', open);
    const auto inner = std::string_view(p1).substr(
        open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
    const auto params = util::split(inner, ',');
    for (std::size_t i = 0; i < params.size() && i < 4; ++i) {
      set_if(o, "param" + std::to_string(i + 1), std::string(util::trim(params[i])));
    }
  }
  set_if(o, "dump", d.get("param2", 1));
  set_if(o, "report_id", d.get("param3", 2));
  return o;
}

void add_cper(Observation& o, std::string_view raw_hex) {
  raw_hex = util::trim(raw_hex);
  std::string bytes;
  for (std::size_t i = 0; i + 1 < raw_hex.size() && bytes.size() < 256; i += 2) {
    const auto b = util::parse_hex(raw_hex.substr(i, 2));
    if (!b) {
      return;
    }
    bytes += static_cast<char>(*b);
  }
  if (bytes.size() < 4 || bytes.substr(0, 4) != "CPER") {
    return;
  }
  const auto u = [&](std::size_t at, int width) {
    std::uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) {
      v = (v << 8U) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    }
    return v;
  };
  if (bytes.size() >= 16) {
    static constexpr std::array<std::string_view, 4> k_severity = {
        "recoverable", "fatal", "corrected", "informational"};
    const auto sev = u(12, 4);
    o.set("cper_severity", sev < k_severity.size() ? std::string(k_severity[sev]) : util::hex(sev));
  }
  // The first section descriptor follows the 128-byte header; its type GUID is at +16.
  constexpr std::size_t k_guid_at = 128 + 16;
  if (bytes.size() < k_guid_at + 16 || u(10, 2) == 0) {
    return;
  }
  char guid[40];
  std::snprintf(guid,
                sizeof guid,
                "%08llx-%04llx-%04llx-%02x%02x-%02x%02x%02x%02x%02x%02x",
                static_cast<unsigned long long>(u(k_guid_at, 4)),
                static_cast<unsigned long long>(u(k_guid_at + 4, 2)),
                static_cast<unsigned long long>(u(k_guid_at + 6, 2)),
                static_cast<unsigned char>(bytes[k_guid_at + 8]),
                static_cast<unsigned char>(bytes[k_guid_at + 9]),
                static_cast<unsigned char>(bytes[k_guid_at + 10]),
                static_cast<unsigned char>(bytes[k_guid_at + 11]),
                static_cast<unsigned char>(bytes[k_guid_at + 12]),
                static_cast<unsigned char>(bytes[k_guid_at + 13]),
                static_cast<unsigned char>(bytes[k_guid_at + 14]),
                static_cast<unsigned char>(bytes[k_guid_at + 15]));
  std::string section = guid;
  for (const auto& known : k_cper_sections) {
    if (known.guid == section) {
      section = known.name;
    }
  }
  o.set("cper_section", section);
}

Observation whea(const formats::EventRecord& r, const DataView& d) {
  Observation o = start(r, ObservationKind::whea, std::to_string(r.event_id));
  for (const auto& [k, v] : r.data) {
    if (!k.empty() && k != "Length" && k != "RawData") {
      o.set(k, v);
    }
  }
  if (const auto* raw = d.named("RawData")) {
    add_cper(o, *raw);
  }
  return o;
}

// Fills the app_crash fields shared by Application Error 1000 and WER APPCRASH.
Observation app_crash(const formats::EventRecord& r,
                      const std::string& code,
                      const std::string& process,
                      const std::string& version,
                      const std::string& module,
                      const std::string& module_version,
                      const std::string& offset) {
  Observation o = start(r, ObservationKind::app_crash, exception_code(code));
  set_if(o, "process", process);
  set_if(o, "process_version", version);
  set_if(o, "module", module);
  set_if(o, "module_version", module_version);
  set_if(o, "offset", hex_offset(offset));
  return o;
}

Observation application_error(const formats::EventRecord& r, const DataView& d) {
  const auto g = [&](std::size_t i) { return d.get(k_app_error_names[i], i); };
  Observation o = app_crash(r, g(6), g(0), g(1), g(3), g(4), g(7));
  set_if(o, "module_path", g(11));
  set_if(o, "pid", g(8).empty() ? "" : hex_pid(g(8)));
  set_if(o, "app_path", g(10));
  set_if(o, "report_id", g(12));
  return o;
}

Observation application_hang(const formats::EventRecord& r, const DataView& d) {
  Observation o = start(r, ObservationKind::app_hang, std::to_string(r.event_id));
  set_if(o, "process", d.get("AppName", 0));
  set_if(o, "process_version", d.get("AppVersion", 1));
  const std::string pid = d.get("ProcessID", 2);
  set_if(o, "pid", pid.empty() ? "" : hex_pid(pid));
  set_if(o, "app_path", d.get("ExeFileName", 5));
  set_if(o, "hang_type", d.get("HangType", 9));
  return o;
}

std::optional<Observation> wer_1001(const formats::EventRecord& r, const DataView& d) {
  const std::string event_name = d.get("EventName", 2);
  const auto p = [&](int n) { return d.get("P" + std::to_string(n), 4 + n); };
  std::optional<Observation> o;
  if (event_name == "APPCRASH") {
    o = app_crash(r, p(7), p(1), p(2), p(4), p(5), p(8));
  } else if (event_name == "BEX" || event_name == "BEX64") {
    o = app_crash(r, p(8), p(1), p(2), p(4), p(5), p(7));
  } else if (event_name == "LiveKernelEvent") {
    const std::string p1 = util::to_lower(util::trim(p(1)));
    if (p1 == "117" || p1 == "141" || p1 == "1b8" || p1 == "193" || p1 == "1a8") {
      o = start(r, ObservationKind::tdr, "0x" + p1);
    }
  }
  if (o) {
    o->set("event_name", event_name);
    set_if(*o, "report_id", d.get("ReportId", 19));
  }
  return o;
}

Observation nvlddmkm(const formats::EventRecord& r, ObservationKind kind) {
  Observation o = start(r, kind, std::to_string(r.event_id));
  std::string message;
  for (std::size_t i = 1; i < r.data.size(); ++i) {
    if (!r.data[i].second.empty()) {
      message += message.empty() ? "" : " ";
      message += r.data[i].second;
    }
  }
  set_if(o, "device", r.data.empty() ? "" : r.data[0].second);
  set_if(o, "message", util::sanitize(message, k_max_line));
  return o;
}

// "A TDR has been detected. … Error code: 7 (pid=1234 tid=5678 builder.exe 64bit)".
std::optional<Observation> opengl_tdr(const formats::EventRecord& r) {
  std::string text;
  for (const auto& [k, v] : r.data) {
    text += text.empty() ? v : " " + v;
  }
  if (text.find("TDR") == std::string::npos) {
    return std::nullopt;
  }
  Observation o = start(r, ObservationKind::tdr, std::to_string(r.event_id));
  o.set("side", "app");
  o.set("message", util::sanitize(text, k_max_line));
  const auto at = text.find("(pid=");
  if (at != std::string::npos) {
    const auto close = text.find(')', at);
    const auto inner = std::string_view(text).substr(
        at + 1, close == std::string::npos ? std::string::npos : close - at - 1);
    for (const auto word : util::split(inner, ' ')) {
      if (word.rfind("pid=", 0) == 0) {
        o.set("pid", std::string(word.substr(4)));
      } else if (util::to_lower(word).find(".exe") != std::string::npos) {
        o.set("process", std::string(word));
      }
    }
  }
  return o;
}

std::optional<Observation> observe(const formats::EventRecord& r) {
  const DataView d(r);
  const std::string& p = r.provider;
  const auto id = r.event_id;
  if (p == "Microsoft-Windows-Kernel-Power" && id == 41) {
    return kernel_power_41(r, d);
  }
  if (p == "EventLog" && id == 6008) {
    Observation o = start(r, ObservationKind::unexpected_shutdown, "6008");
    // Data 0 is the time, 1 the date, both localised and often with U+200E marks.
    const std::string lrm = "\xE2\x80\x8E";
    const std::string when =
        util::replace_all(d.at(1), lrm, "") + " " + util::replace_all(d.at(0), lrm, "");
    set_if(o, "previous_shutdown", std::string(util::trim(when)));
    return o;
  }
  if (id == 1001
      && (p == "Microsoft-Windows-WER-SystemErrorReporting" || p == "BugCheck"
          || r.event_source_name == "BugCheck")) {
    return bugcheck_1001(r, d);
  }
  if (p == "Display" && id == 4101) {
    Observation o = start(r, ObservationKind::tdr, "4101");
    set_if(o, "driver", d.at(0));
    return o;
  }
  if (p == "nvlddmkm" && (id == 13 || id == 14)) {
    return nvlddmkm(r, ObservationKind::nvidia_event);
  }
  if (p == "nvlddmkm" && (id == 153 || id == 0)) {
    return nvlddmkm(r, ObservationKind::tdr);
  }
  if (p == "Microsoft-Windows-WHEA-Logger") {
    return whea(r, d);
  }
  if (p == "Application Error" && id == 1000) {
    return application_error(r, d);
  }
  if (p == "Application Hang" && id == 1002) {
    return application_hang(r, d);
  }
  if (p == "Windows Error Reporting" && id == 1001) {
    return wer_1001(r, d);
  }
  if (p == "NVIDIA OpenGL Driver" && id == 1) {
    return opengl_tdr(r);
  }
  return std::nullopt;
}

} // namespace

std::vector<Observation> observe_events(const std::vector<formats::EventRecord>& records) {
  std::vector<Observation> out;
  for (const auto& r : records) {
    if (auto o = observe(r)) {
      out.push_back(std::move(*o));
    }
  }
  return out;
}

} // namespace doctor::crash
