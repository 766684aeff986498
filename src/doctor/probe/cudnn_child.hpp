// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/probe/children.hpp>

namespace doctor::probe {

// Runs in the isolated child (the row "cudnn" of children.cpp): loads exactly input.library (the
// libcudnn.so.N the parent's loader model chose) and reports cudnnGetVersion,
// cudnnGetCudartVersion, and cudnnCreate's status with cudnnGetErrorString's text; with a handle,
// a small convolution forward on device 0 compared with the CPU reference (reference.hpp), or why
// it was skipped. Returns the exit status (0 even when the calls fail).
int run_cudnn_child(const ChildInput& input);

} // namespace doctor::probe
