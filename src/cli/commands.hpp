// SPDX-License-Identifier: MIT
#pragma once

#include "options.hpp"

namespace doctor::cli {

// A condition that stops a command with a message and an exit status (usage or internal).
struct CommandError {
  int exit_status;
  std::string message;
};

// `check`: collect (or load) facts, run the checks, print the report. Returns the exit status.
// Throws CommandError for unusable input (a bad snapshot, an unreadable --kb-dir).
int run_check(const CheckOptions& options);

// `snapshot`: collect facts and write them as JSON. Returns the exit status.
int run_snapshot(const SnapshotOptions& options);

} // namespace doctor::cli
