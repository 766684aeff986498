// SPDX-License-Identifier: MIT
#pragma once

#include <string>

// Where the unit tests find their data. The paths are compiled into support/test_paths.cpp
// alone: as definitions on every test file they made each file's compile command, and so its
// compiler-cache key, differ from one clone of the repository to the next.
namespace doctor::test {

// tests/unit/data of this source tree.
const std::string& test_data_dir();

// ../shared/testdata beside this source tree (the real samples; see shared_testdata.hpp).
const std::string& shared_testdata_dir();

} // namespace doctor::test
