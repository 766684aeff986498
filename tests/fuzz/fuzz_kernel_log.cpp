// SPDX-License-Identifier: MIT
// Random bytes as a kernel log: read_kernel_log, observe_kernel_lines, looks_like_kernel_log and
// gunzip must not crash, and the results must keep their bounds: every message at most
// k_max_kernel_text bytes, levels -1..7, at most 12 evidence lines per Observation, Xid and SXid
// codes all digits, and the streaming reader must give the same lines as the vector one. The
// machine-check count of the same lines (collect/machine_checks.cpp) must add up: every event
// corrected, uncorrected or unclassified, CPUs and banks ascending, at most 12 lines kept.
#include <doctor/collect/machine_checks.hpp>
#include <doctor/crash/kernel_events.hpp>
#include <doctor/formats/gzip.hpp>
#include <doctor/formats/kernel_log.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace doctor;
  using namespace doctor::crash;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)formats::looks_like_kernel_log(text.substr(0, 1024));

  const std::vector<formats::KernelLine> lines = formats::read_kernel_log(text, "fuzz");
  for (const formats::KernelLine& line : lines) {
    check(line.text.size() <= formats::k_max_kernel_text);
    check(line.level >= -1 && line.level <= 7);
    check(line.origin.locator.rfind("line ", 0) == 0);
  }
  std::size_t streamed = 0;
  formats::read_kernel_log(text, "fuzz", [&](formats::KernelLine&& line) {
    check(streamed < lines.size() && lines[streamed].text == line.text);
    ++streamed;
  });
  check(streamed == lines.size());

  for (const Observation& o : observe_kernel_lines(lines)) {
    check(o.lines.size() <= 12);
    if (o.kind == ObservationKind::xid || o.kind == ObservationKind::sxid) {
      check(!o.code.empty());
      for (const char c : o.code) {
        check(c >= '0' && c <= '9');
      }
    }
  }

  const facts::MachineChecks mce = collect::count_machine_checks(lines, "fuzz");
  check(mce.events == mce.corrected + mce.uncorrected + mce.unclassified);
  check(mce.at_boot <= mce.events && mce.lines.size() <= 12 && mce.lines_read == lines.size());
  check(std::is_sorted(mce.cpus.begin(), mce.cpus.end()));
  check(std::adjacent_find(mce.banks.begin(), mce.banks.end()) == mce.banks.end());
  check(mce.events > 0 || (mce.first.empty() && mce.lines.empty()));

  if (formats::looks_like_gzip(text)) {
    auto out = formats::gunzip(text, 1 << 20);
    check(!out || out->size() <= (1U << 20));
  }
  return 0;
}
