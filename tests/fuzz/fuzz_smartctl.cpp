// SPDX-License-Identifier: MIT
// Random bytes as smartctl's JSON (collect/smartctl.cpp): the scan and per-disk readers must not
// crash, and what they keep must keep its bounds: at most k_max_disks disks, each name an absolute
// path of printable ASCII (it becomes an argument of the next smartctl run), every text
// printable, at most 8 messages, and only the known counters.
#include <doctor/collect/smartctl.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

bool printable(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return false;
    }
  }
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace doctor;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto disks = collect::smartctl_scan_devices(text);
  check(disks.size() <= collect::k_max_disks);
  for (const auto& d : disks) {
    check(!d.name.empty() && d.name.front() == '/' && printable(d.name));
    check(!d.type.empty() && d.type.front() != '-' && printable(d.type));
  }
  const auto h = collect::disk_health_from_json({"/dev/sda", "sat"}, text, 0);
  check(h.device == "/dev/sda" && printable(h.model) && h.model.size() <= 200);
  check(h.messages.size() <= 8);
  for (const auto& m : h.messages) {
    check(printable(m));
  }
  for (const auto& [key, value] : h.counters) {
    check(key == "reallocated_sectors" || key == "pending_sectors" || key == "offline_uncorrectable"
          || key == "media_errors" || key == "critical_warning" || key == "percentage_used");
    check(value <= (std::uint64_t{1} << 48));
  }
  check(h.passed.has_value() || !h.passed.reason().empty());
  return 0;
}
