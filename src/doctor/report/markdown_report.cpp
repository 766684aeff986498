// SPDX-License-Identifier: MIT
#include <doctor/report/report.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::report {

namespace {

// Every untrusted string (paths, names, messages filled with them) is text or a code span, made
// inert by util: no markup, link, HTML or control character survives.
std::string cell(std::string_view s) {
  return util::escape_markdown(s);
}

std::string code_span(std::string_view s) {
  return util::markdown_code_span(s);
}

std::string_view severity_mark(Severity s) {
  switch (s) {
  case Severity::info:
    return "ℹ️";
  case Severity::warning:
    return "⚠️";
  case Severity::error:
  case Severity::critical:
    break;
  }
  return "❌";
}

} // namespace

std::string render_markdown(const Report& report) {
  std::string out;
  out += fmt::format("## cudnn-doctor {} report\n\n", report.command);
  out += fmt::format("cudnn-doctor {} (knowledge base {}), target: {}{}\n\n",
                     report.tool_version,
                     report.kb_version,
                     report.target_kind,
                     report.target_kind == "live" ? "" : " " + code_span(report.target));
  out += "### Inventory\n\n| | |\n|---|---|\n";
  for (const InventoryLine& line : describe_inventory(report.inventory)) {
    std::vector<std::string> cells;
    for (const std::string& v : line.values) {
      cells.push_back(cell(v));
    }
    out += fmt::format("| {} | {} |\n", line.label, util::join(cells, "<br>"));
  }
  out += fmt::format("\n### Findings ({})\n", overall_status(report.findings));
  if (report.findings.empty()) {
    out += "\nNo findings.\n";
  }
  for (const Finding& f : report.findings) {
    out += fmt::format("\n#### {} {}\n\n", severity_mark(f.severity), cell(f.title));
    out += fmt::format("{} · {} · {} · {}\n\n",
                       code_span(f.id),
                       to_string(f.severity),
                       code_span(to_string(f.cause_class)),
                       cell(f.subject));
    out += cell(f.message) + "\n";
    if (!f.evidence.empty()) {
      out += "\n**Evidence**\n\n";
      for (const Evidence& e : f.evidence) {
        out += fmt::format("- {}: {}\n", code_span(e.source), cell(e.value));
      }
    }
    if (!f.fixes.empty()) {
      out += "\n**Fix**\n\n";
      for (std::size_t i = 0; i < f.fixes.size(); ++i) {
        out += fmt::format("{}. {}\n", i + 1, cell(f.fixes[i].text));
        if (!f.fixes[i].command.empty()) {
          const std::string command = util::escape_terminal(f.fixes[i].command);
          const std::string fence = util::markdown_fence(command);
          out += fmt::format("   {}sh\n   {}\n   {}\n", fence, command, fence);
        }
      }
    }
  }
  return out;
}

} // namespace doctor::report
