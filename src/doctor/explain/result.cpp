// SPDX-License-Identifier: MIT
#include <doctor/explain/result.hpp>
#include <doctor/kb/render.hpp>
#include <doctor/kb/signatures.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace doctor::explain {

namespace {

// Evidence lines shown per cause.
constexpr std::size_t k_shown_lines = 6;

bool before(const EvidenceLine& a, const EvidenceLine& b) {
  return std::tie(a.input, a.line, a.part) < std::tie(b.input, b.line, b.part);
}

Mention mention_of(const Analysis& analysis, const kb::KnowledgeBase& kb, std::size_t hit) {
  const SignatureHits& h = analysis.hits()[hit];
  const kb::Signature& s = analysis.matcher().signatures()[h.signature];
  Mention m;
  m.signature = s.id;
  m.finding = s.finding;
  const kb::FindingTemplate* t = kb.finding(s.finding);
  m.title = t != nullptr ? t->title : s.finding;
  m.cause_class = t != nullptr ? t->cause_class : CauseClass::other;
  m.count = h.count;
  m.lines = h.lines;
  return m;
}

} // namespace

std::string where(const ExplainResult& result, const EvidenceLine& line) {
  std::string name = line.input < result.inputs.size() ? result.inputs[line.input].name : "?";
  if (line.part > 0) {
    return fmt::format("{}:{}.{}", name, line.line, line.part);
  }
  return fmt::format("{}:{}", name, line.line);
}

Expected<ExplainResult>
build_result(const Analysis& analysis, const Ranking& ranking, const kb::KnowledgeBase& kb) {
  ExplainResult out;
  out.inputs = analysis.inputs();
  out.lines_matched = analysis.lines_matched();
  out.log_platform = ranking.platform;
  const auto& sigs = analysis.matcher().signatures();
  const auto& hits = analysis.hits();

  for (const RankedCause& rc : ranking.causes) {
    ExplainedCause c;
    c.confidence = rc.confidence;
    c.from_symptoms = rc.from_symptoms;
    c.fields = rc.fields;
    c.lines = rc.lines;
    c.confirm = rc.likely_tell;
    for (const kb::SignatureAlternative& a : rc.alternatives) {
      const kb::FindingTemplate* at = kb.finding(a.finding);
      if (at == nullptr) {
        return make_error(ErrorCode::internal,
                          fmt::format("finding {} is not in the knowledge base", a.finding));
      }
      c.alternatives.push_back(
          Alternative{a.finding, at->title, at->cause_class, a.confidence, a.tell});
    }
    FindingDraft draft;
    draft.id = rc.finding;
    const kb::FindingTemplate* t = kb.finding(rc.finding);
    if (t == nullptr) {
      return make_error(ErrorCode::internal,
                        fmt::format("finding {} is not in the knowledge base", rc.finding));
    }
    for (std::size_t h : rc.hits) {
      const SignatureHits& sh = hits[h];
      const kb::Signature& s = sigs[sh.signature];
      c.signatures.push_back(s.id);
      c.matches += sh.count;
      c.lines.insert(c.lines.end(), sh.lines.begin(), sh.lines.end());
      for (const auto& f : sh.fields) {
        bool have = std::any_of(
            c.fields.begin(), c.fields.end(), [&](const auto& x) { return x.first == f.first; });
        if (!have) {
          c.fields.push_back(f);
        }
      }
      for (const auto& v : s.values) {
        bool have = std::any_of(
            c.fields.begin(), c.fields.end(), [&](const auto& x) { return x.first == v.first; });
        if (!have) {
          c.fields.push_back(v);
        }
      }
    }
    std::sort(c.lines.begin(), c.lines.end(), before);
    // Two signatures of one finding may match the same line.
    c.lines.erase(std::unique(c.lines.begin(),
                              c.lines.end(),
                              [](const EvidenceLine& a, const EvidenceLine& b) {
                                return !before(a, b) && !before(b, a);
                              }),
                  c.lines.end());
    if (c.lines.size() > k_shown_lines) {
      c.lines.resize(k_shown_lines);
    }
    for (const std::string& p : t->params) {
      auto it = std::find_if(
          c.fields.begin(), c.fields.end(), [&](const auto& x) { return x.first == p; });
      // An optional group that did not take part in the first match.
      draft.params.emplace_back(
          p, it != c.fields.end() ? it->second : std::string("(not in the log)"));
    }
    if (out.log_platform.empty()) {
      draft.tags = {"windows", "linux"};
    } else {
      draft.tags = {out.log_platform};
    }
    auto finding = kb::render(kb, draft);
    if (!finding) {
      return tl::unexpected(finding.error());
    }
    c.finding = std::move(*finding);
    c.finding.subject = "the log";
    for (const EvidenceLine& l : c.lines) {
      c.finding.evidence.push_back({where(out, l), l.text});
    }
    for (std::size_t h : rc.consequence_hits) {
      c.consequences.push_back(mention_of(analysis, kb, h));
    }
    out.causes.push_back(std::move(c));
  }
  for (std::size_t h : ranking.symptoms) {
    out.symptoms.push_back(mention_of(analysis, kb, h));
  }
  for (std::size_t h : ranking.noise) {
    out.noise.push_back(mention_of(analysis, kb, h));
  }
  for (std::size_t h : ranking.context) {
    out.context.push_back(mention_of(analysis, kb, h));
  }
  return out;
}

} // namespace doctor::explain
