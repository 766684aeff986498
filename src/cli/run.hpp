// SPDX-License-Identifier: MIT
#pragma once

namespace doctor::cli {

// Exit statuses of the cudnn-doctor command.
inline constexpr int k_exit_ok = 0;       // nothing at or above --fail-on
inline constexpr int k_exit_findings = 1; // findings at or above --fail-on
inline constexpr int k_exit_usage = 2;    // bad command line or unusable input file
inline constexpr int k_exit_internal = 3; // the doctor itself failed

// Runs the command line; returns the exit status. Never throws.
int run(int argc, char** argv);

} // namespace doctor::cli
