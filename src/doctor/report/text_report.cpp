// SPDX-License-Identifier: MIT
#include <doctor/report/report.hpp>
#include <doctor/report/text_layout.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::report {

namespace {

std::string findings_summary_line(const std::vector<Finding>& findings) {
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

std::string render_text(const Report& report, bool color) {
  const Style st{color};
  std::string out;
  out += st.bold(fmt::format("cudnn-doctor {}", report.tool_version));
  out +=
      st.dim(fmt::format(" · {} of {}\n\n",
                         report.command,
                         report.target_kind == "live" ? std::string("this machine")
                                                      : report.target_kind + " " + report.target));
  out += st.bold("Inventory") + "\n";
  for (const InventoryLine& line : describe_inventory(report.inventory)) {
    for (std::size_t i = 0; i < line.values.size(); ++i) {
      out += i == 0 ? st.bold(fmt::format("  {:<8}", line.label)) : std::string(10, ' ');
      out += line.values[i] + "\n";
    }
  }
  out += "\n" + st.bold(fmt::format("Findings: {}", findings_summary_line(report.findings))) + "\n";
  for (const Finding& f : report.findings) {
    out += "\n";
    out += st.apply(severity_color(f.severity), fmt::format("{:<8}", severity_label(f.severity)));
    out += " " + st.bold(f.title) + "\n";
    out += st.dim(fmt::format("         {} · {} · {}", f.id, to_string(f.cause_class), f.subject))
           + "\n";
    out += wrap(f.message, "         ", "         ");
    if (!f.evidence.empty()) {
      out += "         " + st.bold("Evidence") + "\n";
      for (const Evidence& e : f.evidence) {
        out += wrap(fmt::format("- {}: {}", e.source, e.value), "           ", "             ");
      }
    }
    if (!f.fixes.empty()) {
      out += "         " + st.bold("Fix") + "\n";
      for (std::size_t i = 0; i < f.fixes.size(); ++i) {
        out += wrap(fmt::format("{}. {}", i + 1, f.fixes[i].text), "           ", "              ");
        if (!f.fixes[i].command.empty()) {
          out += "              " + st.apply("32", "$ " + f.fixes[i].command) + "\n";
        }
      }
    }
  }
  return out;
}

} // namespace doctor::report
