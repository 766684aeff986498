// SPDX-License-Identifier: MIT
// Where a Windows system keeps crash evidence: dumps and event log files on its disk (examined
// from any host), and on the live machine the event log API and the TDR settings in the registry.
#include <doctor/collect/crash_files.hpp>
#include <doctor/collect/crash_sources.hpp>
#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/event_xml.hpp>
#include <doctor/platform/event_log.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

namespace {

constexpr std::size_t k_max_live_events = 2000;

bool is_dump(const platform::DirEntry& e) {
  return e.kind == platform::FileKind::regular && util::to_lower(e.name).ends_with(".dmp");
}

// The event log queries of a live Windows machine: only the events the analysis reads.
void collect_event_logs(crash::Collected& out) {
  const std::vector<std::pair<std::string, std::string>> queries = {
      {"System",
       "*[System[(EventID=41 or EventID=6008 or EventID=1001 or EventID=4101 or EventID=13 or "
       "EventID=14 or EventID=153 or EventID=0 or EventID=17 or EventID=18 or EventID=19 or "
       "EventID=47 or EventID=1 or EventID=16 or EventID=20 or EventID=46)]]"},
      {"Application", "*[System[(EventID=1000 or EventID=1001 or EventID=1002 or EventID=1)]]"},
  };
  for (const auto& [channel, xpath] : queries) {
    const std::string source = "eventlog:" + channel;
    auto events = platform::query_event_log(channel, xpath, k_max_live_events);
    if (!events) {
      add_source(out,
                 source,
                 events.error().code == ErrorCode::unsupported ? "unsupported" : "unreadable",
                 events.error().message);
      continue;
    }
    std::string xml;
    for (const std::string& e : *events) {
      xml += e;
      xml += '\n';
    }
    std::vector<crash::Observation> obs;
    if (!xml.empty()) {
      auto records = formats::parse_event_xml(xml, source);
      if (records) {
        obs = crash::observe_events(*records);
      }
    }
    add_source(out, source, "read", fmt::format("{} event(s)", events->size()), obs.size());
    for (crash::Observation& o : obs) {
      out.observations.push_back(std::move(o));
    }
  }
  out.earlier_boots_covered = true;
}

// GraphicsDrivers\TdrDelay and TdrLevel: what a GPU timeout means on this machine.
void collect_tdr_settings(crash::Collected& out) {
  constexpr const char* k_key = "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers";
  auto delay = platform::read_registry_dword(k_key, "TdrDelay");
  auto level = platform::read_registry_dword(k_key, "TdrLevel");
  if (delay && level) {
    out.machine.tdr_settings_read = true;
    out.machine.tdr_delay = *delay;
    out.machine.tdr_level = *level;
    add_source(out,
               "registry",
               "read",
               fmt::format("TdrDelay {}, TdrLevel {}",
                           *delay ? std::to_string(**delay) : std::string("not set (2 s)"),
                           *level ? std::to_string(**level) : std::string("not set (3)")));
  } else {
    add_source(
        out, "registry", "unreadable", !delay ? delay.error().message : level.error().message);
  }
}

// The TDR settings of a Windows disk, from its SYSTEM hive.
void collect_hive_tdr_settings(const platform::Registry& registry, crash::Collected& out) {
  constexpr const char* k_key = "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers";
  const auto hklm = platform::RegistryRoot::local_machine;
  const std::string source = registry.source(hklm, k_key);
  std::string detail;
  for (const char* name : {"TdrDelay", "TdrLevel"}) {
    auto v = registry.value(hklm, k_key, name);
    if (!v && v.error().code != ErrorCode::not_found) {
      add_source(out, source, "unreadable", v.error().message);
      return;
    }
    const bool set = v && v->type == platform::RegistryValue::Type::dword;
    if (set) {
      (std::string_view(name) == "TdrDelay" ? out.machine.tdr_delay : out.machine.tdr_level) =
          static_cast<std::uint32_t>(v->number);
    }
    const char* fallback = std::string_view(name) == "TdrDelay" ? "not set (2 s)" : "not set (3)";
    detail += fmt::format("{}{} {}",
                          detail.empty() ? "" : ", ",
                          name,
                          set ? std::to_string(v->number) : std::string(fallback));
  }
  out.machine.tdr_settings_read = true;
  add_source(out, source, "read", detail);
}

// The minidump folder CrashControl\MinidumpDir names on the disk, when it is not the default
// <windows>/Minidump ("%SystemRoot%\Minidump" and "C:\..." paths only).
std::optional<std::string> configured_minidump_dir(const platform::SysRoot& root,
                                                   const std::string& windows) {
  const platform::Registry* registry = root.registry();
  if (registry == nullptr) {
    return std::nullopt;
  }
  auto v = registry->value(platform::RegistryRoot::local_machine,
                           "SYSTEM\\CurrentControlSet\\Control\\CrashControl",
                           "MinidumpDir");
  if (!v || v->text.empty()) {
    return std::nullopt;
  }
  std::string dir = v->text;
  std::replace(dir.begin(), dir.end(), '\\', '/');
  const std::string lower = util::to_lower(dir);
  if (lower.starts_with("%systemroot%")) {
    dir = windows + dir.substr(12);
  } else if (lower.size() > 2 && lower[0] == 'c' && lower[1] == ':') {
    dir = dir.substr(2);
  } else {
    return std::nullopt;
  }
  auto found = root.find_any_case(dir);
  if (!found || util::to_lower(*found) == util::to_lower(windows + "/Minidump")) {
    return std::nullopt;
  }
  return *found;
}

} // namespace

std::optional<std::string> windows_directory(const platform::SysRoot& root) {
  return root.windows_directory();
}

void collect_windows_disk_crash_sources(const platform::SysRoot& root,
                                        const std::string& windows,
                                        const kb::KnowledgeBase& kb,
                                        crash::Collected& out) {
  bool any = false;
  std::vector<std::string> dump_dirs = {windows + "/Minidump", windows + "/LiveKernelReports"};
  if (auto configured = configured_minidump_dir(root, windows)) {
    dump_dirs.push_back(*configured);
  }
  for (const std::string& found : dump_dirs) {
    const std::string dir = root.find_any_case(found).value_or(found);
    auto entries = root.list_dir(dir);
    if (!entries) {
      continue;
    }
    for (const platform::DirEntry& e : *entries) {
      if (is_dump(e)) {
        ingest_inner(root, dir + "/" + e.name, "", kb, out);
        any = true;
      } else if (e.kind == platform::FileKind::directory) {
        // LiveKernelReports keeps one folder per kind (WATCHDOG, NMI_…).
        auto inside = root.list_dir(dir + "/" + e.name);
        for (const platform::DirEntry& f : inside ? *inside : std::vector<platform::DirEntry>{}) {
          if (is_dump(f)) {
            ingest_inner(root, dir + "/" + e.name + "/" + f.name, "", kb, out);
            any = true;
          }
        }
      }
    }
  }
  if (auto memory = root.find_any_case(windows + "/MEMORY.DMP"); memory && root.is_file(*memory)) {
    ingest_inner(root, *memory, "", kb, out);
    any = true;
  }
  if (!any) {
    add_source(out, windows + "/Minidump", "absent", "no crash dumps");
  }
  for (const char* log : {"System.evtx", "Application.evtx"}) {
    const std::string wanted = windows + "/System32/winevt/Logs/" + log;
    const std::string inner = root.find_any_case(wanted).value_or(wanted);
    if (root.is_file(inner)) {
      ingest_inner(root, inner, "", kb, out);
    } else {
      add_source(out, inner, "absent", "no such event log");
    }
  }
  if (root.is_live()) {
    return; // the live machine's registry is read through the API (collect_tdr_settings)
  }
  if (const platform::Registry* registry = root.registry()) {
    collect_hive_tdr_settings(*registry, out);
  } else if (!root.registry_error().empty()) {
    add_source(out, "registry", "unreadable", root.registry_error());
  }
}

void collect_live_windows_crash_sources(const platform::SysRoot& root,
                                        const kb::KnowledgeBase& kb,
                                        crash::Collected& out) {
  // SystemRoot "C:\Windows": the drive is the root, the rest the inner path.
  std::string system_root = "C:\\Windows";
  if (auto sr = root.env().get("SystemRoot"); sr && sr->size() > 3 && (*sr)[1] == ':') {
    system_root = *sr;
  }
  std::replace(system_root.begin(), system_root.end(), '\\', '/');
  const platform::SysRoot drive(system_root.substr(0, 3), root.env(), root.os(), true);
  collect_windows_disk_crash_sources(drive, system_root.substr(2), kb, out);
  collect_event_logs(out);
  collect_tdr_settings(out);
}

} // namespace doctor::collect
