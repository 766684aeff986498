// SPDX-License-Identifier: MIT
#include <doctor/model/termination.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace doctor {
namespace {

TEST(termination_name, linux_signals_are_named) {
  EXPECT_EQ(facts::termination_name(11), "SIGSEGV");
  EXPECT_EQ(facts::termination_name(42), "signal 42");
}

TEST(termination_name, windows_exceptions_are_named_by_their_ntstatus) {
  // GetExitCodeProcess's DWORD, as process_windows.cpp stores it in an int.
  EXPECT_EQ(facts::termination_name(static_cast<std::int32_t>(0xC0000005U)),
            "exception 0xC0000005 (access violation)");
  EXPECT_EQ(facts::termination_name(std::int64_t{0xC0000409}),
            "exception 0xC0000409 (stack buffer overrun or fail-fast)");
  EXPECT_EQ(facts::termination_name(static_cast<std::int32_t>(0xC0000142U)),
            "exception 0xC0000142");
}

} // namespace
} // namespace doctor
