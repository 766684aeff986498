// SPDX-License-Identifier: MIT
#include "run.hpp"

#include "commands.hpp"
#include "crashes.hpp"
#include "explain.hpp"
#include "options.hpp"
#include "resolve.hpp"

#include <doctor/platform/terminal.hpp>
#include <doctor/probe/children.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>
#include <string>
#include <vector>

namespace doctor::cli {

namespace {

constexpr const char* k_footer = R"(Exit status:
  0  nothing at or above --fail-on was found
  1  findings at or above --fail-on (default: error)
  2  usage error, or an input file (snapshot, --kb-dir) that cannot be used
  3  internal error

Documentation: README.md and docs/ in the source tree.)";

constexpr const char* k_snapshot_footer = R"(Exit status:
  0  the snapshot was written
  2  usage error, or an output file that cannot be written
  3  internal error

Documentation: docs/snapshot.md in the source tree.)";

constexpr const char* k_resolve_footer = R"(Exit status:
  0  every library asked for was found
  1  a library would not be found (or its load would fail)
  2  usage error (an unknown --from file, --python that is not an environment the doctor found)
  3  internal error

Documentation: docs/resolve.md in the source tree.)";

constexpr const char* k_explain_footer =
    R"(Inputs: files (UTF-8, UTF-16 with BOM, GBK; CRLF, colour codes and #012 syslog escapes are
handled; any size, read as a stream), '-' for standard input, or the error text itself as one
quoted argument.

Exit status:
  0  the input was read (whether or not a cause was found)
  2  usage error, or an input, snapshot or --kb-dir that cannot be used
  3  internal error
Documentation: docs/explain.md in the source tree.)";

constexpr const char* k_crashes_footer =
    R"(Sources (without --from): Linux: the systemd journal (every boot kept), /dev/kmsg,
/var/log/kern.log*, messages*, syslog* (rotated and .gz), pstore, kdump. A --sysroot holding a
Windows disk (Windows/System32): Minidump, MEMORY.DMP, LiveKernelReports, System.evtx and
Application.evtx. Live Windows: dumps, the System and Application event logs, TDR settings.
--from takes files or directories of any of these, typed by content: kernel and user-mode dumps,
.evtx, wevtutil /f:xml exports (UTF-8 or UTF-16), kernel logs (plain, .gz, dmesg, kmsg, pstore),
journal files.

Exit status:
  0  no incident of severity error (or no incident at all)
  1  at least one incident of severity error
  2  usage error, or no --from input could be read as crash evidence
  3  internal error
Documentation: docs/crashes.md in the source tree.)";

constexpr const char* k_kb_footer = R"(Exit status:
  0  the knowledge base (with --check: DIR's files over the built-in ones) is valid
  2  usage error, or a --check DIR whose files are not valid (the message names file, row, field)
  3  internal error

Documentation: docs/knowledge-base.md in the source tree.)";

void add_target_options(CLI::App& cmd, TargetOptions& t, bool with_snapshot) {
  cmd.add_option("--sysroot",
                 t.sysroot,
                 "Examine DIR as the root of a Linux system (a container image, an extracted "
                 "rootfs) instead of this machine. Its environment starts empty: use --env.")
      ->type_name("DIR");
  cmd.add_option("--env",
                 t.env,
                 "Set an environment variable of the examined system (PATH, LD_LIBRARY_PATH, "
                 "CUDA_HOME, CONDA_PREFIX, VIRTUAL_ENV, ...); repeatable")
      ->type_name("NAME=VALUE")
      ->take_all();
  if (with_snapshot) {
    cmd.add_option("--snapshot",
                   t.snapshot,
                   "Analyse a snapshot written by 'cudnn-doctor snapshot' instead of a machine "
                   "('-' reads standard input)")
        ->type_name("FILE");
  }
  cmd.add_flag("--no-nvml", t.no_nvml, "Do not query NVML (the driver's management library)");
  cmd.add_flag("--verify",
               t.verify,
               "Hash the GPU libraries and compare them with their package managers' records "
               "(pip RECORD, conda-meta, dpkg md5sums); results are cached by file identity");
  cmd.add_flag("--no-cache", t.no_cache, "With --verify: ignore and do not write the hash cache");
  cmd.add_option("--probe-timeout",
                 t.probe_timeout,
                 "Seconds an isolated vendor-library probe (NVML) may take before it is killed and "
                 "reported as hung (default 10)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.1, 600.0));
  cmd.add_option(
         "--kb-dir",
         t.kb_dir,
         "Use the knowledge-base files in DIR instead of the built-in ones of the same name")
      ->type_name("DIR");
}

// `cudnn-doctor` alone, or with only options, means `cudnn-doctor check`.
std::vector<std::string> with_default_command(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  static const std::vector<std::string> k_commands = {
      "check", "snapshot", "resolve", "kb", "explain", "crashes"};
  const bool wants_top_level =
      !args.empty()
      && (args[0] == "--help" || args[0] == "-h" || args[0] == "--version" || args[0] == "help");
  const bool has_command =
      !args.empty() && std::find(k_commands.begin(), k_commands.end(), args[0]) != k_commands.end();
  if (!wants_top_level && !has_command) {
    args.insert(args.begin(), "check");
  }
  if (!args.empty() && args[0] == "help") {
    args[0] = "--help";
  }
  return args;
}

int parse_and_run(int argc, char** argv) {
  CLI::App app{
      "cudnn-doctor: finds out why CUDA/cuDNN deep-learning work fails on this machine, "
      "and says how to fix it.",
      "cudnn-doctor"};
  app.footer(k_footer);
  app.set_version_flag("--version", std::string("cudnn-doctor ") + DOCTOR_VERSION);
  app.require_subcommand(1, 1);

  CheckOptions check;
  std::string format = "text";
  std::string color = "auto";
  std::string fail_on = "error";
  CLI::App* check_cmd = app.add_subcommand(
      "check",
      "Inspect this machine (or a --sysroot tree or --snapshot) and report findings, "
      "worst first, each with evidence and fixes. The default command.");
  add_target_options(*check_cmd, check.target, true);
  check_cmd->add_option("--format", format, "Output format: text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown", "md"}));
  check_cmd->add_option("--color", color, "Colour in text output: auto (default), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  check_cmd
      ->add_option("--fail-on",
                   fail_on,
                   "Exit with status 1 if a finding is at least this severe: info, warning, "
                   "error (default), critical")
      ->check(CLI::IsMember({"info", "warning", "error", "critical"}));
  check_cmd
      ->add_option(
          "-o,--output", check.output, "Write the report to FILE instead of standard output")
      ->type_name("FILE");

  SnapshotOptions snap;
  CLI::App* snap_cmd = app.add_subcommand(
      "snapshot",
      "Write everything observed about this machine (or a --sysroot tree) as one "
      "portable JSON file, for 'check --snapshot' anywhere.");
  add_target_options(*snap_cmd, snap.target, false);
  snap_cmd->footer(k_snapshot_footer);
  snap_cmd->add_option("-o,--output", snap.output, "Write to FILE instead of standard output")
      ->type_name("FILE");

  ResolveOptions res;
  std::string res_format = "text";
  CLI::App* res_cmd = app.add_subcommand(
      "resolve",
      "Show which copy of a library the loader would pick, how it was found, every path "
      "considered in order, and every copy that loses (for dlopen too, which ldd cannot see).");
  res_cmd->add_option("name", res.name, "The library asked for, e.g. libcudnn_graph.so.9");
  res_cmd
      ->add_option("--from",
                   res.from,
                   "The object that asks for it (a library or program): its RPATH/RUNPATH apply")
      ->type_name("OBJECT");
  res_cmd
      ->add_option("--python",
                   res.python,
                   "A Python environment (its prefix): resolve the CUDA/cuDNN libraries its "
                   "framework loads, the way it loads them (NAME then filters)")
      ->type_name("ENV");
  res_cmd->add_flag("--tree",
                    res.tree,
                    "NAME is a library or program: show its whole DT_NEEDED tree with how each was "
                    "found, like libtree");
  res_cmd->add_option("--format", res_format, "Output format: text or json (json not with --tree)")
      ->check(CLI::IsMember({"text", "json"}));
  res_cmd->footer(k_resolve_footer);
  add_target_options(*res_cmd, res.target, false);

  KbOptions kb_opts;
  std::string kb_format = "text";
  CLI::App* kb_cmd = app.add_subcommand(
      "kb",
      "List the knowledge base: its version, each file with its origin and rows, and how many "
      "distinct sources its rows cite; or check an edited copy with --check DIR.");
  kb_cmd
      ->add_option("--check",
                   kb_opts.check_dir,
                   "Load the files in DIR over the built-in ones (as --kb-dir does) and report "
                   "whether they are valid")
      ->type_name("DIR");
  kb_cmd->add_option("--format", kb_format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  kb_cmd->footer(k_kb_footer);

  ExplainOptions expl;
  std::string expl_format = "text";
  std::string expl_color = "auto";
  CLI::App* expl_cmd = app.add_subcommand(
      "explain",
      "Read an error message, traceback, framework log, kernel log or Windows event text and "
      "name the cause: the lines that prove it and the fix, joined with what the doctor sees on "
      "this machine (or --snapshot).");
  expl_cmd
      ->add_option("input", expl.inputs, "A log file, '-' for standard input, or the error text")
      ->type_name("FILE|-|TEXT");
  expl_cmd->add_flag(
      "--no-machine", expl.no_machine, "Do not look at this machine: explain from the text alone");
  expl_cmd->add_option("--format", expl_format, "Output format: text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown", "md"}));
  expl_cmd
      ->add_option("--color", expl_color, "Colour in text output: auto (default), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  expl_cmd
      ->add_option(
          "-o,--output", expl.output, "Write the report to FILE instead of standard output")
      ->type_name("FILE");
  add_target_options(*expl_cmd, expl.target, true);
  expl_cmd->footer(k_explain_footer);
  // A log path or pasted text may start with '/': never read it as a Windows-style option.
  expl_cmd->allow_windows_style_options(false);

  CrashesOptions crashes;
  std::string crashes_format = "text";
  std::string crashes_color = "auto";
  CLI::App* crashes_cmd = app.add_subcommand(
      "crashes",
      "Read the crash evidence of this machine (or of --from files): blue screens, TDRs, Xid "
      "errors, machine checks, kernel panics, application crashes. Prints a timeline of "
      "incidents, each with its cause class, evidence and next steps.");
  crashes_cmd
      ->add_option("--from",
                   crashes.from,
                   "Read these files or directories instead of the machine: dumps, .evtx, event "
                   "XML exports, kernel logs, journal files")
      ->type_name("FILE|DIR")
      ->take_all();
  crashes_cmd->add_option("--format", crashes_format, "Output format: text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown", "md"}));
  crashes_cmd
      ->add_option("--color", crashes_color, "Colour in text output: auto (default), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  crashes_cmd
      ->add_option(
          "-o,--output", crashes.output, "Write the report to FILE instead of standard output")
      ->type_name("FILE");
  crashes_cmd
      ->add_option("--sysroot",
                   crashes.target.sysroot,
                   "Examine DIR as the root of a system instead of this machine: a Linux tree "
                   "(var/log, journal, pstore) or a mounted Windows disk (Windows/System32)")
      ->type_name("DIR");
  crashes_cmd
      ->add_option(
          "--kb-dir",
          crashes.target.kb_dir,
          "Use the knowledge-base files in DIR instead of the built-in ones of the same name")
      ->type_name("DIR");
  crashes_cmd->footer(k_crashes_footer);
  crashes_cmd->allow_windows_style_options(false);

  std::vector<std::string> args = with_default_command(argc, argv);
  std::reverse(args.begin(), args.end()); // CLI11 takes a reversed vector
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return k_exit_usage;
  }

  if (check_cmd->parsed()) {
    check.format = report::parse_format(format).value_or(report::Format::text);
    check.color = parse_color(color).value_or(ColorMode::automatic);
    check.fail_on = parse_severity(fail_on).value_or(Severity::error);
    return run_check(check);
  }
  if (expl_cmd->parsed()) {
    expl.format = report::parse_format(expl_format).value_or(report::Format::text);
    expl.color = parse_color(expl_color).value_or(ColorMode::automatic);
    return run_explain(expl);
  }
  if (crashes_cmd->parsed()) {
    crashes.format = report::parse_format(crashes_format).value_or(report::Format::text);
    crashes.color = parse_color(crashes_color).value_or(ColorMode::automatic);
    return run_crashes(crashes);
  }
  if (kb_cmd->parsed()) {
    kb_opts.json = kb_format == "json";
    return run_kb(kb_opts);
  }
  if (res_cmd->parsed()) {
    res.format = report::parse_format(res_format).value_or(report::Format::text);
    return run_resolve(res);
  }
  return run_snapshot(snap);
}

} // namespace

int run(int argc, char** argv) {
  if (argc == 2) {
    if (const probe::ChildProbe* child = probe::child_for_argument(argv[1])) {
      return child->run();
    }
  }
  platform::prepare_console();
  try {
    return parse_and_run(argc, argv);
  } catch (const CommandError& e) {
    fmt::print(stderr, "cudnn-doctor: error: {}\n", e.message);
    return e.exit_status;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cudnn-doctor: internal error: {}\n", e.what());
    return k_exit_internal;
  } catch (...) {
    fmt::print(stderr, "cudnn-doctor: internal error\n");
    return k_exit_internal;
  }
}

} // namespace doctor::cli
