// SPDX-License-Identifier: MIT
// The commands of cudnn-doctor, one row each. The CLI11 application, the default command
// (`cudnn-doctor` alone or with only options means `check`) and the dispatch after parsing are
// all derived from this table (run.cpp); adding a command is a row plus its run function.
#pragma once

#include <functional>
#include <span>
#include <string_view>

// CLI11's application, declared here so that only the files that build the command line include
// CLI11.
namespace CLI { // NOLINT(readability-identifier-naming): CLI11's own name
class App;
} // namespace CLI

namespace doctor::cli {

// One row of the table.
struct Command {
  std::string_view name;    // the subcommand: "check"
  std::string_view summary; // its paragraph in --help, and the first line of `NAME --help`
  std::string_view footer;  // after the options in `NAME --help`
  // Declares the command's options on `cmd` over storage of their own and returns the command's
  // run function bound to that storage: call it once `cmd` is parsed; it returns the exit status.
  std::function<int()> (*bind)(CLI::App& cmd);
};

// The program's description and footer in `cudnn-doctor --help`.
extern const std::string_view k_program_summary;
extern const std::string_view k_program_footer;

// The name of the command that runs when the command line names none.
extern const std::string_view k_default_command;

// Every command, in the order of --help.
std::span<const Command> all_commands();

} // namespace doctor::cli
