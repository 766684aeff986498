// SPDX-License-Identifier: MIT
// The isolated children: every call into vendor code (NVML today; the driver API, cuDNN and
// cuBLAS next) runs in a child process, the doctor's own executable started with one hidden
// argument, so that a crash, hang or runaway allocation in the vendor library ends the child,
// never the doctor. One table row per child.
#pragma once

#include <doctor/platform/process.hpp>
#include <doctor/util/error.hpp>

#include <chrono>
#include <filesystem>
#include <span>
#include <string_view>

namespace doctor::probe {

struct ChildProbe {
  std::string_view name;     // "nvml": how the parent asks for it
  std::string_view argument; // "__probe-nvml": the only argument the child is started with
  std::string_view summary;  // what it calls, for people
  int (*run)();              // runs in the child; writes its report to stdout, returns the status
};

// Every child, in the order of the table in children.cpp.
std::span<const ChildProbe> all_children();

// Returns the child that `argument` starts, or nullptr: the executable's entry point asks this
// before anything else, so a child never parses the command line or loads the knowledge base.
const ChildProbe* child_for_argument(std::string_view argument);

// Runs child `name` in a process of its own: `self` (the doctor's executable) with the child's
// argument, an empty standard input, killed after `timeout`, at most `max_output` bytes of its
// report kept. Returns ErrorCode::not_found for a name no row has, or the error of a child that
// could not be started.
Expected<platform::ProcessResult> run_child(std::string_view name,
                                            const std::filesystem::path& self,
                                            std::chrono::milliseconds timeout,
                                            std::size_t max_output);

} // namespace doctor::probe
