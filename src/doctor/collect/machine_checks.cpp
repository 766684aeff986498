// SPDX-License-Identifier: MIT
#include <doctor/collect/machine_checks.hpp>
#include <doctor/crash/kernel_events.hpp>
#include <doctor/platform/kmsg.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/time.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

// Linux machine checks, the guide's advice to look for hardware errors: the processor reports an
// error of its caches, memory controller or interconnect in a machine-check bank, and the kernel
// logs it ("mce: [Hardware Error]: CPU 14: Machine Check: 0 Bank 7: cc0000800001009f", then TSC,
// ADDR and PROCESSOR lines) unless mcelog or rasdaemon take the record, in which case only "Machine
// check events logged" is printed. The bank's MCi_STATUS says what the hardware did: VAL (bit 63)
// the record is valid, UC (bit 61) uncorrected, PCC (bit 57) the processor context is corrupt
// (arch/x86/include/asm/mce.h; Intel SDM vol. 3B ch. 16, AMD APM vol. 2 ch. 9). The kernel's counts
// are not kept anywhere a user can read without root (/sys/devices/system/machinecheck only holds
// settings), so the count comes from the kernel log of the boot, through the crash module's own
// scanner.
namespace doctor::collect {

namespace {

constexpr std::uint64_t k_mce_status_val = std::uint64_t{1} << 63U;
constexpr std::uint64_t k_mce_status_uc = std::uint64_t{1} << 61U;
// A record logged this soon after boot comes from the boot-time poll of the banks: the error
// happened before the last reset (the kernel's "bootlog", mce=nobootlog turns it off).
constexpr std::int64_t k_mce_boot_window_usec = std::int64_t{5} * 1000000;
// A notice this close to a record is that record's.
constexpr std::int64_t k_mce_notice_span_usec = std::int64_t{2} * 1000000;
constexpr std::size_t k_mce_kept_lines = 12;
constexpr std::size_t k_mce_journal_lines = 500000; // the newest kernel messages read
constexpr std::size_t k_mce_max_ids = 4096;         // CPUs or banks named
constexpr std::string_view k_machinecheck_dir = "/sys/devices/system/machinecheck";

// True for a dmesg label ("202072.518835"): the time since boot again, not a date.
bool only_seconds(std::string_view label) {
  return std::all_of(label.begin(), label.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == ' ';
  });
}

// The time of `w` as the log gave it: ISO UTC, else the syslog label, with the time since boot.
std::string time_text(const formats::When& w) {
  const std::string uptime =
      w.uptime_usec
          ? fmt::format("{}.{:06} s after boot", *w.uptime_usec / 1000000, *w.uptime_usec % 1000000)
          : std::string();
  std::string out;
  if (w.utc_usec) {
    out = util::iso_utc(*w.utc_usec);
  } else if (!w.label.empty() && (uptime.empty() || !only_seconds(w.label))) {
    out = w.label; // a syslog date; a dmesg label is the time since boot again
  }
  if (!uptime.empty()) {
    out = out.empty() ? uptime : fmt::format("{} ({})", out, uptime);
  }
  return out;
}

// Microseconds of `w` on one clock (since boot where known, else UTC), for nearness only.
std::optional<std::int64_t> clock_of(const formats::When& w) {
  return w.uptime_usec ? w.uptime_usec : w.utc_usec;
}

bool near(const crash::Observation& a, const crash::Observation& b) {
  const auto ta = clock_of(a.when);
  const auto tb = clock_of(b.when);
  if (!ta || !tb) {
    return true; // adjacent in the log with no time to tell them apart
  }
  const std::int64_t d = *ta > *tb ? *ta - *tb : *tb - *ta;
  return d <= k_mce_notice_span_usec;
}

std::string_view field_or_empty(const crash::Observation& o, std::string_view name) {
  const std::string* v = o.field(name);
  return v == nullptr ? std::string_view() : std::string_view(*v);
}

void add_id(std::set<std::uint64_t>& ids, std::string_view text) {
  if (const auto n = util::parse_uint(text); n && ids.size() < k_mce_max_ids) {
    ids.insert(*n);
  }
}

void keep_lines(facts::MachineChecks& out, const crash::Observation& o) {
  for (const std::string& l : o.lines) {
    if (out.lines.size() >= k_mce_kept_lines) {
      return;
    }
    out.lines.push_back(l);
  }
}

} // namespace

facts::MachineChecks count_machine_checks(std::span<const formats::KernelLine> lines,
                                          const std::string& log) {
  facts::MachineChecks out;
  out.log = log;
  out.lines_read = lines.size();
  std::vector<crash::Observation> mce;
  for (crash::Observation& o :
       crash::observe_kernel_lines(std::vector<formats::KernelLine>(lines.begin(), lines.end()))) {
    if (o.kind == crash::ObservationKind::mce) {
      mce.push_back(std::move(o));
    }
  }
  std::set<std::uint64_t> cpus;
  std::set<std::uint64_t> banks;
  const crash::Observation* first = nullptr;
  const crash::Observation* last = nullptr;
  for (std::size_t i = 0; i < mce.size(); ++i) {
    const crash::Observation& o = mce[i];
    const std::string_view type = field_or_empty(o, "type");
    if (type == "events_logged") {
      // The notice of records printed next to it, or of records another consumer took.
      const auto is_record = [&](std::size_t k) {
        return field_or_empty(mce[k], "type") != "events_logged" && near(o, mce[k]);
      };
      if ((i > 0 && is_record(i - 1)) || (i + 1 < mce.size() && is_record(i + 1))) {
        continue;
      }
      ++out.unclassified;
    } else if (type == "machine_check") {
      add_id(cpus, field_or_empty(o, "cpu"));
      add_id(banks, field_or_empty(o, "bank"));
      const auto status = util::parse_hex(field_or_empty(o, "status"));
      if (!status || (*status & k_mce_status_val) == 0) {
        ++out.unclassified;
      } else if ((*status & k_mce_status_uc) != 0) {
        ++out.uncorrected;
      } else {
        ++out.corrected;
      }
    } else if (type == "corrected") {
      ++out.corrected;
    } else {
      ++out.uncorrected; // "[Hardware Error]: Uncorrected …", "hardware memory error"
    }
    ++out.events;
    if (o.when.uptime_usec && *o.when.uptime_usec < k_mce_boot_window_usec) {
      ++out.at_boot;
    }
    first = first == nullptr ? &o : first;
    last = &o;
    keep_lines(out, o);
  }
  out.cpus.assign(cpus.begin(), cpus.end());
  out.banks.assign(banks.begin(), banks.end());
  if (first != nullptr) {
    out.first = time_text(first->when);
    out.last = time_text(last->when);
  }
  return out;
}

KernelLogReaders system_kernel_log_readers() {
  KernelLogReaders r;
  r.journal = [](const platform::SysRoot& root, const std::vector<std::string>& dirs) {
    return dirs.empty() ? read_journal({}, k_mce_journal_lines)
                        : read_journal(root, dirs, k_mce_journal_lines);
  };
  r.kmsg = [] { return platform::read_kmsg(); };
  return r;
}

void collect_machine_checks(const platform::SysRoot& root,
                            const KernelLogReaders& readers,
                            facts::Facts& facts) {
  using Checks = facts::Fact<facts::MachineChecks>;
  auto& mce = facts.host_hardware.machine_checks;
  if (root.os() != platform::OsFamily::linux) {
    mce = Checks::unknown(
        "machine checks are counted from the Linux kernel log (on Windows, "
        "WHEA counts them)");
    return;
  }
  std::vector<std::string> why; // each source that gave nothing, and why
  std::string boot;
  if (root.is_live()) {
    if (auto id = root.read_file("/proc/sys/kernel/random/boot_id", 64)) {
      boot = std::string(util::trim(*id));
      std::erase(boot, '-');
    }
  }
  std::vector<std::string> dirs;
  for (const char* d : {"/var/log/journal", "/run/log/journal"}) {
    if (root.is_dir(d)) {
      dirs.emplace_back(d);
    }
  }
  if (dirs.empty()) {
    why.emplace_back("journal: no /var/log/journal or /run/log/journal");
  } else if (root.is_live() && boot.empty()) {
    why.emplace_back("journal: this boot's id is unknown (/proc/sys/kernel/random/boot_id)");
  } else if (auto journal =
                 readers.journal(root, root.is_live() ? std::vector<std::string>{} : dirs);
             !journal) {
    why.push_back("journal: " + journal.error().message);
  } else {
    // The live machine's boot, or the newest boot an examined system's journal holds.
    if (!root.is_live() && !journal->boots.empty()) {
      boot = journal->boots.back();
    }
    std::vector<formats::KernelLine> lines;
    for (const formats::KernelLine& l : journal->lines) {
      if (l.when.boot == boot) {
        lines.push_back(l);
      }
    }
    if (!lines.empty()) {
      const std::string log = root.is_live() ? std::string("journal") : util::join(dirs, ", ");
      facts::MachineChecks m = count_machine_checks(lines, log);
      m.boot = boot;
      mce = Checks::known(std::move(m),
                          root.is_live() ? fmt::format("journal:boot {}", boot)
                                         : fmt::format("dir:{} boot {}", dirs.front(), boot));
      return;
    }
    why.push_back(root.is_live()
                      ? std::string("journal: no kernel message of this boot (the system journal "
                                    "is readable by root and the systemd-journal and adm groups)")
                      : std::string("journal: no kernel message"));
  }
  if (root.is_live()) {
    auto kmsg = readers.kmsg();
    if (kmsg) {
      const std::vector<formats::KernelLine> lines = formats::read_kernel_log(*kmsg, "/dev/kmsg");
      facts::MachineChecks m = count_machine_checks(lines, "/dev/kmsg");
      m.boot = boot;
      mce = Checks::known(std::move(m), "file:/dev/kmsg");
      return;
    }
    why.push_back(fmt::format("/dev/kmsg: {}{}",
                              kmsg.error().message,
                              kmsg.error().code == ErrorCode::permission_denied
                                  ? " (kernel.dmesg_restrict is set: run as root)"
                                  : ""));
    if (!root.is_dir(k_machinecheck_dir)) {
      why.emplace_back(
          "this kernel reports no machine-check support (no "
          "/sys/devices/system/machinecheck)");
    }
  }
  mce = Checks::unknown(fmt::format("no kernel log of {} could be read: {}",
                                    root.is_live() ? "this boot" : "the examined system",
                                    util::join(why, "; ")));
}

void collect_machine_checks(const platform::SysRoot& root, facts::Facts& facts) {
  collect_machine_checks(root, system_kernel_log_readers(), facts);
}

} // namespace doctor::collect
