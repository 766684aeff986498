// SPDX-License-Identifier: MIT
// Where a Linux system keeps crash evidence. Every read goes through the SysRoot: a link in an
// examined image's /var/log is followed inside the image, never on the host.
#include <doctor/collect/crash_files.hpp>
#include <doctor/collect/crash_sources.hpp>
#include <doctor/collect/linux/journal.hpp>
#include <doctor/crash/kernel_events.hpp>
#include <doctor/formats/kernel_log.hpp>
#include <doctor/platform/kmsg.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

namespace {

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

// The journal: every boot it kept. Returns whether it gave lines, and sets `has_current` when it
// holds the boot `current_boot`.
bool collect_journal(const platform::SysRoot& root,
                     const std::string& current_boot,
                     crash::Collected& out,
                     bool& has_current) {
  const bool persistent = root.is_dir("/var/log/journal");
  std::vector<std::string> dirs;
  for (const char* d : {"/var/log/journal", "/run/log/journal"}) {
    if (root.is_dir(d)) {
      dirs.emplace_back(d);
    }
  }
  if (dirs.empty()) {
    add_source(out, "journal", "absent", "no /var/log/journal or /run/log/journal");
    return false;
  }
  // The live machine's own journal through libsystemd's view of it; an examined tree's files
  // resolved inside the tree.
  auto journal = root.is_live() ? read_journal({}, k_max_journal_lines)
                                : read_journal(root, dirs, k_max_journal_lines);
  if (!journal) {
    add_source(out, "journal", "unreadable", journal.error().message);
    return false;
  }
  add_journal(*journal, persistent ? "journal (persistent)" : "journal (this boot only)", out);
  has_current = !current_boot.empty()
                && std::find(journal->boots.begin(), journal->boots.end(), current_boot)
                       != journal->boots.end();
  out.earlier_boots_covered = out.earlier_boots_covered || journal->boots.size() > 1;
  return !journal->lines.empty();
}

// The kernel's ring buffer, when the journal lacks this boot.
void collect_kmsg(const platform::SysRoot& root,
                  const std::string& current_boot,
                  bool journal_has_current,
                  crash::Collected& out) {
  if (!root.is_live()) {
    add_source(out, "/dev/kmsg", "skipped", "not the live machine");
    return;
  }
  if (journal_has_current) {
    add_source(out, "/dev/kmsg", "skipped", "the journal holds this boot's kernel messages");
    return;
  }
  auto kmsg = platform::read_kmsg();
  if (!kmsg) {
    add_source(out,
               "/dev/kmsg",
               kmsg.error().code == ErrorCode::permission_denied ? "unreadable" : "absent",
               kmsg.error().message);
    return;
  }
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
  add_source(
      out, "/dev/kmsg", "read", fmt::format("{} record(s) of this boot", lines.size()), obs.size());
  for (crash::Observation& o : obs) {
    out.observations.push_back(std::move(o));
  }
}

// Text logs: they repeat what a persistent journal holds.
void collect_text_logs(const platform::SysRoot& root,
                       bool journal_read,
                       const kb::KnowledgeBase& kb,
                       crash::Collected& out) {
  std::vector<std::string> texts;
  for (const char* base : {"kern.log", "messages", "syslog"}) {
    for (std::string& f : rotated(root, "/var/log", base)) {
      texts.push_back(std::move(f));
    }
  }
  if (texts.empty()) {
    add_source(out, "/var/log/kern.log, messages, syslog", "absent", "no text kernel log");
    return;
  }
  if (root.is_dir("/var/log/journal") && journal_read) {
    add_source(
        out,
        "/var/log/kern.log, messages, syslog",
        "skipped",
        fmt::format("{} file(s): the persistent journal holds the same messages", texts.size()));
    return;
  }
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

// pstore and kdump: what a crashed kernel left behind.
void collect_saved_logs(const platform::SysRoot& root,
                        const kb::KnowledgeBase& kb,
                        crash::Collected& out) {
  bool saved = false;
  for (const char* dir : {"/sys/fs/pstore", "/var/lib/systemd/pstore", "/var/crash"}) {
    auto entries = root.list_dir(dir);
    if (!entries) {
      continue;
    }
    const std::string label = std::string_view(dir) == "/var/crash" ? "kdump" : "pstore";
    const auto wanted = [&](const platform::DirEntry& f) {
      return f.kind == platform::FileKind::regular
             && (label == "pstore" || f.name.starts_with("dmesg") || f.name == "vmcore-dmesg.txt");
    };
    for (const platform::DirEntry& e : *entries) {
      const std::string inner = std::string(dir) + "/" + e.name;
      if (e.kind == platform::FileKind::regular) {
        if (wanted(e)) {
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
        if (wanted(f)) {
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

} // namespace

void collect_linux_crash_sources(const platform::SysRoot& root,
                                 const kb::KnowledgeBase& kb,
                                 crash::Collected& out) {
  std::string current_boot;
  if (root.is_live()) {
    if (auto id = root.read_file("/proc/sys/kernel/random/boot_id", 64)) {
      current_boot = std::string(util::trim(*id));
      std::erase(current_boot, '-');
    }
  }
  bool journal_has_current = false;
  const bool journal_read = collect_journal(root, current_boot, out, journal_has_current);
  collect_kmsg(root, current_boot, journal_has_current, out);
  collect_text_logs(root, journal_read, kb, out);
  collect_saved_logs(root, kb, out);
}

} // namespace doctor::collect
