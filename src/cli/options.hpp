// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/severity.hpp>
#include <doctor/report/report.hpp>
#include <doctor/util/error.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace doctor::cli {

enum class ColorMode { automatic, always, never };

// Where the facts come from.
struct TargetOptions {
  std::string sysroot;          // --sysroot DIR; empty: the live machine
  std::vector<std::string> env; // --env NAME=VALUE, in order
  std::string snapshot;         // --snapshot FILE (check only)
  bool no_nvml = false;         // --no-nvml
  double probe_timeout = 10.0;  // --probe-timeout SECONDS
  bool verify = false;          // --verify
  bool no_cache = false;        // --no-cache
  std::string kb_dir;           // --kb-dir DIR
};

struct CheckOptions {
  TargetOptions target;
  report::Format format = report::Format::text;
  ColorMode color = ColorMode::automatic;
  Severity fail_on = Severity::error;
  std::string output; // -o FILE; empty: stdout
};

struct SnapshotOptions {
  TargetOptions target;
  std::string output; // -o FILE; empty or "-": stdout
};

// `kb`: list the knowledge base, or check an override directory.
struct KbOptions {
  std::string check_dir; // --check DIR; empty: the built-in knowledge base
  bool json = false;     // --format json
};

// `explain`: read error text and name the cause.
struct ExplainOptions {
  std::vector<std::string> inputs; // files, "-" for standard input, or pasted text
  TargetOptions target;            // the machine joined with the log (--snapshot allowed)
  bool no_machine = false;         // --no-machine
  report::Format format = report::Format::text;
  ColorMode color = ColorMode::automatic;
  std::string output; // -o FILE; empty: stdout
};

// `crashes`: read crash evidence into a timeline of incidents.
struct CrashesOptions {
  std::vector<std::string> from; // --from FILE|DIR...; empty: the machine (or --sysroot)
  TargetOptions target;          // --sysroot, --kb-dir (no --snapshot)
  report::Format format = report::Format::text;
  ColorMode color = ColorMode::automatic;
  std::string output; // -o FILE; empty: stdout
};

// Parses "--env" values into a map. Returns ErrorCode::invalid_argument naming the first value
// without '=' or with an empty name.
Expected<std::map<std::string, std::string>>
parse_env_assignments(const std::vector<std::string>& values);

// Parses "auto", "always", "never".
std::optional<ColorMode> parse_color(std::string_view text);

} // namespace doctor::cli
