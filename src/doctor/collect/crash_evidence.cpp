// SPDX-License-Identifier: MIT
#include <doctor/collect/crash_evidence.hpp>
#include <doctor/collect/crash_files.hpp>
#include <doctor/collect/linux/journal.hpp>
#include <doctor/crash/kernel_events.hpp>
#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/event_xml.hpp>
#include <doctor/formats/kernel_log.hpp>
#include <doctor/platform/event_log.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/kmsg.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace doctor::collect {

namespace {

constexpr std::size_t k_max_dir_files = 2000;
constexpr int k_max_depth = 3;
constexpr std::size_t k_max_live_events = 2000;

void append_journal(const Expected<JournalRead>& journal,
                    const std::string& source,
                    crash::Collected& out) {
  std::vector<crash::Observation> obs = crash::observe_kernel_lines(journal->lines);
  add_source(out,
             source,
             "read",
             fmt::format("journal, {} kernel message(s), {} boot(s)",
                         journal->lines.size(),
                         journal->boots.size()),
             obs.size());
  for (crash::Observation& o : obs) {
    out.observations.push_back(std::move(o));
  }
}

bool has_journal_files(const std::filesystem::path& dir, int depth) {
  auto entries = platform::list_directory(dir);
  if (!entries) {
    return false;
  }
  for (const platform::DirEntry& e : *entries) {
    if (e.kind == platform::FileKind::regular
        && (e.name.ends_with(".journal") || e.name.ends_with(".journal~"))) {
      return true;
    }
    if (e.kind == platform::FileKind::directory && depth > 0
        && has_journal_files(dir / e.name, depth - 1)) {
      return true;
    }
  }
  return false;
}

void collect_path(const std::string& path,
                  const kb::KnowledgeBase& kb,
                  crash::Collected& out,
                  int depth,
                  std::size_t& files) {
  auto kind = platform::kind_of(path);
  if (!kind) {
    add_source(out, path, "unreadable", kind.error().message);
    return;
  }
  std::error_code ec;
  const bool dir = *kind == platform::FileKind::directory
                   || (*kind == platform::FileKind::symlink
                       && std::filesystem::is_directory(std::filesystem::path(path), ec));
  if (!dir) {
    if (++files > k_max_dir_files) {
      return;
    }
    ingest_file(path, "", kb, out);
    return;
  }
  if (has_journal_files(path, 1)) {
    auto journal = read_journal({path}, k_max_journal_lines);
    if (!journal) {
      add_source(out, path, "unreadable", "journal: " + journal.error().message);
    } else {
      append_journal(journal, path, out);
      out.earlier_boots_covered = out.earlier_boots_covered || journal->boots.size() > 1;
    }
    return;
  }
  if (depth >= k_max_depth) {
    add_source(out, path, "skipped", "deeper than 3 directory levels");
    return;
  }
  auto entries = platform::list_directory(path);
  if (!entries) {
    add_source(out, path, "unreadable", entries.error().message);
    return;
  }
  for (const platform::DirEntry& e : *entries) {
    if (e.kind == platform::FileKind::regular || e.kind == platform::FileKind::directory
        || e.kind == platform::FileKind::symlink) {
      collect_path((std::filesystem::path(path) / e.name).string(), kb, out, depth + 1, files);
    }
  }
  if (files > k_max_dir_files) {
    add_source(out,
               path,
               "skipped",
               fmt::format("more than {} files: the rest were not read", k_max_dir_files));
  }
}

// The rotated copies of a log, oldest first: kern.log.4.gz … kern.log.1, kern.log.
std::vector<std::string>
rotated(const platform::SysRoot& root, std::string_view dir, std::string_view base) {
  std::vector<std::pair<std::uint64_t, std::string>> found;
  auto entries = root.list_dir(dir);
  if (!entries) {
    return {};
  }
  for (const platform::DirEntry& e : *entries) {
    if (e.name == base) {
      found.emplace_back(0, e.name);
      continue;
    }
    if (!e.name.starts_with(std::string(base) + ".")) {
      continue;
    }
    std::string_view rest = std::string_view(e.name).substr(base.size() + 1);
    if (rest.ends_with(".gz")) {
      rest.remove_suffix(3);
    }
    // Numbered (kern.log.1) or dated (messages-20250101) rotations.
    if (auto n = util::parse_uint(rest)) {
      found.emplace_back(*n, e.name);
    }
  }
  for (const platform::DirEntry& e : *entries) {
    if (e.name.starts_with(std::string(base) + "-")) {
      found.emplace_back(0, e.name);
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> out;
  out.reserve(found.size());
  for (auto& [n, name] : found) {
    out.push_back(std::string(dir) + "/" + name);
  }
  return out;
}

void ingest_inner(const platform::SysRoot& root,
                  const std::string& inner,
                  const std::string& boot,
                  const kb::KnowledgeBase& kb,
                  crash::Collected& out) {
  const std::size_t before = out.sources.size();
  ingest_file(root.host_path(inner).string(), boot, kb, out);
  // Report the path as the examined machine names it.
  for (std::size_t i = before; i < out.sources.size(); ++i) {
    out.sources[i].source = inner;
  }
  for (crash::Observation& o : out.observations) {
    if (o.origin.source == root.host_path(inner).string()) {
      o.origin.source = inner;
    }
  }
}

// The boot time of the live machine (/proc/stat "btime", seconds since 1970).
std::optional<std::int64_t> boot_time_usec(const platform::SysRoot& root) {
  auto stat = root.read_file("/proc/stat", std::size_t{1} << 20U, true);
  if (!stat) {
    return std::nullopt;
  }
  for (std::string_view line : util::split_lines(*stat)) {
    if (line.starts_with("btime ")) {
      if (auto secs = util::parse_uint(util::trim(line.substr(6))); secs && *secs < (1ULL << 40U)) {
        return static_cast<std::int64_t>(*secs) * 1000000;
      }
    }
  }
  return std::nullopt;
}

void collect_linux(const platform::SysRoot& root,
                   const kb::KnowledgeBase& kb,
                   crash::Collected& out) {
  // 1. The journal: every boot it kept.
  const bool persistent = root.is_dir("/var/log/journal");
  bool journal_has_current = false;
  bool journal_read = false;
  std::string current_boot;
  if (root.is_live()) {
    if (auto id = root.read_file("/proc/sys/kernel/random/boot_id", 64)) {
      current_boot = std::string(util::trim(*id));
      std::erase(current_boot, '-');
    }
  }
  std::vector<std::string> dirs;
  for (const char* d : {"/var/log/journal", "/run/log/journal"}) {
    if (root.is_dir(d)) {
      dirs.push_back(root.is_live() ? std::string(d) : root.host_path(d).string());
    }
  }
  if (dirs.empty()) {
    add_source(out, "journal", "absent", "no /var/log/journal or /run/log/journal");
  } else {
    auto journal =
        read_journal(root.is_live() ? std::vector<std::string>{} : dirs, k_max_journal_lines);
    if (!journal) {
      add_source(out, "journal", "unreadable", journal.error().message);
    } else {
      append_journal(
          journal, persistent ? "journal (persistent)" : "journal (this boot only)", out);
      journal_read = !journal->lines.empty();
      journal_has_current = !current_boot.empty()
                            && std::find(journal->boots.begin(), journal->boots.end(), current_boot)
                                   != journal->boots.end();
      out.earlier_boots_covered = out.earlier_boots_covered || journal->boots.size() > 1;
    }
  }

  // 2. The kernel's ring buffer, when the journal lacks this boot.
  if (!root.is_live()) {
    add_source(out, "/dev/kmsg", "skipped", "not the live machine");
  } else if (journal_has_current) {
    add_source(out, "/dev/kmsg", "skipped", "the journal holds this boot's kernel messages");
  } else if (auto kmsg = platform::read_kmsg(); !kmsg) {
    add_source(out,
               "/dev/kmsg",
               kmsg.error().code == ErrorCode::permission_denied ? "unreadable" : "absent",
               kmsg.error().message);
  } else {
    std::vector<formats::KernelLine> lines = formats::read_kernel_log(*kmsg, "/dev/kmsg");
    // The kernel stamps records with the time since boot; /proc/stat's btime makes it absolute
    // (to the second; time spent suspended is not counted).
    const std::optional<std::int64_t> boot_usec = boot_time_usec(root);
    for (formats::KernelLine& l : lines) {
      l.when.boot = current_boot;
      if (boot_usec && l.when.uptime_usec && !l.when.utc_usec) {
        l.when.utc_usec = *boot_usec + *l.when.uptime_usec;
      }
    }
    std::vector<crash::Observation> obs = crash::observe_kernel_lines(lines);
    add_source(out,
               "/dev/kmsg",
               "read",
               fmt::format("{} record(s) of this boot", lines.size()),
               obs.size());
    for (crash::Observation& o : obs) {
      out.observations.push_back(std::move(o));
    }
  }

  // 3. Text logs: they repeat what a persistent journal holds.
  std::vector<std::string> texts;
  for (const char* base : {"kern.log", "messages", "syslog"}) {
    for (std::string& f : rotated(root, "/var/log", base)) {
      texts.push_back(std::move(f));
    }
  }
  if (texts.empty()) {
    add_source(out, "/var/log/kern.log, messages, syslog", "absent", "no text kernel log");
  } else if (persistent && journal_read) {
    add_source(
        out,
        "/var/log/kern.log, messages, syslog",
        "skipped",
        fmt::format("{} file(s): the persistent journal holds the same messages", texts.size()));
  } else {
    // kern.log has the kernel's lines; messages and syslog repeat them where kern.log exists.
    const bool kern = std::any_of(texts.begin(), texts.end(), [](const std::string& t) {
      return t.find("/kern.log") != std::string::npos;
    });
    for (const std::string& t : texts) {
      if (kern && t.find("/kern.log") == std::string::npos) {
        continue;
      }
      ingest_inner(root, t, "", kb, out);
    }
    out.earlier_boots_covered = true;
  }

  // 4. pstore and kdump: what a crashed kernel left behind.
  bool saved = false;
  for (const char* dir : {"/sys/fs/pstore", "/var/lib/systemd/pstore", "/var/crash"}) {
    auto entries = root.list_dir(dir);
    if (!entries) {
      continue;
    }
    const std::string label = std::string_view(dir) == "/var/crash" ? "kdump" : "pstore";
    for (const platform::DirEntry& e : *entries) {
      const std::string inner = std::string(dir) + "/" + e.name;
      if (e.kind == platform::FileKind::regular) {
        if (label == "pstore" || e.name.starts_with("dmesg") || e.name == "vmcore-dmesg.txt") {
          ingest_inner(root, inner, label, kb, out);
          saved = true;
        }
        continue;
      }
      if (e.kind != platform::FileKind::directory) {
        continue;
      }
      auto inside = root.list_dir(inner);
      if (!inside) {
        continue;
      }
      for (const platform::DirEntry& f : *inside) {
        if (f.kind == platform::FileKind::regular
            && (label == "pstore" || f.name.starts_with("dmesg") || f.name == "vmcore-dmesg.txt")) {
          ingest_inner(root, inner + "/" + f.name, label, kb, out);
          saved = true;
        }
      }
    }
  }
  if (!saved) {
    add_source(out,
               "pstore, kdump",
               "absent",
               "nothing in /sys/fs/pstore, /var/lib/systemd/pstore or /var/crash");
  } else {
    out.earlier_boots_covered = true;
  }
}

void collect_windows_tree(const platform::SysRoot& root,
                          const std::string& windows,
                          const kb::KnowledgeBase& kb,
                          crash::Collected& out) {
  bool any = false;
  for (const std::string& dir : {windows + "/Minidump", windows + "/LiveKernelReports"}) {
    auto entries = root.list_dir(dir);
    if (!entries) {
      continue;
    }
    for (const platform::DirEntry& e : *entries) {
      if (e.kind == platform::FileKind::regular && util::to_lower(e.name).ends_with(".dmp")) {
        ingest_inner(root, dir + "/" + e.name, "", kb, out);
        any = true;
      } else if (e.kind == platform::FileKind::directory) {
        auto inside = root.list_dir(dir + "/" + e.name);
        for (const platform::DirEntry& f : inside ? *inside : std::vector<platform::DirEntry>{}) {
          if (f.kind == platform::FileKind::regular && util::to_lower(f.name).ends_with(".dmp")) {
            ingest_inner(root, dir + "/" + e.name + "/" + f.name, "", kb, out);
            any = true;
          }
        }
      }
    }
  }
  if (root.is_file(windows + "/MEMORY.DMP")) {
    ingest_inner(root, windows + "/MEMORY.DMP", "", kb, out);
    any = true;
  }
  if (!any) {
    add_source(out, windows + "/Minidump", "absent", "no crash dumps");
  }
  for (const char* log : {"System.evtx", "Application.evtx"}) {
    const std::string inner = windows + "/System32/winevt/Logs/" + log;
    if (root.is_file(inner)) {
      ingest_inner(root, inner, "", kb, out);
    } else {
      add_source(out, inner, "absent", "no such event log");
    }
  }
}

// The event log queries of a live Windows machine: only the events the analysis reads.
void collect_windows_live(crash::Collected& out) {
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

} // namespace

crash::Collected collect_files(const std::vector<std::string>& paths, const kb::KnowledgeBase& kb) {
  crash::Collected out;
  std::size_t files = 0;
  for (const std::string& p : paths) {
    collect_path(p, kb, out, 0, files);
  }
  return out;
}

crash::Collected collect_machine(const platform::SysRoot& root, const kb::KnowledgeBase& kb) {
  crash::Collected out;
  out.machine.live = root.is_live();
  if (root.os() == platform::OsFamily::windows && root.is_live()) {
    // SystemRoot "C:\Windows": the drive is the root, the rest the inner path.
    std::string system_root = "C:\\Windows";
    if (auto sr = root.env().get("SystemRoot"); sr && sr->size() > 3 && (*sr)[1] == ':') {
      system_root = *sr;
    }
    std::replace(system_root.begin(), system_root.end(), '\\', '/');
    const platform::SysRoot drive(system_root.substr(0, 3), root.env(), root.os(), true);
    collect_windows_tree(drive, system_root.substr(2), kb, out);
    collect_windows_live(out);
    return out;
  }
  for (const char* windows : {"/Windows", "/WINDOWS", "/windows"}) {
    if (root.is_dir(std::string(windows) + "/System32")) {
      collect_windows_tree(root, windows, kb, out);
      return out;
    }
  }
  collect_linux(root, kb, out);
  return out;
}

} // namespace doctor::collect
