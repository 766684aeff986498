// SPDX-License-Identifier: MIT
// Snapshots come from users' bug reports: any bytes must give a snapshot or a clear error, and a
// snapshot that loads must survive the checks and the reports.
#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/runner.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/facts_json.hpp>
#include <doctor/report/report.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const doctor::kb::KnowledgeBase k_kb = *doctor::kb::KnowledgeBase::load_embedded();
  auto facts =
      doctor::facts::from_json_text(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!facts) {
    return 0;
  }
  doctor::report::Report rep;
  rep.inventory = doctor::report::make_inventory(*facts);
  rep.findings = doctor::checks::run_checks(*facts, k_kb, doctor::checks::all_checks());
  doctor::report::render_text(rep, true);
  doctor::report::render_json(rep);
  doctor::report::render_markdown(rep);
  return 0;
}
