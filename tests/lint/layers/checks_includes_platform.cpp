// SPDX-License-Identifier: MIT
// Must not compile: checks are pure and cannot see the platform layer (tests/lint/CMakeLists.txt).
#include <doctor/platform/sysroot.hpp>
