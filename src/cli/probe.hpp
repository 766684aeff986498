// SPDX-License-Identifier: MIT
#pragma once

#include "options.hpp"

#include <doctor/platform/sysroot.hpp>

#include <map>
#include <string>
#include <vector>

namespace doctor::cli {

// Parses "--lib PROBE=PATH" values into a map from probe name ("cuda", "cudnn", "cublas") to the
// file it loads. Throws CommandError (exit 2) naming a value without '=', an empty path, or a
// probe that takes no library.
std::map<std::string, std::string> parse_probe_libraries(const std::vector<std::string>& values);

// `probe`: run NVML and the driver API, cuDNN and cuBLAS children on this machine, each loading
// the copy the loader model names (or --lib's), judge what they found, print it. Returns the exit
// status. Throws CommandError for a bad --lib or --kb-dir.
int run_probe(const ProbeOptions& options);

} // namespace doctor::cli
