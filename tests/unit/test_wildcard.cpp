// SPDX-License-Identifier: MIT
#include <doctor/util/wildcard.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace doctor {
namespace {

using util::wildcard_match;

TEST(wildcard, literal_pattern_matches_only_itself) {
  EXPECT_TRUE(wildcard_match("libc.conf", "libc.conf"));
  EXPECT_FALSE(wildcard_match("libc.conf", "libc.con"));
  EXPECT_FALSE(wildcard_match("libc.conf", "libc.confx"));
  EXPECT_FALSE(wildcard_match("libc.conf", "Libc.conf"));
}

TEST(wildcard, empty_pattern_matches_only_empty_name) {
  EXPECT_TRUE(wildcard_match("", ""));
  EXPECT_FALSE(wildcard_match("", "a"));
  EXPECT_FALSE(wildcard_match("a", ""));
}

TEST(wildcard, star_matches_any_run_including_empty) {
  EXPECT_TRUE(wildcard_match("*.conf", "x86_64-linux-gnu.conf"));
  EXPECT_TRUE(wildcard_match("*.conf", ".conf"));
  EXPECT_FALSE(wildcard_match("*.conf", "cuda.conf.bak"));
  EXPECT_TRUE(wildcard_match("*", ""));
  EXPECT_TRUE(wildcard_match("**", "abc"));
  EXPECT_TRUE(wildcard_match("a*b*c", "a-b-b-c"));
  EXPECT_FALSE(wildcard_match("a*b*c", "a-c-b"));
}

TEST(wildcard, question_mark_matches_exactly_one_character) {
  EXPECT_TRUE(wildcard_match("cuda-1?.0", "cuda-12.0"));
  EXPECT_FALSE(wildcard_match("cuda-1?.0", "cuda-1.0"));
  EXPECT_FALSE(wildcard_match("cuda-1?.0", "cuda-123.0"));
  EXPECT_FALSE(wildcard_match("?", ""));
}

TEST(wildcard, class_matches_listed_characters_and_ranges) {
  EXPECT_TRUE(wildcard_match("lib[abc].so", "libb.so"));
  EXPECT_FALSE(wildcard_match("lib[abc].so", "libd.so"));
  EXPECT_TRUE(wildcard_match("[0-9][0-9]-cuda.conf", "10-cuda.conf"));
  EXPECT_FALSE(wildcard_match("[0-9][0-9]-cuda.conf", "1a-cuda.conf"));
  EXPECT_TRUE(wildcard_match("[a-cx-z]", "y"));
  EXPECT_FALSE(wildcard_match("[a-cx-z]", "m"));
}

TEST(wildcard, negated_class_with_bang_or_caret) {
  EXPECT_TRUE(wildcard_match("[!a]", "b"));
  EXPECT_FALSE(wildcard_match("[!a]", "a"));
  EXPECT_TRUE(wildcard_match("[^0-9]x", "ax"));
  EXPECT_FALSE(wildcard_match("[^0-9]x", "5x"));
  EXPECT_FALSE(wildcard_match("[!a]", ""));
}

TEST(wildcard, closing_bracket_first_in_class_is_literal) {
  EXPECT_TRUE(wildcard_match("[]]", "]"));
  EXPECT_TRUE(wildcard_match("[]a]", "a"));
  EXPECT_FALSE(wildcard_match("[]a]", "b"));
  EXPECT_TRUE(wildcard_match("[!]]", "x"));
  EXPECT_FALSE(wildcard_match("[!]]", "]"));
}

TEST(wildcard, dash_at_class_edge_is_literal) {
  EXPECT_TRUE(wildcard_match("[a-]", "-"));
  EXPECT_TRUE(wildcard_match("[a-]", "a"));
  EXPECT_FALSE(wildcard_match("[a-]", "b"));
}

TEST(wildcard, unterminated_class_is_a_literal_bracket) {
  EXPECT_TRUE(wildcard_match("a[b", "a[b"));
  EXPECT_FALSE(wildcard_match("a[b", "ab"));
  EXPECT_TRUE(wildcard_match("[", "["));
  EXPECT_TRUE(wildcard_match("x[*", "x[anything"));
}

TEST(wildcard, class_consumes_one_name_character) {
  EXPECT_TRUE(wildcard_match("[ab]*[cd]", "a--d"));
  EXPECT_FALSE(wildcard_match("[ab][cd]", "ac-"));
  EXPECT_FALSE(wildcard_match("[ab]", "ab"));
}

// A backtracking matcher takes exponential time on this; the dynamic programme is linear in
// the product of the lengths.
TEST(wildcard, hostile_pattern_finishes_quickly) {
  const std::string name(20000, 'a');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(wildcard_match("*a*a*a*a*a*a*a*a*a*a*a*a*b", name));
  EXPECT_TRUE(wildcard_match("*a*a*a*a*a*a*a*a*a*a*a*a*", name));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(wildcard, has_wildcard_detects_star_question_and_bracket) {
  EXPECT_TRUE(util::has_wildcard("*.conf"));
  EXPECT_TRUE(util::has_wildcard("a?c"));
  EXPECT_TRUE(util::has_wildcard("[ab]"));
  EXPECT_FALSE(util::has_wildcard("/etc/ld.so.conf.d/cuda.conf"));
  EXPECT_FALSE(util::has_wildcard(""));
}

} // namespace
} // namespace doctor
