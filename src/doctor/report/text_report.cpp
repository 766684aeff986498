// SPDX-License-Identifier: MIT
#include <doctor/report/report.hpp>
#include <doctor/report/text_layout.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::report {

namespace {

std::string summary_line(const std::vector<Finding>& findings) {
  int counts[4] = {0, 0, 0, 0};
  for (const Finding& f : findings) {
    ++counts[static_cast<int>(f.severity)];
  }
  std::vector<std::string> parts;
  const char* names[4][2] = {
      {"info", "info"}, {"warning", "warnings"}, {"error", "errors"}, {"critical", "critical"}};
  for (int s = 3; s >= 0; --s) {
    if (counts[s] > 0) {
      parts.push_back(fmt::format("{} {}", counts[s], names[s][counts[s] == 1 ? 0 : 1]));
    }
  }
  return parts.empty() ? "no findings" : util::join(parts, ", ");
}

} // namespace

std::string render_findings_text(const std::vector<Finding>& findings, bool color) {
  using util::escape_terminal;
  const Style st{color};
  std::string out;
  out += "\n" + st.bold(fmt::format("Findings: {}", summary_line(findings))) + "\n";
  for (const Finding& f : findings) {
    out += "\n";
    out += st.apply(severity_color(f.severity), fmt::format("{:<8}", severity_label(f.severity)));
    out += " " + st.bold(escape_terminal(f.title)) + "\n";
    out += st.dim(fmt::format(
               "         {} · {} · {}", f.id, to_string(f.cause_class), escape_terminal(f.subject)))
           + "\n";
    out += wrap(escape_terminal(f.message), "         ", "         ");
    if (!f.evidence.empty()) {
      out += "         " + st.bold("Evidence") + "\n";
      for (const Evidence& e : f.evidence) {
        out += wrap(fmt::format("- {}: {}", escape_terminal(e.source), escape_terminal(e.value)),
                    "           ",
                    "             ");
      }
    }
    if (!f.fixes.empty()) {
      out += "         " + st.bold("Fix") + "\n";
      for (std::size_t i = 0; i < f.fixes.size(); ++i) {
        out += wrap(fmt::format("{}. {}", i + 1, escape_terminal(f.fixes[i].text)),
                    "           ",
                    "              ");
        if (!f.fixes[i].command.empty()) {
          out +=
              "              " + st.apply("32", "$ " + escape_terminal(f.fixes[i].command)) + "\n";
        }
      }
    }
  }
  return out;
}

// Every string that comes from the examined machine or a file (paths, names, versions, the
// messages and fixes filled with them) passes util::escape_terminal on its way out, so none can
// move the cursor, recolour, retitle the window or start a line of its own.
std::string render_text(const Report& report, bool color) {
  using util::escape_terminal;
  const Style st{color};
  std::string out;
  out += st.bold(fmt::format("cudnn-doctor {}", report.tool_version));
  out += st.dim(fmt::format(" · {} of {}\n\n",
                            report.command,
                            report.target_kind == "live"
                                ? std::string("this machine")
                                : report.target_kind + " " + escape_terminal(report.target)));
  out += st.bold("Inventory") + "\n";
  for (const InventoryLine& line : describe_inventory(report.inventory)) {
    for (std::size_t i = 0; i < line.values.size(); ++i) {
      out += i == 0 ? st.bold(fmt::format("  {:<8}", line.label)) : std::string(10, ' ');
      out += escape_terminal(line.values[i]) + "\n";
    }
  }
  out += render_findings_text(report.findings, color);
  return out;
}

} // namespace doctor::report
