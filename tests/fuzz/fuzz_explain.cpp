// SPDX-License-Identifier: MIT
// Random bytes as a log through explain's whole text path with the built-in signatures: the fast
// scan (small chunks, so block and long-line boundaries are crossed) must report exactly what the
// decoder path reports, and ranking and rendering must accept whatever was found.
#include <doctor/explain/analysis.hpp>
#include <doctor/explain/result.hpp>
#include <doctor/explain/scan.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace doctor;

const kb::KnowledgeBase& knowledge() {
  static const kb::KnowledgeBase k = [] {
    auto loaded = kb::KnowledgeBase::load_embedded();
    if (!loaded)
      std::abort();
    return std::move(*loaded);
  }();
  return k;
}

std::string describe(const explain::Analysis& a) {
  std::string s;
  for (const auto& h : a.hits()) {
    s += std::to_string(h.signature) + "x" + std::to_string(h.count) + ":";
    for (const auto& l : h.lines)
      s += std::to_string(l.line) + "." + std::to_string(l.part) + l.text + "|";
    for (const auto& [k, v] : h.fields)
      s += k + "=" + v + ";";
  }
  for (const auto& in : a.inputs())
    s += " lines=" + std::to_string(in.lines);
  return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const kb::KnowledgeBase& kb = knowledge();
  static const explain::SignatureMatcher matcher(kb.signatures(), kb.cudnn_library_sets());
  std::string_view text(reinterpret_cast<const char*>(data), size);

  explain::Analysis fast(matcher);
  explain::ScanOptions small;
  small.chunk_bytes = 4096;
  explain::scan_text("fuzz", text, fast, small);

  explain::Analysis slow(matcher);
  explain::ScanOptions decoder;
  decoder.fast_path = false;
  explain::scan_text("fuzz", text, slow, decoder);
  if (describe(fast) != describe(slow))
    std::abort();

  const explain::Ranking ranking = explain::rank(fast);
  auto result = explain::build_result(fast, ranking, kb);
  if (!result)
    std::abort();
  for (const auto& c : result->causes) {
    if (c.finding.id.empty() || c.confidence < 1 || c.confidence > 100)
      std::abort();
  }
  return 0;
}
