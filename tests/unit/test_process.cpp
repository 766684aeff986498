// SPDX-License-Identifier: MIT
#include <doctor/platform/process.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

TEST(process_answer, reading_stops_at_the_end_of_answer_byte) {
  platform::ProcessOptions options;
  options.end_of_answer = '\n';
  platform::ProcessResult r;
  EXPECT_FALSE(platform::append_answer(r, R"({"a":)", options));
  EXPECT_TRUE(platform::append_answer(r, "1}\ngarbage a grandchild wrote", options));
  EXPECT_TRUE(r.answered);
  EXPECT_EQ(r.out, R"({"a":1})");
}

TEST(process_answer, without_an_end_byte_everything_is_kept_up_to_the_cap) {
  platform::ProcessOptions options;
  options.max_output = 5;
  platform::ProcessResult r;
  EXPECT_FALSE(platform::append_answer(r, "abc\n", options));
  EXPECT_FALSE(platform::append_answer(r, "defgh", options));
  EXPECT_FALSE(r.answered);
  EXPECT_EQ(r.out, "abc\nd");
}

TEST(process_answer, the_cap_holds_when_the_end_comes_late) {
  platform::ProcessOptions options;
  options.max_output = 3;
  options.end_of_answer = '\n';
  platform::ProcessResult r;
  EXPECT_TRUE(platform::append_answer(r, "abcdef\n", options));
  EXPECT_EQ(r.out, "abc");
}

TEST(process_answer, the_error_tail_is_cut_on_a_character_boundary) {
  EXPECT_EQ(platform::tail_of("short", 10), "short");
  EXPECT_EQ(platform::tail_of("abcdef", 3), "def");
  // "é" is two bytes: a cut inside it drops its continuation byte, never half a character.
  EXPECT_EQ(platform::tail_of("x\xC3\xA9yz", 3), "yz");
  EXPECT_EQ(platform::tail_of("x\xC3\xA9yz", 4), "\xC3\xA9yz");
}

} // namespace
} // namespace doctor
