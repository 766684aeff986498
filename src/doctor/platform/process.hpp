// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::platform {

// How a child process ended.
struct ProcessResult {
  bool exited = false; // ended by itself with `exit_code`
  int exit_code = 0;
  bool signaled = false; // killed by `signal` (Linux) or ended by an exception (Windows)
  int signal = 0;
  bool timed_out = false; // killed by us after the time limit
  bool answered = false;  // the output ended with the end-of-answer byte (not kept in `out`)
  std::string out;        // standard output up to the end-of-answer byte, at most max_output
  std::string err_tail;   // the last max_error_tail bytes of standard error
};

struct ProcessOptions {
  std::chrono::milliseconds timeout{10000};
  std::size_t max_output = std::size_t{1} << 20;
  // The byte that ends the child's answer, or none (the answer ends when the child exits).
  // Reading stops at it, so a descendant that inherited the pipe cannot hold the parent.
  std::optional<char> end_of_answer;
  // How many bytes of the end of the child's standard error to keep (ProcessResult::err_tail),
  // as evidence of why it crashed; 0: standard error is discarded. Kept on Linux only.
  std::size_t max_error_tail = 0;
};

// The environment variable through which run_process tells the child the process id of its
// parent, so that the child can tell whether that parent still lives (confine_child()).
inline constexpr const char* k_parent_pid_variable = "CUDNN_DOCTOR_PARENT_PID";

// Runs `argv` (argv[0] is a path, never searched on PATH) with an empty standard input, captures
// standard output, keeps the tail of standard error (options.max_error_tail) or discards it. The
// child and everything it starts form a group of their own (a new session on Linux, a job object on
// Windows): when the child exits, or `timeout` passes, that whole group is killed and, on Linux,
// reaped, so no descendant outlives the call (one that leaves the group on purpose, with setsid(2),
// is not reached). Returns an error only if the child could not be started.
Expected<ProcessResult> run_process(const std::vector<std::string>& argv,
                                    const ProcessOptions& options);

// Appends `got`, bytes the child wrote, to `result.out` up to the end-of-answer byte and within
// max_output; returns true once that byte has been seen (result.answered). For run_process.
bool append_answer(ProcessResult& result, std::string_view got, const ProcessOptions& options);

// Returns the last `max` bytes of `text`, cut forward to a character boundary so that no UTF-8
// sequence is split. For run_process.
std::string tail_of(std::string_view text, std::size_t max);

// Returns the path of the running executable. Returns an error if the platform cannot tell.
Expected<std::filesystem::path> current_executable();

} // namespace doctor::platform
