// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace doctor::cli {

namespace {

// The name of a format in --format's help, and the spellings --format accepts for it.
std::string_view format_name(report::Format format) {
  switch (format) {
  case report::Format::text:
    return "text";
  case report::Format::json:
    return "json";
  case report::Format::markdown:
    return "markdown";
  }
  return "text";
}

std::vector<std::string> format_spellings(report::Format format) {
  if (format == report::Format::markdown) {
    return {"markdown", "md"};
  }
  return {std::string(format_name(format))};
}

// "Output format: text, json or markdown", "Output format: text or json (NOTE)".
std::string format_help(const OutputSpec& spec) {
  std::string names;
  for (std::size_t i = 0; i < spec.formats.size(); ++i) {
    if (i > 0) {
      names += i + 1 == spec.formats.size() ? " or " : ", ";
    }
    names += format_name(spec.formats[i]);
  }
  return fmt::format("Output format: {}{}",
                     names,
                     spec.format_note.empty() ? "" : fmt::format(" ({})", spec.format_note));
}

} // namespace

void add_output_options(CLI::App& cmd, OutputOptions& out, const OutputSpec& spec) {
  if (!spec.formats.empty()) {
    std::vector<std::string> choices;
    for (report::Format f : spec.formats) {
      for (std::string& s : format_spellings(f)) {
        choices.push_back(std::move(s));
      }
    }
    cmd.add_option_function<std::string>(
           "--format",
           [&out](const std::string& s) {
             out.format = report::parse_format(s).value_or(report::Format::text);
           },
           format_help(spec))
        ->check(CLI::IsMember(choices));
  }
  if (spec.color) {
    cmd.add_option_function<std::string>(
           "--color",
           [&out](const std::string& s) {
             out.color = parse_color(s).value_or(ColorMode::automatic);
           },
           "Colour in text output: auto (default), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
  }
  if (spec.fail_on) {
    cmd.add_option_function<std::string>(
           "--fail-on",
           [&out](const std::string& s) {
             out.fail_on = parse_severity(s).value_or(Severity::error);
           },
           "Exit with status 1 if a finding is at least this severe: info, warning, error "
           "(default), critical")
        ->check(CLI::IsMember({"info", "warning", "error", "critical"}));
  }
  if (spec.file) {
    cmd.add_option("-o,--output", out.file, "Write to FILE instead of standard output")
        ->type_name("FILE");
  }
}

void add_kb_dir_option(CLI::App& cmd, std::string& kb_dir) {
  cmd.add_option(
         "--kb-dir",
         kb_dir,
         "Use the knowledge-base files in DIR instead of the built-in ones of the same name")
      ->type_name("DIR");
}

void add_target_options(CLI::App& cmd, TargetOptions& target, bool with_snapshot) {
  cmd.add_option("--sysroot",
                 target.sysroot,
                 "Examine DIR as the root of a Linux system (a container image, an extracted "
                 "rootfs) or, when it holds Windows/System32, a mounted Windows disk (its registry "
                 "read from the hive files; Linux build) instead of this machine. Its environment "
                 "starts empty: use --env.")
      ->type_name("DIR");
  cmd.add_option("--env",
                 target.env,
                 "Set an environment variable of the examined system (PATH, LD_LIBRARY_PATH, "
                 "CUDA_HOME, CONDA_PREFIX, VIRTUAL_ENV, ...); repeatable")
      ->type_name("NAME=VALUE")
      // One value per occurrence: `--env A=B libcudnn.so.9` leaves the library name to the
      // command's own argument; the occurrences accumulate.
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
  if (with_snapshot) {
    cmd.add_option("--snapshot",
                   target.snapshot,
                   "Analyse a snapshot written by 'cudnn-doctor snapshot' instead of a machine "
                   "('-' reads standard input)")
        ->type_name("FILE");
  }
  cmd.add_option_function<std::string>(
         "--nvml",
         [&target](const std::string& s) {
           target.nvml = s == "always"  ? collect::NvmlQuery::always
                         : s == "never" ? collect::NvmlQuery::never
                                        : collect::NvmlQuery::when_driver;
         },
         "When to query NVML (the driver's management library) in an isolated child: auto "
         "(default: unless no NVIDIA kernel driver is loaded, when it could only answer \"driver "
         "not loaded\"), always, never")
      ->type_name("WHEN")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd.add_flag("--no-nvml", target.no_nvml, "Do not query NVML (the same as --nvml never)");
  cmd.add_flag("--verify",
               target.verify,
               "Hash the GPU libraries and compare them with their package managers' records "
               "(pip RECORD, conda-meta, dpkg md5sums); results are cached by file identity. "
               "On Windows also verify the Authenticode signatures of NVIDIA's DLLs");
  cmd.add_flag(
      "--no-cache", target.no_cache, "With --verify: ignore and do not write the hash cache");
  add_probe_timeout_option(
      cmd, "--probe-timeout", target.probe_timeout, "an isolated vendor-library probe (NVML)");
  add_kb_dir_option(cmd, target.kb_dir);
}

void add_probe_timeout_option(CLI::App& cmd,
                              const std::string& name,
                              double& seconds,
                              std::string_view what) {
  cmd.add_option(name,
                 seconds,
                 fmt::format("Seconds {} may take before it is killed, with everything it "
                             "started, and reported as hung (default 10)",
                             what))
      ->type_name("SECONDS")
      ->check(CLI::Range(0.1, 600.0));
}

Expected<std::map<std::string, std::string>>
parse_env_assignments(const std::vector<std::string>& values) {
  std::map<std::string, std::string> out;
  for (const std::string& v : values) {
    const auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0) {
      return make_error(ErrorCode::invalid_argument,
                        fmt::format("--env {}: expected NAME=VALUE", v));
    }
    out[v.substr(0, eq)] = v.substr(eq + 1);
  }
  return out;
}

std::optional<ColorMode> parse_color(std::string_view text) {
  if (text == "auto") {
    return ColorMode::automatic;
  }
  if (text == "always") {
    return ColorMode::always;
  }
  if (text == "never") {
    return ColorMode::never;
  }
  return std::nullopt;
}

} // namespace doctor::cli
