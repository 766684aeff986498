// SPDX-License-Identifier: MIT
#include "run.hpp"

#include "command_table.hpp"
#include "commands.hpp"
#include "resolve.hpp"

#include <doctor/platform/standard_output.hpp>
#include <doctor/platform/terminal.hpp>
#include <doctor/probe/children.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace doctor::cli {

namespace {

// `cudnn-doctor` alone, or with only options, means `cudnn-doctor check`; so does a first word
// that names no command (it becomes check's argument, and check rejects it). `help` is --help.
std::vector<std::string> with_default_command(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool wants_top_level =
      !args.empty()
      && (args[0] == "--help" || args[0] == "-h" || args[0] == "--version" || args[0] == "help");
  const auto commands = all_commands();
  const bool has_command =
      !args.empty() && std::any_of(commands.begin(), commands.end(), [&](const Command& c) {
        return c.name == args[0];
      });
  if (!wants_top_level && !has_command) {
    args.insert(args.begin(), std::string(k_default_command));
  }
  if (!args.empty() && args[0] == "help") {
    args[0] = "--help";
  }
  return args;
}

// `resolve [--tree] [--no-nvml] NAME`, in any order and with nothing else: the line scripts and
// benchmarks run most, read without CLI11, whose declaring of the command's options costs a
// quarter of a small tree's run. Anything else (any other option or value, --help, "--", a NAME
// that is empty, begins with '-' or names a command, a word twice) is left to CLI11, which reads
// these lines to the same options and gives every usage error.
std::optional<ResolveOptions> plain_resolve(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "resolve") {
    return std::nullopt;
  }
  const auto commands = all_commands();
  ResolveOptions options;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--tree" && !options.tree) {
      options.tree = true;
    } else if (a == "--no-nvml" && !options.target.no_nvml) {
      options.target.no_nvml = true;
    } else if (!a.empty() && a.front() != '-' && options.name.empty()
               && std::none_of(commands.begin(), commands.end(), [&](const Command& c) {
                    return c.name == a;
                  })) {
      options.name = a;
    } else {
      return std::nullopt;
    }
  }
  if (options.name.empty()) {
    return std::nullopt;
  }
  return options;
}

// CLI11's answer to --help, --version or a usage error, written as the commands write (a Windows
// console gets it as characters; platform/standard_output.hpp), not through std::cout. Throws
// CommandError if the help or version text could not be written (`--help > /dev/full`).
int exit_with(const CLI::App& app, const CLI::Error& e) {
  std::ostringstream out;
  std::ostringstream err;
  const int status = app.exit(e, out, err);
  if (const std::string text = out.str(); !text.empty()) {
    if (auto written = platform::write_stdout(text); !written) {
      throw CommandError{k_exit_usage, written.error().message};
    }
  }
  if (const std::string text = err.str(); !text.empty()) {
    (void)platform::write_stderr(text);
  }
  return status;
}

int parse_and_run(int argc, char** argv) {
  std::vector<std::string> args = with_default_command(argc, argv);
  if (const auto plain = plain_resolve(args)) {
    return run_resolve(*plain);
  }
  CLI::App app{std::string(k_program_summary), "cudnn-doctor"};
  app.footer(std::string(k_program_footer));
  app.set_version_flag("--version", std::string("cudnn-doctor ") + DOCTOR_VERSION);
  app.require_subcommand(1, 1);

  // Each row's subcommand. Only the command the line names gets its options and its run
  // function: declaring every command's options costs each run a tenth of the start-up floor, and
  // the others are needed only for their names and summaries (the top-level --help).
  std::vector<std::pair<const CLI::App*, std::function<int()>>> commands;
  for (const Command& row : all_commands()) {
    CLI::App* cmd = app.add_subcommand(std::string(row.name), std::string(row.summary));
    cmd->footer(std::string(row.footer));
    if (!args.empty() && args[0] == row.name) {
      commands.emplace_back(cmd, row.bind(*cmd));
    }
  }

  std::reverse(args.begin(), args.end()); // CLI11 takes a reversed vector
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return exit_with(app, e);
  } catch (const CLI::CallForVersion& e) {
    return exit_with(app, e);
  } catch (const CLI::ParseError& e) {
    exit_with(app, e);
    return k_exit_usage;
  }

  for (const auto& [cmd, run_command] : commands) {
    if (cmd->parsed()) {
      return run_command();
    }
  }
  // require_subcommand(1, 1) lets no command line through without one.
  throw std::logic_error("the command line named no command of the command table");
}

} // namespace

int run(int argc, char** argv) {
  if (argc >= 2 && argc <= 4) { // the hidden child argument, a library, options
    if (const probe::ChildProbe* child = probe::child_for_argument(argv[1])) {
      std::vector<std::string_view> rest(argv + 2, argv + argc);
      return probe::run_child_main(*child, rest);
    }
  }
  platform::prepare_console();
  try {
    const int status = parse_and_run(argc, argv);
    // What a command printed without write_output (CLI11's --help and --version) is checked
    // here; a status of 2 or 3 has already said what went wrong.
    if (status == k_exit_ok || status == k_exit_findings) {
      if (auto flushed = platform::flush_stdout(); !flushed) {
        throw CommandError{k_exit_usage, flushed.error().message};
      }
    }
    return status;
  } catch (const CommandError& e) {
    (void)platform::write_stderr(fmt::format("cudnn-doctor: error: {}\n", e.message));
    return e.exit_status;
  } catch (const std::exception& e) {
    (void)platform::write_stderr(fmt::format("cudnn-doctor: internal error: {}\n", e.what()));
    return k_exit_internal;
  } catch (...) {
    (void)platform::write_stderr("cudnn-doctor: internal error\n");
    return k_exit_internal;
  }
}

} // namespace doctor::cli
