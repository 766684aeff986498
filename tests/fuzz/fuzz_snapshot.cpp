// SPDX-License-Identifier: MIT
// Snapshots come from users' bug reports: any bytes must give a snapshot or a clear error, within
// the bounds of facts::k_snapshot_limits, and a snapshot that loads must survive the checks and the
// reports. The input goes through the same bounded reader as `check --snapshot`.
#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/runner.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/facts_json.hpp>
#include <doctor/model/facts_values.hpp>
#include <doctor/report/report.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const doctor::kb::KnowledgeBase k_kb = *doctor::kb::KnowledgeBase::load_embedded();
  auto facts =
      doctor::facts::from_json_text(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!facts) {
    // A refusal is a message a terminal can show: never empty, never a control byte.
    const std::string& m = facts.error().message;
    if (m.empty() || std::any_of(m.begin(), m.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
        })) {
      std::abort();
    }
    return 0;
  }
  // What loads holds only values of the enumerated sets, and reads back as itself.
  if (!doctor::facts::check_values(*facts)) {
    std::abort();
  }
  auto again = doctor::facts::from_json_text(doctor::facts::to_json_text(*facts));
  if (!again || !(*again == *facts)) {
    std::abort();
  }
  doctor::report::Report rep;
  rep.inventory = doctor::report::make_inventory(*facts);
  rep.findings = doctor::checks::run_checks(*facts, k_kb, doctor::checks::all_checks());
  doctor::report::render_text(rep, true);
  doctor::report::render_json(rep);
  doctor::report::render_markdown(rep);
  return 0;
}
