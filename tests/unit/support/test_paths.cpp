// SPDX-License-Identifier: MIT
#include "support/test_paths.hpp"

namespace doctor::test {

const std::string& test_data_dir() {
  static const std::string k_dir = DOCTOR_TEST_DATA;
  return k_dir;
}

const std::string& shared_testdata_dir() {
  static const std::string k_dir = DOCTOR_SHARED_TESTDATA;
  return k_dir;
}

} // namespace doctor::test
