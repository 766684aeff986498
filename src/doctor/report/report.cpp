// SPDX-License-Identifier: MIT
#include <doctor/report/report.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::report {

std::optional<Format> parse_format(std::string_view text) {
  if (text == "text") {
    return Format::text;
  }
  if (text == "json") {
    return Format::json;
  }
  if (text == "markdown" || text == "md") {
    return Format::markdown;
  }
  return std::nullopt;
}

std::string_view overall_status(const std::vector<Finding>& findings) {
  const bool fail = std::any_of(findings.begin(), findings.end(), [](const Finding& f) {
    return f.severity >= Severity::error;
  });
  if (fail) {
    return "fail";
  }
  const bool warn = std::any_of(findings.begin(), findings.end(), [](const Finding& f) {
    return f.severity == Severity::warning;
  });
  return warn ? "warn" : "pass";
}

int exit_status(const Report& report) {
  return std::any_of(report.findings.begin(),
                     report.findings.end(),
                     [&](const Finding& f) { return f.severity >= report.fail_on; })
             ? 1
             : 0;
}

std::string render(const Report& report, Format format, bool color) {
  switch (format) {
  case Format::json:
    return render_json(report);
  case Format::markdown:
    return render_markdown(report);
  case Format::text:
    break;
  }
  return render_text(report, color);
}

std::string human_bytes(std::uint64_t bytes) {
  constexpr std::uint64_t k_kib = 1024;
  if (bytes < k_kib) {
    return fmt::format("{} B", bytes);
  }
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / static_cast<double>(k_kib);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(units)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

} // namespace doctor::report
