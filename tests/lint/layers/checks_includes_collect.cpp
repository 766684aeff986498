// SPDX-License-Identifier: MIT
// Must not compile: checks are pure and cannot see the collectors (tests/lint/CMakeLists.txt).
#include <doctor/collect/collect.hpp>
