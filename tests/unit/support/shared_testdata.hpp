// SPDX-License-Identifier: MIT
#pragma once

// Tests that read the real samples of ../shared/testdata (test::shared_testdata_dir()). In a
// partial checkout without them such a test skips and says what is missing; with
// DOCTOR_REQUIRE_TESTDATA=1 in its environment (CI sets it) the same test fails instead, so a
// missing sample cannot turn the real-data tests into silent skips. Platform-neutral: also used by
// the tests run under wine.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

namespace doctor::test {

// True when DOCTOR_REQUIRE_TESTDATA=1 is set: missing shared samples are failures.
inline bool shared_testdata_required() {
  const char* v = std::getenv("DOCTOR_REQUIRE_TESTDATA");
  return v != nullptr && std::string_view(v) == "1";
}

} // namespace doctor::test

// Ends the calling test (a TEST body or SetUp) because the shared sample `what` is missing:
// a failure under DOCTOR_REQUIRE_TESTDATA=1, a skip otherwise.
#define DOCTOR_MISSING_TESTDATA(what)                                                              \
  do {                                                                                             \
    if (::doctor::test::shared_testdata_required()) {                                              \
      FAIL() << "DOCTOR_REQUIRE_TESTDATA=1 but the shared sample is missing: " << what;            \
    }                                                                                              \
    GTEST_SKIP() << "shared sample missing (DOCTOR_REQUIRE_TESTDATA=1 makes this a failure): "     \
                 << what;                                                                          \
  } while (false)
