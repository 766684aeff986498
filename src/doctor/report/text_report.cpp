// SPDX-License-Identifier: MIT
#include "report.hpp"

#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::report {

namespace {

constexpr std::size_t k_width = 100;

struct Style {
  bool on;
  std::string apply(std::string_view code, std::string_view text) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
  std::string bold(std::string_view t) const { return apply("1", t); }
  std::string dim(std::string_view t) const { return apply("2", t); }
};

std::string_view severity_color(Severity s) {
  switch (s) {
  case Severity::critical:
    return "1;35";
  case Severity::error:
    return "1;31";
  case Severity::warning:
    return "1;33";
  case Severity::info:
    return "1;36";
  }
  return "0";
}

std::string_view severity_label(Severity s) {
  switch (s) {
  case Severity::critical:
    return "CRITICAL";
  case Severity::error:
    return "ERROR";
  case Severity::warning:
    return "WARNING";
  case Severity::info:
    return "INFO";
  }
  return "INFO";
}

// Counts display columns: UTF-8 continuation bytes take no column.
std::size_t columns(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++n;
    }
  }
  return n;
}

// Word-wraps `text` to k_width with `indent` before the first line and `more` before the others.
std::string wrap(std::string_view text, std::string_view indent, std::string_view more) {
  std::string out;
  std::string line(indent);
  bool line_has_word = false;
  for (std::string_view word : util::split(text, ' ')) {
    if (word.empty()) {
      continue;
    }
    if (line_has_word && columns(line) + 1 + columns(word) > k_width) {
      out += line + "\n";
      line = std::string(more);
      line_has_word = false;
    }
    if (line_has_word) {
      line += ' ';
    }
    line += word;
    line_has_word = true;
  }
  out += line + "\n";
  return out;
}

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
  out += "\n" + st.bold(fmt::format("Findings: {}", summary_line(report.findings))) + "\n";
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
