// SPDX-License-Identifier: MIT
// Must not compile: the format parsers read bytes, never the machine (tests/lint/CMakeLists.txt).
#include <doctor/platform/mapped_file.hpp>
