// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/probe/children.hpp>

namespace doctor::probe {

// Runs in the isolated child (the row "cuda" of children.cpp): loads exactly input.library (the
// libcuda.so.1 the parent's loader model chose) and reports, as the driver API answered:
// cuDriverGetVersion, cuInit (with cuGetErrorName/cuGetErrorString of its result), the device
// count, and each device's name, memory and whether a context can be created on it. Returns the
// exit status (0 even when the calls fail: the failure is the answer).
int run_cuda_child(const ChildInput& input);

} // namespace doctor::probe
