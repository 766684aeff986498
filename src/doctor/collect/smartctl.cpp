// SPDX-License-Identifier: MIT
#include <doctor/collect/smartctl.hpp>
#include <doctor/platform/process.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

// The troubleshooting guide's disk advice (run the disk's diagnostics) through smartmontools:
// `smartctl --json` gives the drive's own SMART verdict and the counters of failing media. It is
// not vendor GPU code, but a disk that hangs its commands hangs smartctl with it, so every run is
// a child process with a time limit whose whole session is killed at the end
// (platform::run_process). Its output is untrusted text: checked here, value by value.
namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using SmartJson = nlohmann::json;

constexpr std::size_t k_smart_max_text = 120;
constexpr std::size_t k_smart_max_messages = 8;
constexpr std::size_t k_smart_max_output = std::size_t{1} << 20;
constexpr std::uint64_t k_smart_max_counter = std::uint64_t{1} << 48;

// The ATA attributes that count failing media, by id (smartmontools' drivedb names).
struct SmartAtaCounter {
  std::uint64_t id;
  std::string_view key;
};
constexpr SmartAtaCounter k_smart_ata_counters[] = {
    {5, "reallocated_sectors"},
    {197, "pending_sectors"},
    {198, "offline_uncorrectable"},
};

// The NVMe health log's fields kept, by their smartctl names.
constexpr std::string_view k_smart_nvme_counters[] = {
    "critical_warning", "media_errors", "percentage_used"};

SmartJson parse_smart_json(std::string_view text) {
  return SmartJson::parse(text.begin(), text.end(), nullptr, false);
}

bool smart_printable_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x21 && c <= 0x7E; });
}

const SmartJson* smart_member(const SmartJson& j, const char* key) {
  if (!j.is_object()) {
    return nullptr;
  }
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string smart_text(const SmartJson* j) {
  return j != nullptr && j->is_string()
             ? util::sanitize(j->get_ref<const std::string&>(), k_smart_max_text)
             : std::string();
}

std::optional<std::uint64_t> smart_count(const SmartJson* j) {
  if (j == nullptr || !j->is_number_unsigned() || j->get<std::uint64_t>() > k_smart_max_counter) {
    return std::nullopt;
  }
  return j->get<std::uint64_t>();
}

// smartctl's exit status, bit by bit (smartctl(8), "RETURN VALUES").
std::string smart_exit_status_text(int status) {
  constexpr std::string_view k_bits[] = {"the command line did not parse",
                                         "the device could not be opened",
                                         "a SMART command failed",
                                         "the disk is failing (SMART status)",
                                         "prefail attributes are at or below their thresholds",
                                         "attributes were at or below their thresholds before",
                                         "the error log holds errors",
                                         "the self-test log holds errors"};
  std::vector<std::string> parts;
  for (int bit = 0; bit < 8; ++bit) {
    if ((status & (1 << bit)) != 0) {
      parts.emplace_back(k_bits[bit]);
    }
  }
  return util::join(parts, "; ");
}

} // namespace

std::vector<ScannedDisk> smartctl_scan_devices(std::string_view json) {
  std::vector<ScannedDisk> out;
  const SmartJson j = parse_smart_json(json);
  const SmartJson* devices = smart_member(j, "devices");
  if (devices == nullptr || !devices->is_array()) {
    return out;
  }
  for (const SmartJson& d : *devices) {
    const SmartJson* name = smart_member(d, "name");
    const SmartJson* type = smart_member(d, "type");
    if (name == nullptr || !name->is_string() || type == nullptr || !type->is_string()) {
      continue;
    }
    const auto& n = name->get_ref<const std::string&>();
    const auto& t = type->get_ref<const std::string&>();
    if (n.size() < 2 || n.size() > k_smart_max_text || n.front() != '/' || !smart_printable_ascii(n)
        || t.empty() || t.size() > 32 || !smart_printable_ascii(t) || t.front() == '-') {
      continue;
    }
    out.push_back(ScannedDisk{n, t});
    if (out.size() == k_max_disks) {
      break;
    }
  }
  return out;
}

DiskHealth disk_health_from_json(const ScannedDisk& disk, std::string_view json, int exit_status) {
  DiskHealth h;
  h.device = disk.name;
  h.type = disk.type;
  h.exit_status = exit_status;
  const SmartJson j = parse_smart_json(json);
  if (!j.is_object()) {
    h.passed = Fact<bool>::unknown(
        fmt::format("smartctl gave no JSON object (exit status {}{})",
                    exit_status,
                    exit_status > 0 ? ": " + smart_exit_status_text(exit_status) : std::string()));
    return h;
  }
  h.model = smart_text(smart_member(j, "model_name"));
  const SmartJson* tool = smart_member(j, "smartctl");
  if (const SmartJson* messages = tool != nullptr ? smart_member(*tool, "messages") : nullptr;
      messages != nullptr && messages->is_array()) {
    for (const SmartJson& m : *messages) {
      const std::string s = smart_text(smart_member(m, "string"));
      if (!s.empty() && h.messages.size() < k_smart_max_messages) {
        h.messages.push_back(s);
      }
    }
  }
  const SmartJson* status = smart_member(j, "smart_status");
  const SmartJson* passed = status != nullptr ? smart_member(*status, "passed") : nullptr;
  if (passed != nullptr && passed->is_boolean()) {
    h.passed = Fact<bool>::known(passed->get<bool>(), "smartctl:smart_status.passed");
  } else {
    h.passed = Fact<bool>::unknown(
        h.messages.empty() ? fmt::format(
            "smartctl gave no SMART status (exit status {}{})",
            exit_status,
            exit_status > 0 ? ": " + smart_exit_status_text(exit_status) : std::string())
                           : fmt::format("smartctl gave no SMART status: {}", h.messages.front()));
  }
  if (const SmartJson* ata = smart_member(j, "ata_smart_attributes")) {
    if (const SmartJson* table = smart_member(*ata, "table");
        table != nullptr && table->is_array()) {
      for (const SmartJson& row : *table) {
        const auto id = smart_count(smart_member(row, "id"));
        const SmartJson* raw = smart_member(row, "raw");
        const auto value = smart_count(raw != nullptr ? smart_member(*raw, "value") : nullptr);
        for (const SmartAtaCounter& c : k_smart_ata_counters) {
          if (id && value && *id == c.id) {
            h.counters[std::string(c.key)] = *value;
          }
        }
      }
    }
  }
  if (const SmartJson* nvme = smart_member(j, "nvme_smart_health_information_log")) {
    for (const std::string_view key : k_smart_nvme_counters) {
      if (const auto v = smart_count(smart_member(*nvme, std::string(key).c_str()))) {
        h.counters[std::string(key)] = *v;
      }
    }
  }
  return h;
}

std::filesystem::path find_smartctl(const platform::SysRoot& root) {
  if (root.os() == platform::OsFamily::windows) {
    constexpr const char* k_windows = "C:/Program Files/smartmontools/bin/smartctl.exe";
    return root.exists(k_windows) ? root.host_path(k_windows) : std::filesystem::path();
  }
  for (const char* dir : {"/usr/sbin", "/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"}) {
    const std::string path = fmt::format("{}/smartctl", dir);
    if (root.exists(path)) {
      return root.host_path(path);
    }
  }
  return {};
}

void collect_disk_health(const platform::SysRoot& root,
                         std::chrono::milliseconds timeout,
                         Facts& facts) {
  auto& disks = facts.host_hardware.disks;
  if (!root.is_live()) {
    disks = Fact<std::vector<DiskHealth>>::unknown(
        "smartctl asks the running machine's disks; not in a --sysroot tree");
    return;
  }
  const std::filesystem::path smartctl = find_smartctl(root);
  if (smartctl.empty()) {
    disks = Fact<std::vector<DiskHealth>>::unknown(
        "smartctl is not installed (package smartmontools), so the disks' SMART health was not "
        "read");
    return;
  }
  platform::ProcessOptions options;
  options.timeout = timeout;
  options.max_output = k_smart_max_output;
  const std::string exe = smartctl.string();
  auto scan = platform::run_process({exe, "--scan", "--json"}, options);
  if (!scan || !scan->exited) {
    disks = Fact<std::vector<DiskHealth>>::unknown(
        !scan ? fmt::format("{} could not be started: {}", exe, scan.error().message)
              : fmt::format("{} --scan did not finish{}",
                            exe,
                            scan->timed_out ? " in time and was killed" : ""));
    return;
  }
  std::vector<DiskHealth> out;
  for (const ScannedDisk& disk : smartctl_scan_devices(scan->out)) {
    // -n standby: a disk that sleeps is not woken for this (smartctl then says so and exits 2).
    auto r = platform::run_process(
        {exe, "--json", "-H", "-A", "-i", "-n", "standby", "-d", disk.type, disk.name}, options);
    if (!r) {
      DiskHealth h;
      h.device = disk.name;
      h.type = disk.type;
      h.passed =
          Fact<bool>::unknown(fmt::format("smartctl could not be started: {}", r.error().message));
      out.push_back(std::move(h));
      continue;
    }
    if (r->timed_out || !r->exited) {
      DiskHealth h;
      h.device = disk.name;
      h.type = disk.type;
      h.passed = Fact<bool>::unknown(
          r->timed_out ? fmt::format("smartctl did not answer within {} ms and was killed: the "
                                     "disk does not answer its commands",
                                     timeout.count())
                       : "smartctl was killed by a signal");
      out.push_back(std::move(h));
      continue;
    }
    out.push_back(disk_health_from_json(disk, r->out, r->exit_code));
  }
  disks = Fact<std::vector<DiskHealth>>::known(std::move(out), fmt::format("smartctl:{}", exe));
}

} // namespace doctor::collect
