// SPDX-License-Identifier: MIT
#include "command_table.hpp"

#include "commands.hpp"
#include "crashes.hpp"
#include "explain.hpp"
#include "options.hpp"
#include "probe.hpp"
#include "resolve.hpp"
#include "stress.hpp"

#include <CLI/CLI.hpp>

#include <memory>

namespace doctor::cli {

constexpr std::string_view k_program_summary =
    "cudnn-doctor: finds out why CUDA/cuDNN deep-learning work fails on this machine, and says "
    "how to fix it.";

constexpr std::string_view k_program_footer = R"(Exit status:
  0  nothing at or above --fail-on was found
  1  findings at or above --fail-on (default: error)
  2  usage error, or an input file (snapshot, --kb-dir) that cannot be used
  3  internal error

Documentation: README.md and docs/ in the source tree.)";

constexpr std::string_view k_default_command = "check";

namespace {

constexpr report::Format k_report_formats[] = {
    report::Format::text, report::Format::json, report::Format::markdown};
constexpr report::Format k_text_or_json[] = {report::Format::text, report::Format::json};

// Declares a row's options with `AddOptions` over storage of their own, and binds `Run` to it.
template<typename Options, void (*AddOptions)(CLI::App&, Options&), int (*Run)(const Options&)>
std::function<int()> command(CLI::App& cmd) {
  auto options = std::make_shared<Options>();
  AddOptions(cmd, *options);
  return [options] { return Run(*options); };
}

// check

constexpr std::string_view k_check_summary =
    "Inspect this machine (or a --sysroot tree or --snapshot) and report findings, worst first, "
    "each with evidence and fixes. The default command.";

void add_check_options(CLI::App& cmd, CheckOptions& o) {
  add_target_options(cmd, o.target, true);
  add_output_options(
      cmd, o.output, {.formats = k_report_formats, .color = true, .fail_on = true, .file = true});
}

// snapshot

constexpr std::string_view k_snapshot_summary =
    "Write everything observed about this machine (or a --sysroot tree) as one portable JSON "
    "file, for 'check --snapshot' anywhere.";

constexpr std::string_view k_snapshot_footer = R"(Exit status:
  0  the snapshot was written
  2  usage error, or an output file that cannot be written
  3  internal error

Documentation: docs/snapshot.md in the source tree.)";

void add_lib_option(CLI::App& cmd, std::vector<std::string>& libs) {
  cmd.add_option("--lib",
                 libs,
                 "Make probe PROBE (cuda, cudnn or cublas) load PATH instead of the copy the "
                 "loader finds; repeatable")
      ->type_name("PROBE=PATH");
}

void add_snapshot_options(CLI::App& cmd, SnapshotOptions& o) {
  add_target_options(cmd, o.target, false);
  add_output_options(cmd, o.output, {.file = true});
  cmd.add_flag("--probe",
               o.probe,
               "Also run the isolated probes (as 'probe' does) and keep what they found in the "
               "snapshot's 'probe' section, for 'check --snapshot'");
  add_lib_option(cmd, o.probe_libs);
}

// probe

constexpr std::string_view k_probe_summary =
    "Run the vendor libraries for real, each in an isolated child process with a time limit: "
    "NVML, the driver API (cuInit, devices, a context each), cuDNN and cuBLAS (versions, a "
    "handle, a small convolution and SGEMM checked on the CPU), each the copy the loader would "
    "load. A crash or hang there becomes a finding.";

constexpr std::string_view k_probe_footer = R"(Exit status:
  0  nothing at or above --fail-on was found
  1  findings at or above --fail-on (default: error), a crashed or hung probe among them
  2  usage error (a bad --lib or --kb-dir)
  3  internal error

Documentation: docs/probe.md in the source tree.)";

void add_probe_options(CLI::App& cmd, ProbeOptions& o) {
  add_lib_option(cmd, o.libs);
  add_probe_timeout_option(cmd, "--timeout", o.timeout, "each probe child");
  add_kb_dir_option(cmd, o.kb_dir);
  add_output_options(
      cmd, o.output, {.formats = k_text_or_json, .color = true, .fail_on = true, .file = true});
}

// stress

constexpr std::string_view k_stress_summary =
    "Test one GPU under load in an isolated child: a memory test over at least 90% of the free "
    "memory (walking ones and zeros, own address, moving inversions, random), repeated GEMMs "
    "checked against each other and the CPU, device and host bandwidth against NVML's peaks, "
    "with NVML's telemetry sampled during the run.";

constexpr std::string_view k_stress_footer = R"(Exit status:
  0  every test passed (nothing at or above --fail-on)
  1  a test found errors (memory, GEMM, a crash or hang of the driver), or another finding at or
     above --fail-on (default: error)
  2  usage error (a bad --lib or --kb-dir)
  3  internal error
  4  the tests could not run: no driver library, the toolkit's stub, no GPU, no such --gpu

Documentation: docs/stress.md in the source tree.)";

void add_stress_options(CLI::App& cmd, StressOptions& o) {
  cmd.add_option("--level",
                 o.level,
                 "How long to test: quick (one pass, few patterns, seconds), standard (every "
                 "pattern, 100 GEMMs), long (five passes, 1000 GEMMs)")
      ->check(CLI::IsMember({"quick", "standard", "long"}));
  cmd.add_option("--gpu", o.gpu, "The GPU to test, by CUDA's index (default 0)")
      ->type_name("N")
      ->check(CLI::Range(0, 63));
  cmd.add_option("--inject-fault",
                 o.inject,
                 "Prove the checker: flip one bit of a word the memory test reads (memtest) or of "
                 "one GEMM result element (gemm) on the GPU; the run must then report the error")
      ->type_name("WHERE")
      ->check(CLI::IsMember({"memtest", "gemm"}));
  cmd.add_option("--lib",
                 o.libs,
                 "Load PATH as the driver API (cuda=PATH) or as the cuBLAS the GEMM is also "
                 "compared with (cublas=PATH) instead of the copy the loader finds; repeatable")
      ->type_name("LIB=PATH");
  cmd.add_option("--timeout",
                 o.timeout,
                 "Seconds the stress child may take before it is killed, with everything it "
                 "started, and reported as hung (default: 300 quick, 900 standard, 3600 long)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.1, 86400.0));
  add_kb_dir_option(cmd, o.kb_dir);
  add_output_options(
      cmd, o.output, {.formats = k_text_or_json, .color = true, .fail_on = true, .file = true});
}

// resolve

constexpr std::string_view k_resolve_summary =
    "Show which copy of a library the loader would pick, how it was found, every path "
    "considered in order, and every copy that loses (for dlopen too, which ldd cannot see).";

constexpr std::string_view k_resolve_footer = R"(Exit status:
  0  every library asked for was found
  1  a library would not be found (or its load would fail)
  2  usage error (an unknown --from file, --python that is not an environment the doctor found)
  3  internal error, or the doctor ran out of memory or file descriptors and cannot tell

Documentation: docs/resolve.md in the source tree.)";

void add_resolve_options(CLI::App& cmd, ResolveOptions& o) {
  cmd.add_option(
      "name",
      o.name,
      "The library asked for, e.g. libcudnn_graph.so.9 (on Windows a DLL: cudnn64_9.dll)");
  cmd.add_option("--from",
                 o.from,
                 "The object that asks for it (a library or program): its RPATH/RUNPATH apply; on "
                 "Windows a DLL (loaded with LOAD_WITH_ALTERED_SEARCH_PATH), .exe or .pyd")
      ->type_name("OBJECT");
  cmd.add_option("--python",
                 o.python,
                 "A Python environment (its prefix): resolve the CUDA/cuDNN libraries its "
                 "framework loads, the way it loads them (NAME then filters)")
      ->type_name("ENV");
  cmd.add_flag("--tree",
               o.tree,
               "NAME is a library or program: show its whole DT_NEEDED tree (on Windows its PE "
               "imports) with how each was found, like libtree");
  add_output_options(
      cmd, o.output, {.formats = k_text_or_json, .format_note = "json not with --tree"});
  add_target_options(cmd, o.target, true); // --snapshot: Windows snapshots only
}

// kb

constexpr std::string_view k_kb_summary =
    "List the knowledge base: its version, each file with its origin and rows, and how many "
    "distinct sources its rows cite; or check an edited copy with --check DIR.";

constexpr std::string_view k_kb_footer = R"(Exit status:
  0  the knowledge base (with --check: DIR's files over the built-in ones) is valid
  2  usage error, or a --check DIR whose files are not valid (the message names file, row, field)
  3  internal error

Documentation: docs/knowledge-base.md in the source tree.)";

void add_kb_options(CLI::App& cmd, KbOptions& o) {
  cmd.add_option("--check",
                 o.check_dir,
                 "Load the files in DIR over the built-in ones (as --kb-dir does) and report "
                 "whether they are valid")
      ->type_name("DIR");
  add_output_options(cmd, o.output, {.formats = k_text_or_json});
}

// explain

constexpr std::string_view k_explain_summary =
    "Read an error message, traceback, framework log, kernel log or Windows event text and name "
    "the cause: the lines that prove it and the fix, joined with what the doctor sees on this "
    "machine (or --snapshot).";

constexpr std::string_view k_explain_footer =
    R"(Inputs: files (UTF-8, UTF-16 with BOM, GBK; CRLF, colour codes and #012 syslog escapes are
handled; any size, read as a stream), '-' for standard input, or the error text itself as one
quoted argument. Several inputs are read as one report (a log and what was pasted after it),
or with --each as one report each (many logs, the knowledge base loaded once).

Exit status:
  0  the input was read (whether or not a cause was found)
  2  usage error, or an input, snapshot or --kb-dir that cannot be used
  3  internal error
Documentation: docs/explain.md in the source tree.)";

void add_explain_options(CLI::App& cmd, ExplainOptions& o) {
  cmd.add_option("input", o.inputs, "A log file, '-' for standard input, or the error text")
      ->type_name("FILE|-|TEXT");
  cmd.add_flag(
      "--no-machine", o.no_machine, "Do not look at this machine: explain from the text alone");
  cmd.add_flag("--each",
               o.each,
               "Explain each input on its own, one report after another (with --format json, "
               "an array of documents, in the order of the inputs); without it all inputs are "
               "one report");
  add_output_options(cmd, o.output, {.formats = k_report_formats, .color = true, .file = true});
  add_target_options(cmd, o.target, true);
  // A log path or pasted text may start with '/': never read it as a Windows-style option.
  cmd.allow_windows_style_options(false);
}

// crashes

constexpr std::string_view k_crashes_summary =
    "Read the crash evidence of this machine (or of --from files): blue screens, TDRs, Xid "
    "errors, machine checks, kernel panics, application crashes. Prints a timeline of "
    "incidents, each with its cause class, evidence and next steps.";

constexpr std::string_view k_crashes_footer =
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

void add_crashes_options(CLI::App& cmd, CrashesOptions& o) {
  cmd.add_option("--from",
                 o.from,
                 "Read these files or directories instead of the machine: dumps, .evtx, event "
                 "XML exports, kernel logs, journal files")
      ->type_name("FILE|DIR")
      ->take_all();
  add_output_options(cmd, o.output, {.formats = k_report_formats, .color = true, .file = true});
  cmd.add_option("--sysroot",
                 o.target.sysroot,
                 "Examine DIR as the root of a system instead of this machine: a Linux tree "
                 "(var/log, journal, pstore) or a mounted Windows disk (Windows/System32)")
      ->type_name("DIR");
  add_kb_dir_option(cmd, o.target.kb_dir);
  cmd.allow_windows_style_options(false);
}

// The one list of commands, in --help order.
constexpr Command k_commands[] = {
    {"check",
     k_check_summary,
     k_program_footer,
     command<CheckOptions, add_check_options, run_check>},
    {"snapshot",
     k_snapshot_summary,
     k_snapshot_footer,
     command<SnapshotOptions, add_snapshot_options, run_snapshot>},
    {"resolve",
     k_resolve_summary,
     k_resolve_footer,
     command<ResolveOptions, add_resolve_options, run_resolve>},
    {"probe", k_probe_summary, k_probe_footer, command<ProbeOptions, add_probe_options, run_probe>},
    {"stress",
     k_stress_summary,
     k_stress_footer,
     command<StressOptions, add_stress_options, run_stress>},
    {"kb", k_kb_summary, k_kb_footer, command<KbOptions, add_kb_options, run_kb>},
    {"explain",
     k_explain_summary,
     k_explain_footer,
     command<ExplainOptions, add_explain_options, run_explain>},
    {"crashes",
     k_crashes_summary,
     k_crashes_footer,
     command<CrashesOptions, add_crashes_options, run_crashes>},
};

} // namespace

std::span<const Command> all_commands() {
  return k_commands;
}

} // namespace doctor::cli
