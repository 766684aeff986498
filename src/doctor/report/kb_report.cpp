// SPDX-License-Identifier: MIT
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/signatures.hpp>
#include <doctor/report/kb_report.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/json_bytes.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <string_view>

namespace doctor::report {

KbSummary summarize_kb(const kb::KnowledgeBase& kb, std::string checked) {
  KbSummary out;
  out.version = kb.version();
  out.files = kb.files();
  out.checked = std::move(checked);
  std::set<std::string_view> sources;
  const auto add = [&](std::string_view source) {
    sources.insert(source);
    ++out.rows;
  };
  for (const kb::FindingTemplate& t : kb.findings()) {
    add(t.source);
  }
  for (const kb::CudnnLibrarySet& s : kb.cudnn_library_sets()) {
    add(s.source);
  }
  for (const kb::WindowsLoadingRule& r : kb.windows_loading()) {
    add(r.source);
  }
  for (std::string_view s : kb.compat().sources()) {
    add(s);
  }
  for (const kb::Signature& s : kb.signatures()) {
    add(s.source);
  }
  const kb::CrashCatalog& crash = kb.crash();
  for (const kb::XidEntry& x : crash.xids()) {
    add(x.source);
  }
  for (const kb::BugCheckEntry& b : crash.bugchecks()) {
    add(b.source);
  }
  for (const kb::ExceptionCodeEntry& e : crash.exceptions()) {
    add(e.source);
  }
  for (const kb::CrashModuleEntry& m : crash.modules()) {
    add(m.source);
  }
  out.distinct_sources = sources.size();
  return out;
}

std::string render_kb_text(const KbSummary& summary) {
  std::string out;
  if (!summary.checked.empty()) {
    out += fmt::format("valid: {}\n", util::escape_terminal(summary.checked));
  }
  out += fmt::format("knowledge base {}\n\n", summary.version);
  std::size_t name_width = 4;
  std::size_t origin_width = 6;
  // A --kb-dir folder's names are the user's: shown escaped.
  for (const kb::KbFileInfo& f : summary.files) {
    name_width = std::max(name_width, util::escape_terminal(f.name).size());
    origin_width = std::max(origin_width, util::escape_terminal(f.origin).size());
  }
  out += fmt::format("{:<{}}  {:<{}}  {:>6}\n", "file", name_width, "origin", origin_width, "rows");
  for (const kb::KbFileInfo& f : summary.files) {
    out += fmt::format("{:<{}}  {:<{}}  {:>6}\n",
                       util::escape_terminal(f.name),
                       name_width,
                       util::escape_terminal(f.origin),
                       origin_width,
                       f.rows);
  }
  out += fmt::format("\n{} rows, {} distinct sources\n", summary.rows, summary.distinct_sources);
  return out;
}

std::string render_kb_json(const KbSummary& summary) {
  nlohmann::ordered_json doc;
  doc["version"] = summary.version;
  if (!summary.checked.empty()) {
    doc["checked"] = summary.checked;
    doc["valid"] = true;
  }
  doc["files"] = nlohmann::ordered_json::array();
  for (const kb::KbFileInfo& f : summary.files) {
    doc["files"].push_back({{"name", f.name}, {"origin", f.origin}, {"rows", f.rows}});
  }
  doc["rows"] = summary.rows;
  doc["distinct_sources"] = summary.distinct_sources;
  util::keep_bytes(doc);
  return doc.dump(2) + "\n";
}

} // namespace doctor::report
