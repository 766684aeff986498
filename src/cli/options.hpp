// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/collect/collect.hpp>
#include <doctor/model/severity.hpp>
#include <doctor/report/report.hpp>
#include <doctor/util/error.hpp>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// CLI11's application, declared here so that only the files that build the command line include
// CLI11.
namespace CLI { // NOLINT(readability-identifier-naming): CLI11's own name
class App;
} // namespace CLI

namespace doctor::cli {

enum class ColorMode { automatic, always, never };

// Where the facts come from.
struct TargetOptions {
  std::string sysroot;          // --sysroot DIR; empty: the live machine
  std::vector<std::string> env; // --env NAME=VALUE, in order
  std::string snapshot;         // --snapshot FILE (check only)
  bool no_nvml = false;         // --no-nvml (wins over --nvml)
  collect::NvmlQuery nvml = collect::NvmlQuery::when_driver; // --nvml auto|always|never
  double probe_timeout = 10.0;                               // --probe-timeout SECONDS
  bool verify = false;                                       // --verify
  bool no_cache = false;                                     // --no-cache
  std::string kb_dir;                                        // --kb-dir DIR
};

// What a command's output looks like and where it goes: the shared options of
// add_output_options, each filled only where the command declares it.
struct OutputOptions {
  report::Format format = report::Format::text; // --format
  ColorMode color = ColorMode::automatic;       // --color
  Severity fail_on = Severity::error;           // --fail-on
  std::string file;                             // -o FILE; empty or "-": standard output
};

// Which of the shared output options a command takes.
struct OutputSpec {
  // --format's choices, in the order its help names them; empty: no --format.
  std::span<const report::Format> formats = {};
  std::string_view format_note = {}; // appended to --format's help: "json not with --tree"
  bool color = false;                // --color
  bool fail_on = false;              // --fail-on
  bool file = false;                 // -o/--output
};

// Declares on `cmd`, in this order, the options `spec` names: --format (its help and choices
// from spec.formats; "markdown" is also spelled "md"), --color, --fail-on, -o/--output. Parsing
// fills `out`, which must outlive `cmd`.
void add_output_options(CLI::App& cmd, OutputOptions& out, const OutputSpec& spec);

// Declares where the facts come from: --sysroot, --env, --snapshot (when `with_snapshot`),
// --no-nvml, --verify, --no-cache, --probe-timeout and --kb-dir, filling `target`.
void add_target_options(CLI::App& cmd, TargetOptions& target, bool with_snapshot);

// Declares --kb-dir alone (add_target_options includes it).
void add_kb_dir_option(CLI::App& cmd, std::string& kb_dir);

// Adds `name` SECONDS (0.1 to 600): how long an isolated probe child may take, `what` naming
// which probe(s), before it is killed and reported as hung.
void add_probe_timeout_option(CLI::App& cmd,
                              const std::string& name,
                              double& seconds,
                              std::string_view what);

struct CheckOptions {
  TargetOptions target;
  OutputOptions output; // --format text|json|markdown, --color, --fail-on, -o
};

struct SnapshotOptions {
  TargetOptions target;
  OutputOptions output;                // -o only
  bool probe = false;                  // --probe: run the isolated probes too
  std::vector<std::string> probe_libs; // --lib PROBE=PATH
};

// `probe`: run the vendor libraries in isolated children and report what they did.
struct ProbeOptions {
  std::vector<std::string> libs; // --lib PROBE=PATH: the file a probe loads instead
  double timeout = 10.0;         // --timeout SECONDS, for each child
  std::string kb_dir;            // --kb-dir DIR
  OutputOptions output;          // --format text|json, --color, --fail-on, -o
};

// `stress`: GPU health tests in the isolated stress child (docs/stress.md).
struct StressOptions {
  std::string level = "quick";   // --level quick|standard|long
  int gpu = 0;                   // --gpu N (CUDA's index)
  std::string inject = "none";   // --inject-fault memtest|gemm
  std::vector<std::string> libs; // --lib cuda=PATH
  double timeout = 0;            // --timeout SECONDS; 0: the level's default
  std::string kb_dir;            // --kb-dir DIR
  OutputOptions output;          // --format text|json, --color, --fail-on, -o
};

// `kb`: list the knowledge base, or check an override directory.
struct KbOptions {
  std::string check_dir; // --check DIR; empty: the built-in knowledge base
  OutputOptions output;  // --format text|json
};

// `explain`: read error text and name the cause.
struct ExplainOptions {
  std::vector<std::string> inputs; // files, "-" for standard input, or pasted text
  TargetOptions target;            // the machine joined with the log (--snapshot allowed)
  bool no_machine = false;         // --no-machine
  bool each = false;               // --each: one report per input instead of one for them all
  OutputOptions output;            // --format text|json|markdown, --color, -o
};

// `crashes`: read crash evidence into a timeline of incidents.
struct CrashesOptions {
  std::vector<std::string> from; // --from FILE|DIR...; empty: the machine (or --sysroot)
  TargetOptions target;          // --sysroot, --kb-dir (no --snapshot)
  OutputOptions output;          // --format text|json|markdown, --color, -o
};

// Parses "--env" values into a map. Returns ErrorCode::invalid_argument naming the first value
// without '=' or with an empty name.
Expected<std::map<std::string, std::string>>
parse_env_assignments(const std::vector<std::string>& values);

// Parses "auto", "always", "never".
std::optional<ColorMode> parse_color(std::string_view text);

} // namespace doctor::cli
