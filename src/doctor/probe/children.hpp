// SPDX-License-Identifier: MIT
// The isolated children: every call into vendor code (NVML, the driver API, cuDNN, cuBLAS) runs
// in a child process, the doctor's own executable started with one hidden argument, so that a
// crash, hang or runaway allocation in the vendor library ends the child, never the doctor. One
// table row per child.
#pragma once

#include <doctor/platform/privileges.hpp>
#include <doctor/platform/process.hpp>
#include <doctor/util/error.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace doctor::probe {

// What the parent hands a child besides its argument.
struct ChildInput {
  // The library file the child must load, chosen by the parent from the loader model (a child
  // whose row has takes_library); empty for a child that finds its library itself (NVML).
  std::string library;
  // What the parent asks of a child whose row has takes_options: one argument after the
  // library, "key=value;key=value" (the stress child's level, GPU and fault injection).
  std::string options;
};

struct ChildProbe {
  std::string_view name;         // "nvml": how the parent asks for it
  std::string_view argument;     // "__probe-nvml": the first argument the child is started with
  std::string_view summary;      // what it calls, for people
  bool takes_library;            // started as `self ARGUMENT LIBRARY`, else `self ARGUMENT`
  bool takes_options;            // `self ARGUMENT LIBRARY OPTIONS`
  int (*run)(const ChildInput&); // runs in the child; writes its report, returns the status
};

// Ends a child's report (one line of JSON, which never holds a raw newline): the parent stops
// reading there, so a grandchild that inherited the pipe cannot keep it waiting.
inline constexpr char k_end_of_report = '\n';

// How much of the end of a child's standard error the parent keeps as evidence of a failure.
inline constexpr std::size_t k_max_error_tail = 2048;

// Every child, in the order of the table in children.cpp.
std::span<const ChildProbe> all_children();

// Returns the child that `argument` starts, or nullptr: the executable's entry point asks this
// before anything else, so a child never parses the command line or loads the knowledge base.
const ChildProbe* child_for_argument(std::string_view argument);

// Runs `child` with the rest of its command line (`rest`: the library path for a child that
// takes one, then the options for one that takes them, nothing otherwise). Returns 2 without
// running it if `rest` does not fit its row.
int run_child_main(const ChildProbe& child, std::span<const std::string_view> rest);

// Runs in the child: confines it (platform::confine_child with `request`) before anything else,
// then runs `queries` (which load and call the vendor library) and writes what they return, with
// what the confinement did under "child", to standard output as one line ended by
// k_end_of_report, then ends the process at once with status 0, even when the vendor calls
// failed (the failure is the answer): no vendor code runs after the answer. Returns 1, having
// called nothing, only when the parent is already gone.
int run_confined(const platform::ConfinementRequest& request,
                 const ChildInput& input,
                 nlohmann::ordered_json (*queries)(const ChildInput&));

// Runs child `name` in a process of its own: `self` (the doctor's executable) with the child's
// argument (and `library` for a child that takes one, `child_options` for one that takes options; a
// row without options ignores them), an empty standard input, in a session of
// its own that is killed, whole, once the report is in or after `timeout`; at most `max_output`
// bytes of its report and k_max_error_tail bytes of its standard error kept. Returns
// ErrorCode::not_found for a name no row has, ErrorCode::invalid_argument for a library given to
// a child that takes none or missing for one that needs it, or the error of a child that could
// not be started.
Expected<platform::ProcessResult> run_child(std::string_view name,
                                            const std::filesystem::path& self,
                                            const std::string& library,
                                            std::chrono::milliseconds timeout,
                                            std::size_t max_output,
                                            const std::string& child_options = {});

} // namespace doctor::probe
