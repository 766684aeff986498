// SPDX-License-Identifier: MIT
// The reports of `crashes`: a timeline for people, JSON (schema cudnn-doctor-crashes/1,
// docs/crashes.md) for programs, Markdown for an issue.
#pragma once

#include <doctor/crash/incident.hpp>
#include <doctor/report/report.hpp>

#include <string>
#include <string_view>

namespace doctor::report {

inline constexpr std::string_view k_crashes_schema = "cudnn-doctor-crashes/1";

struct CrashMeta {
  std::string tool_version;
  std::string kb_version;
  std::string target; // "this machine", "sysroot DIR", "files"
};

// "2025-01-21 04:41:44 UTC", else the time as written, else "boot B, 123.456 s after start",
// else "time unknown".
std::string when_text(const crash::When& when);

std::string
render_crashes_text(const crash::CrashReport& report, const CrashMeta& meta, bool color);
std::string render_crashes_json(const crash::CrashReport& report, const CrashMeta& meta);
std::string render_crashes_markdown(const crash::CrashReport& report, const CrashMeta& meta);

// Renders in `format`.
std::string
render_crashes(const crash::CrashReport& report, const CrashMeta& meta, Format format, bool color);

} // namespace doctor::report
