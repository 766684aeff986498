// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/finding.hpp>
#include <doctor/report/inventory.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::report {

inline constexpr std::string_view k_report_schema = "cudnn-doctor-report/1";

enum class Format { text, json, markdown };

// Parses "text", "json" or "markdown"; nullopt otherwise.
std::optional<Format> parse_format(std::string_view text);

// A finished diagnosis, ready to print in any format.
struct Report {
  std::string command = "check";
  std::string tool_version;
  std::string kb_version;
  std::string target_kind; // "live", "sysroot" or "snapshot"
  std::string target;      // "/" , the sysroot directory or the snapshot file
  Inventory inventory;
  std::vector<Finding> findings; // sorted worst first
  Severity fail_on = Severity::error;
};

// The roll-up rule (docs/report.md): "fail" if any finding is error or critical, else "warn" if
// any is a warning, else "pass".
std::string_view overall_status(const std::vector<Finding>& findings);

// 1 if any finding is at or above `report.fail_on`, else 0.
int exit_status(const Report& report);

// Human text; ANSI colours when `color`.
std::string render_text(const Report& report, bool color);

// The JSON document of docs/report.schema.json, with a final newline.
std::string render_json(const Report& report);

// GitHub-flavoured Markdown for pasting into an issue.
std::string render_markdown(const Report& report);

// The findings part of a text report: the summary line, then each finding with its evidence and
// fixes, every untrusted string escaped. Shared by `check` and `probe`.
std::string render_findings_text(const std::vector<Finding>& findings, bool color);

// The first members of a JSON report: {"schema", "tool": {name, version, kb_version}, "command"}.
nlohmann::ordered_json report_head(std::string_view schema,
                                   const std::string& tool_version,
                                   const std::string& kb_version,
                                   const std::string& command);

// The "summary" object of a JSON report (docs/report.md): roll-up status, counts by severity,
// fail_on and exit_code.
nlohmann::ordered_json
summary_json(const std::vector<Finding>& findings, Severity fail_on, int exit_code);

// The "findings" array of a JSON report: {id, severity, cause_class, title, subject, message,
// evidence, fixes} each.
nlohmann::ordered_json findings_json(const std::vector<Finding>& findings);

// Renders `report` in `format`.
std::string render(const Report& report, Format format, bool color);

// "1.5 GiB" style sizes for people.
std::string human_bytes(std::uint64_t bytes);

} // namespace doctor::report
