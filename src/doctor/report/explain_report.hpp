// SPDX-License-Identifier: MIT
// The reports of `explain`: text for people, JSON (schema cudnn-doctor-explain/1, docs/explain.md)
// for programs, Markdown for pasting into an issue.
#pragma once

#include <doctor/explain/result.hpp>
#include <doctor/report/report.hpp>

#include <string>
#include <string_view>

namespace doctor::report {

inline constexpr std::string_view k_explain_schema = "cudnn-doctor-explain/1";

struct ExplainMeta {
  std::string tool_version;
  std::string kb_version;
};

std::string
render_explain_text(const explain::ExplainResult& result, const ExplainMeta& meta, bool color);
std::string render_explain_json(const explain::ExplainResult& result, const ExplainMeta& meta);
std::string render_explain_markdown(const explain::ExplainResult& result, const ExplainMeta& meta);

// Renders in `format`.
std::string render_explain(const explain::ExplainResult& result,
                           const ExplainMeta& meta,
                           Format format,
                           bool color);

} // namespace doctor::report
