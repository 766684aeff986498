// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/probe/children.hpp>

namespace doctor::probe {

// Runs in the isolated child (the row "cublas" of children.cpp): loads exactly input.library
// (the libcublas.so.N the parent's loader model chose) and reports cublasGetProperty's version,
// cublasCreate_v2's status with cublasGetStatusName/String; with a handle, cublasGetVersion_v2 and
// a small SGEMM on device 0 compared with the CPU reference, or why it was skipped. Returns the
// exit status (0 even when the calls fail).
int run_cublas_child(const ChildInput& input);

} // namespace doctor::probe
