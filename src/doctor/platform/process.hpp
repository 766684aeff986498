// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace doctor::platform {

// How a child process ended.
struct ProcessResult {
  bool exited = false; // ended by itself with `exit_code`
  int exit_code = 0;
  bool signaled = false; // killed by `signal` (Linux) or ended by an exception (Windows)
  int signal = 0;
  bool timed_out = false; // killed by us after the time limit
  std::string out;        // standard output, at most the requested bytes
};

// Runs `argv` (argv[0] is a path, never searched on PATH) with an empty standard input, captures
// standard output, discards standard error, and kills the child after `timeout`. Returns an
// error only if the child could not be started.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv,
                                    std::chrono::milliseconds timeout,
                                    std::size_t max_output);

// Returns the path of the running executable. Returns an error if the platform cannot tell.
Expected<std::filesystem::path> current_executable();

} // namespace doctor::platform
