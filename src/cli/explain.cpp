// SPDX-License-Identifier: MIT
#include "explain.hpp"

#include "commands.hpp"
#include "run.hpp"

#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/runner.hpp>
#include <doctor/explain/machine_join.hpp>
#include <doctor/explain/scan.hpp>
#include <doctor/platform/file_stat.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/terminal.hpp>
#include <doctor/report/explain_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <system_error>

namespace doctor::cli {

namespace {

// An argument is the error text itself when it is not a file and looks like a message: it has a
// space or a line break. Otherwise a missing file is an error, not a message to explain.
bool is_pasted_text(const std::string& arg) {
  return arg.find_first_of(" \t\n\r") != std::string::npos;
}

Expected<void> scan_stdin(explain::Analysis& analysis) {
  platform::set_stdin_binary();
  explain::ReadFn read = [](char* buffer, std::size_t size) -> Expected<std::size_t> {
    std::size_t n = std::fread(buffer, 1, size, stdin);
    if (n == 0 && std::ferror(stdin) != 0) {
      return make_error(ErrorCode::io, "cannot read standard input");
    }
    return n;
  };
  return explain::scan_input("<stdin>", read, analysis);
}

// A pipe the user named on the command line (`explain <(python train.py 2>&1)`, a FIFO a
// training job writes to) is read as a stream, as standard input is: the user asked for it, and
// it waits for its writer as `cat` would. Everything else is read through platform::InputFile,
// which reads regular files only.
Expected<void> scan_pipe(const std::string& path, explain::Analysis& analysis) {
  std::ifstream in(platform::u8path(path), std::ios::binary);
  if (!in) {
    return make_error(ErrorCode::io, fmt::format("{}: cannot open", path));
  }
  explain::ReadFn read = [&](char* buffer, std::size_t size) -> Expected<std::size_t> {
    in.read(buffer, static_cast<std::streamsize>(size));
    if (in.bad()) {
      return make_error(ErrorCode::io, fmt::format("{}: read error", path));
    }
    return static_cast<std::size_t>(in.gcount());
  };
  return explain::scan_input(path, read, analysis);
}

Expected<void> scan_file(const std::string& path, explain::Analysis& analysis) {
  auto file = platform::InputFile::open(platform::u8path(path));
  if (!file) {
    const auto st = platform::stat_path(platform::u8path(path));
    if (file.error().code == ErrorCode::not_regular && st && st->kind == platform::FileKind::fifo) {
      return scan_pipe(path, analysis);
    }
    return tl::unexpected(file.error());
  }
  explain::ReadFn read = [&](char* buffer, std::size_t size) { return file->read(buffer, size); };
  return explain::scan_input(path, read, analysis);
}

void scan_argument(const std::string& arg, explain::Analysis& analysis) {
  if (arg == "-") {
    if (auto ok = scan_stdin(analysis); !ok) {
      throw CommandError{k_exit_usage, ok.error().message};
    }
    return;
  }
  std::error_code ec;
  const auto status = std::filesystem::status(platform::u8path(arg), ec);
  if (!ec && std::filesystem::is_directory(status)) {
    throw CommandError{k_exit_usage,
                       fmt::format("{}: is a directory; give the log files in it", arg)};
  }
  if (!ec && std::filesystem::exists(status)) {
    if (auto ok = scan_file(arg, analysis); !ok) {
      throw CommandError{k_exit_usage, ok.error().message};
    }
    return;
  }
  if (!is_pasted_text(arg)) {
    throw CommandError{k_exit_usage,
                       fmt::format("{}: no such file (to explain a message itself, quote it: "
                                   "cudnn-doctor explain \"the error text\")",
                                   arg)};
  }
  explain::scan_text("<argument>", arg, analysis);
}

} // namespace

int run_explain(const ExplainOptions& options) {
  if (options.inputs.empty()) {
    throw CommandError{k_exit_usage,
                       "explain needs a log file, '-' for standard input, or the "
                       "error text as an argument"};
  }
  if (options.no_machine && !options.target.snapshot.empty()) {
    throw CommandError{k_exit_usage, "--no-machine cannot be combined with --snapshot"};
  }
  if (!options.target.snapshot.empty()
      && (!options.target.sysroot.empty() || !options.target.env.empty())) {
    throw CommandError{k_exit_usage, "--snapshot cannot be combined with --sysroot or --env"};
  }
  if (options.target.snapshot == "-"
      && std::find(options.inputs.begin(), options.inputs.end(), "-") != options.inputs.end()) {
    throw CommandError{k_exit_usage, "standard input cannot be both the log and the snapshot"};
  }
  const kb::KnowledgeBase kb = load_kb(options.target, {KbPart::signatures});
  const explain::SignatureMatcher matcher(kb.signatures(), kb.cudnn_library_sets());
  // The machine is read once, however many reports are joined with it, and only after the first
  // input was read: an input that cannot be used is reported before the machine is examined.
  std::optional<facts::Facts> facts;
  std::vector<Finding> findings;
  std::string label;
  auto read_machine = [&]() {
    if (facts) {
      return;
    }
    const bool from_snapshot = !options.target.snapshot.empty();
    facts =
        from_snapshot ? load_snapshot(options.target.snapshot) : collect_facts(options.target, kb);
    findings = checks::run_checks(*facts, kb, checks::all_checks());
    label = from_snapshot                    ? "snapshot " + options.target.snapshot
            : options.target.sysroot.empty() ? std::string("this machine")
                                             : "sysroot " + options.target.sysroot;
  };
  const report::ExplainMeta meta{DOCTOR_VERSION, kb.version()};
  const OutputOptions& out = options.output;
  const bool color = use_color(out.color, out.format, out.file);
  // One report of `args`.
  auto report_of = [&](std::span<const std::string> args) {
    explain::Analysis analysis(matcher);
    for (const std::string& arg : args) {
      scan_argument(arg, analysis);
    }
    const explain::Ranking ranking = explain::rank(analysis, &kb.compat());
    auto result = explain::build_result(analysis, ranking, kb);
    if (!result) {
      throw CommandError{k_exit_internal, result.error().message};
    }
    if (options.no_machine) {
      result->machine = "not used (--no-machine)";
    } else {
      read_machine();
      explain::join_machine(*result, *facts, kb, findings, label);
    }
    return report::render_explain(*result, meta, out.format, color);
  };
  if (!options.each) {
    write_output(out.file, report_of(options.inputs));
    return k_exit_ok;
  }
  // --each: the reports one after another; JSON as one array of the documents.
  const bool json = out.format == report::Format::json;
  std::string all = json ? "[\n" : "";
  for (std::size_t i = 0; i < options.inputs.size(); ++i) {
    std::string one = report_of(std::span<const std::string>(&options.inputs[i], 1));
    if (json) {
      while (!one.empty() && one.back() == '\n') {
        one.pop_back();
      }
      all += one + (i + 1 < options.inputs.size() ? ",\n" : "\n");
    } else {
      all += (i == 0 ? "" : "\n") + one;
    }
  }
  if (json) {
    all += "]\n";
  }
  write_output(out.file, all);
  return k_exit_ok;
}

} // namespace doctor::cli
