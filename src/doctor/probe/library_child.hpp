// SPDX-License-Identifier: MIT
// What the children that load a library the parent chose (the driver API, cuDNN, cuBLAS) share.
#pragma once

#include <doctor/platform/dynlib.hpp>
#include <doctor/platform/privileges.hpp>
#include <doctor/probe/children.hpp>

#include <nlohmann/json.hpp>

#include <optional>

namespace doctor::probe {

// Opens exactly input.library (a path: the loader's search is not asked again) and records
// {"library": the path asked for, "loaded": the file the loader mapped} in `out`, or
// {"library", "library_error": the loader's own message}, then returns nullopt.
std::optional<platform::DynamicLibrary> open_library(const ChildInput& input,
                                                     nlohmann::ordered_json& out);

// How these children are confined: like NVML's (no capabilities, no core files, no_new_privs,
// root given up where the /dev/nvidia* nodes allow it), but without an address-space limit: the
// CUDA driver reserves the GPU's virtual address range (tens of GiB and more) in cuInit, which
// any limit that still catches a leak makes fail with CUDA_ERROR_OUT_OF_MEMORY. The time limit
// and the kill of the child's session still hold.
platform::ConfinementRequest library_child_confinement();

} // namespace doctor::probe
