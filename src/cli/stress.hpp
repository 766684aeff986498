// SPDX-License-Identifier: MIT
#pragma once

#include "options.hpp"

namespace doctor::cli {

// `stress`: run the memory test, the GEMM with cross-checks and the bandwidth tests on one GPU in
// the isolated stress child, loading the libcuda the loader model names (or --lib cuda=PATH),
// with NVML sampled alongside; judge and print. Returns the exit status (0 passed, 1 a finding
// at or above --fail-on, 4 could not run). Throws CommandError for a bad --lib or --kb-dir.
int run_stress(const StressOptions& options);

// The time limit of the stress child at `level` when --timeout is not given, in seconds.
double default_stress_timeout(const std::string& level);

} // namespace doctor::cli
