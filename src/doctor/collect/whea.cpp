// SPDX-License-Identifier: MIT
#include <doctor/collect/whea.hpp>
#include <doctor/formats/evtx.hpp>

#include <fmt/format.h>

#include <algorithm>

// Windows' hardware errors, the guide's advice to check the event log for WHEA-Logger: the
// Windows Hardware Error Architecture logs every machine check, PCIe error and corrected memory
// error the firmware reports (research note anchors-crash-forensics.md: 1, 16, 18, 20 fatal; 17
// corrected PCIe, 19 corrected processor, 47 corrected memory). Fatal and corrected are told apart
// by the event's level, which WHEA sets for each (error or critical for fatal, warning for
// corrected), so an event id this table does not know is still counted on the right side.
namespace doctor::collect {

namespace {

constexpr std::string_view k_provider = "Microsoft-Windows-WHEA-Logger";
constexpr std::size_t k_max_system_log = std::size_t{256} << 20; // the log's size limit is 20 MB
constexpr int k_level_warning = 3;

} // namespace

facts::WheaErrors count_whea(std::span<const formats::EventRecord> records,
                             const std::string& log) {
  facts::WheaErrors out;
  out.log = log;
  for (const formats::EventRecord& r : records) {
    if (r.provider != k_provider) {
      continue;
    }
    if (r.level == k_level_warning) {
      ++out.corrected;
    } else if (r.level == 1 || r.level == 2) {
      ++out.fatal;
    } else {
      continue; // informational WHEA events (a boot summary) are no error
    }
    ++out.by_event[std::to_string(r.event_id)];
  }
  return out;
}

void collect_whea(const platform::SysRoot& root, facts::Facts& facts) {
  auto& whea = facts.host_hardware.whea;
  if (root.os() != platform::OsFamily::windows) {
    whea = facts::Fact<facts::WheaErrors>::unknown("WHEA is Windows' own");
    return;
  }
  // The live machine: %SystemRoot% on its drive; a Windows disk: its Windows folder.
  std::string windows = "/Windows";
  std::optional<platform::SysRoot> drive;
  if (root.is_live()) {
    std::string system_root = root.env().get("SystemRoot").value_or("C:\\Windows");
    std::replace(system_root.begin(), system_root.end(), '\\', '/');
    if (system_root.size() > 3 && system_root[1] == ':') {
      drive.emplace(system_root.substr(0, 3), root.env(), root.os(), true);
      windows = system_root.substr(2);
    }
  }
  const platform::SysRoot& at = drive ? *drive : root;
  const std::string wanted = windows + "/System32/winevt/Logs/System.evtx";
  const std::string inner = at.find_any_case(wanted).value_or(wanted);
  auto bytes = at.read_file(inner, k_max_system_log, true);
  if (!bytes) {
    whea = facts::Fact<facts::WheaErrors>::unknown(
        fmt::format("{} cannot be read: {}", inner, bytes.error().message));
    return;
  }
  auto log = formats::parse_evtx(*bytes, inner);
  if (!log) {
    whea = facts::Fact<facts::WheaErrors>::unknown(
        fmt::format("{} is not an event log: {}", inner, log.error().message));
    return;
  }
  whea = facts::Fact<facts::WheaErrors>::known(count_whea(log->records, inner),
                                               fmt::format("file:{}", inner));
}

} // namespace doctor::collect
