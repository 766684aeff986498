// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/probe/children.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace doctor::probe {

// What the parent asks of the stress child: its options argument ("level=quick;gpu=0;
// inject=none;seed=1"), parsed. Unknown keys are ignored; a bad value keeps the default.
struct StressPlan {
  std::string level = "quick"; // quick | standard | long
  int gpu = 0;
  std::string inject = "none"; // none | memtest | gemm
  std::uint32_t seed = 1;
  // The libcublas the loader model names, for the GEMM's second reference; "" for none. A path
  // holding ';' cannot be passed and is left out by the parent.
  std::string cublas;
};

// Parses the options argument; never fails (defaults for what is missing or malformed).
StressPlan parse_stress_plan(std::string_view text);

// The options argument for `plan` (parse_stress_plan's inverse).
std::string stress_plan_text(const StressPlan& plan);

// The PTX module the stress child loads (probe/kernels/stress_kernels.ptx, embedded at build
// time), NUL-terminated as cuModuleLoadData requires.
std::string_view stress_ptx();

// Runs in the isolated child (the row "stress" of children.cpp): loads exactly input.library
// (the libcuda.so.1 of the loader model), and on GPU plan.gpu runs the memory test over at least
// 90% of the free memory, the GEMM with its cross-checks and the bandwidth tests (docs/stress.md),
// reporting what each call returned and what each phase measured. Returns the exit status (0
// even when the calls fail: the failure is the answer).
int run_stress_child(const ChildInput& input);

} // namespace doctor::probe
