// SPDX-License-Identifier: MIT
#include <doctor/util/strings.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace doctor {
namespace {

using util::sanitize;
using Views = std::vector<std::string_view>;

TEST(strings, trim_removes_ascii_whitespace_at_both_ends_only) {
  EXPECT_EQ(util::trim(" \t\r\n\v\f a b \t\r\n"), "a b");
  EXPECT_EQ(util::trim("abc"), "abc");
  EXPECT_EQ(util::trim(" \t\n "), "");
  EXPECT_EQ(util::trim(""), "");
}

TEST(strings, split_keeps_empty_fields) {
  EXPECT_EQ(util::split("a,,b,", ','), (Views{"a", "", "b", ""}));
  EXPECT_EQ(util::split(",a", ','), (Views{"", "a"}));
  EXPECT_EQ(util::split("abc", ','), (Views{"abc"}));
  EXPECT_EQ(util::split("", ','), (Views{""}));
}

TEST(strings, split_lines_accepts_lf_and_crlf_without_a_trailing_empty_line) {
  EXPECT_EQ(util::split_lines("a\r\nb\nc"), (Views{"a", "b", "c"}));
  EXPECT_EQ(util::split_lines("a\nb\n"), (Views{"a", "b"}));
  EXPECT_EQ(util::split_lines("a\n\nb"), (Views{"a", "", "b"}));
  EXPECT_EQ(util::split_lines("\r\n"), (Views{""}));
  EXPECT_TRUE(util::split_lines("").empty());
}

TEST(strings, split_lines_keeps_a_carriage_return_inside_a_line) {
  EXPECT_EQ(util::split_lines("a\rb\n"), (Views{"a\rb"}));
}

TEST(strings, split_lines_handles_a_huge_line) {
  const std::string huge(4 * 1024 * 1024, 'x');
  const std::string text = huge + "\nend";
  const auto lines = util::split_lines(text);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].size(), huge.size());
  EXPECT_EQ(lines[1], "end");
}

TEST(strings, join_puts_the_separator_between_parts_only) {
  EXPECT_EQ(util::join({"a", "b", "c"}, "::"), "a::b::c");
  EXPECT_EQ(util::join({"a"}, ", "), "a");
  EXPECT_EQ(util::join({}, ", "), "");
  EXPECT_EQ(util::join({"", ""}, ":"), ":");
}

TEST(strings, to_lower_changes_only_ascii_letters) {
  EXPECT_EQ(util::to_lower("LibCUDNN.So.9"), "libcudnn.so.9");
  EXPECT_EQ(util::to_lower("\xC3\x89T\xC3\x89"), "\xC3\x89t\xC3\x89"); // "ÉTÉ": bytes kept
  EXPECT_EQ(util::to_lower("[@]_"), "[@]_");
}

TEST(strings, parse_uint_accepts_whole_decimal_numbers) {
  EXPECT_EQ(util::parse_uint("0"), 0U);
  EXPECT_EQ(util::parse_uint("0042"), 42U);
  EXPECT_EQ(util::parse_uint("18446744073709551615"), UINT64_MAX);
}

TEST(strings, parse_uint_rejects_junk_signs_blanks_and_overflow) {
  EXPECT_FALSE(util::parse_uint(""));
  EXPECT_FALSE(util::parse_uint("18446744073709551616"));
  EXPECT_FALSE(util::parse_uint("-1"));
  EXPECT_FALSE(util::parse_uint("+1"));
  EXPECT_FALSE(util::parse_uint(" 1"));
  EXPECT_FALSE(util::parse_uint("1 "));
  EXPECT_FALSE(util::parse_uint("12a"));
  EXPECT_FALSE(util::parse_uint("0x10"));
}

TEST(strings, parse_hex_accepts_optional_prefix_and_either_case) {
  EXPECT_EQ(util::parse_hex("0x10de"), 0x10deU);
  EXPECT_EQ(util::parse_hex("0X10DE"), 0x10deU);
  EXPECT_EQ(util::parse_hex("030200"), 0x030200U);
  EXPECT_EQ(util::parse_hex("ffffffffffffffff"), UINT64_MAX);
}

TEST(strings, parse_hex_rejects_junk_and_overflow) {
  EXPECT_FALSE(util::parse_hex(""));
  EXPECT_FALSE(util::parse_hex("0x"));
  EXPECT_FALSE(util::parse_hex("0xg1"));
  EXPECT_FALSE(util::parse_hex("10de\n"));
  EXPECT_FALSE(util::parse_hex("0x0x1"));
  EXPECT_FALSE(util::parse_hex("-1"));
  EXPECT_FALSE(util::parse_hex("1ffffffffffffffff"));
}

TEST(strings, sanitize_replaces_control_characters_and_turns_tabs_into_spaces) {
  EXPECT_EQ(sanitize("a\001b\033[31mc\177"), "a?b?[31mc?");
  EXPECT_EQ(sanitize("a\tb\nc"), "a b?c");
  EXPECT_EQ(sanitize(std::string("nul\0here", 8)), "nul?here");
}

TEST(strings, sanitize_keeps_valid_utf8) {
  const std::string text = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"; // "café € 😀"
  EXPECT_EQ(sanitize(text), text);
}

TEST(strings, sanitize_replaces_malformed_utf8) {
  EXPECT_EQ(sanitize("\xFF\xFE"), "??");
  EXPECT_EQ(sanitize("a\xE2\x82"), "a??");         // truncated sequence
  EXPECT_EQ(sanitize("\x80x"), "?x");              // stray continuation byte
  EXPECT_EQ(sanitize("\xC0\xAF"), "??");           // overlong 2-byte '/'
  EXPECT_EQ(sanitize("\xF5\x80\x80\x80"), "????"); // above U+10FFFF by lead byte
}

// Sequences that pass a lead/continuation-byte check but are still not UTF-8: overlong 3- and
// 4-byte forms, UTF-16 surrogates and code points above U+10FFFF. JSON writers reject them, so
// sanitize must not let them through.
TEST(strings, sanitize_replaces_overlong_surrogate_and_out_of_range_sequences) {
  EXPECT_EQ(sanitize("\xE0\x80\xAF"), "???");                  // overlong '/'
  EXPECT_EQ(sanitize("\xED\xA0\x80"), "???");                  // U+D800, a surrogate
  EXPECT_EQ(sanitize("\xF0\x80\x80\xAF"), "????");             // overlong '/'
  EXPECT_EQ(sanitize("\xF4\x90\x80\x80"), "????");             // U+110000
  EXPECT_EQ(sanitize("\xED\x9F\xBF"), "\xED\x9F\xBF");         // U+D7FF is fine
  EXPECT_EQ(sanitize("\xF4\x8F\xBF\xBF"), "\xF4\x8F\xBF\xBF"); // U+10FFFF is fine
}

TEST(strings, sanitize_cuts_long_text_with_an_ellipsis) {
  EXPECT_EQ(sanitize(std::string(500, 'a'), 10), std::string(10, 'a') + "\xE2\x80\xA6");
  EXPECT_EQ(sanitize(std::string(10, 'a'), 10), std::string(10, 'a'));
  EXPECT_EQ(sanitize("", 10), "");
}

TEST(strings, sanitize_never_splits_a_multibyte_character) {
  // 4 x "é" (2 bytes each) with room for 3 bytes: the second "é" is kept whole or not at all.
  const std::string out = sanitize("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3);
  EXPECT_TRUE(out == "\xC3\xA9\xC3\xA9\xE2\x80\xA6" || out == "\xC3\xA9\xE2\x80\xA6") << out;
}

TEST(strings, starts_with_then_version_returns_the_dotted_tail) {
  std::string_view rest;
  ASSERT_TRUE(util::starts_with_then_version("libcudart.so.12.4.127", "libcudart.so.", rest));
  EXPECT_EQ(rest, "12.4.127");
  ASSERT_TRUE(util::starts_with_then_version("cuda-13", "cuda-", rest));
  EXPECT_EQ(rest, "13");
}

TEST(strings, starts_with_then_version_rejects_other_tails_and_leaves_rest_alone) {
  std::string_view rest = "untouched";
  EXPECT_FALSE(util::starts_with_then_version("libcudart.so.", "libcudart.so.", rest));
  EXPECT_FALSE(util::starts_with_then_version("libcudart.so.12.", "libcudart.so.", rest));
  EXPECT_FALSE(util::starts_with_then_version("libcudart.so..12", "libcudart.so.", rest));
  EXPECT_FALSE(util::starts_with_then_version("libcudart.so.12a", "libcudart.so.", rest));
  EXPECT_FALSE(util::starts_with_then_version("libcublas.so.12", "libcudart.so.", rest));
  EXPECT_FALSE(util::starts_with_then_version("", "libcudart.so.", rest));
  EXPECT_EQ(rest, "untouched");
}

TEST(strings, unquote_removes_one_matching_pair) {
  EXPECT_EQ(util::unquote("\"Debian GNU/Linux\""), "Debian GNU/Linux");
  EXPECT_EQ(util::unquote("'x'"), "x");
  EXPECT_EQ(util::unquote("\"\""), "");
  EXPECT_EQ(util::unquote("\"\"x\"\""), "\"x\"");
}

TEST(strings, unquote_leaves_unmatched_quotes) {
  EXPECT_EQ(util::unquote("\"x'"), "\"x'");
  EXPECT_EQ(util::unquote("\"x"), "\"x");
  EXPECT_EQ(util::unquote("\""), "\"");
  EXPECT_EQ(util::unquote("x"), "x");
}

TEST(strings, replace_all_replaces_every_non_overlapping_occurrence) {
  EXPECT_EQ(util::replace_all("/root/a: /root/b", "/root/", "/"), "/a: /b");
  EXPECT_EQ(util::replace_all("aaa", "aa", "b"), "ba");
  EXPECT_EQ(util::replace_all("abc", "x", "y"), "abc");
  EXPECT_EQ(util::replace_all("", "x", "y"), "");
}

TEST(strings, replace_all_does_not_rescan_its_replacement) {
  EXPECT_EQ(util::replace_all("aa", "a", "aa"), "aaaa");
}

TEST(strings, replace_all_with_empty_pattern_returns_input) {
  EXPECT_EQ(util::replace_all("abc", "", "x"), "abc");
}

} // namespace
} // namespace doctor

namespace doctor {
namespace {

TEST(strings, utf8_complete_prefix_holds_back_a_sequence_cut_short) {
  const std::string wei = "\xe4\xbc\x9f";       // 伟, 3 bytes
  const std::string smile = "\xf0\x9f\x98\x80"; // U+1F600, 4 bytes
  EXPECT_EQ(util::utf8_complete_prefix(""), 0U);
  EXPECT_EQ(util::utf8_complete_prefix("abc"), 3U);
  EXPECT_EQ(util::utf8_complete_prefix("a" + wei), 4U);
  EXPECT_EQ(util::utf8_complete_prefix("a" + wei.substr(0, 1)), 1U);
  EXPECT_EQ(util::utf8_complete_prefix("a" + wei.substr(0, 2)), 1U);
  EXPECT_EQ(util::utf8_complete_prefix(wei + smile.substr(0, 1)), 3U);
  EXPECT_EQ(util::utf8_complete_prefix(wei + smile.substr(0, 2)), 3U);
  EXPECT_EQ(util::utf8_complete_prefix(wei + smile.substr(0, 3)), 3U);
  EXPECT_EQ(util::utf8_complete_prefix(wei + smile), 7U);
  EXPECT_EQ(util::utf8_complete_prefix("\xc3"), 0U); // é cut after its lead byte
  EXPECT_EQ(util::utf8_complete_prefix("\xc3\xa9"), 2U);
}

TEST(strings, utf8_complete_prefix_keeps_bytes_no_continuation_could_complete) {
  EXPECT_EQ(util::utf8_complete_prefix("ab\x80"), 3U);         // a stray continuation byte
  EXPECT_EQ(util::utf8_complete_prefix("ab\x80\x80\x80"), 5U); // no lead within reach
  EXPECT_EQ(util::utf8_complete_prefix("ab\xc0"), 3U);         // never a lead (overlong)
  EXPECT_EQ(util::utf8_complete_prefix("ab\xff"), 3U);
  EXPECT_EQ(util::utf8_complete_prefix("ab\xf5"), 3U);     // past U+10FFFF
  EXPECT_EQ(util::utf8_complete_prefix("ab\xe0\x80"), 4U); // overlong 3-byte form
  EXPECT_EQ(util::utf8_complete_prefix("ab\xed\xa0"), 4U); // a UTF-16 surrogate
  EXPECT_EQ(util::utf8_complete_prefix("ab\xf4\x90"), 4U); // past U+10FFFF
  EXPECT_EQ(util::utf8_complete_prefix("ab\xe5\x41"), 4U); // lead, then ASCII
}

TEST(strings, utf8_complete_prefix_cuts_at_the_last_character_boundary) {
  // Every way of cutting a valid text: what is let through ends at the last character boundary
  // at or before the cut, so the pieces a writer passes on are always whole characters.
  const std::string text = "GPU \xe5\xbc\xa0\xe4\xbc\x9f \xf0\x9f\x98\x80 \xc3\xa9";
  std::vector<std::size_t> boundaries;
  for (std::size_t i = 0; i < text.size(); i += util::utf8_sequence_length(text, i)) {
    boundaries.push_back(i);
  }
  boundaries.push_back(text.size());
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    const auto last = std::upper_bound(boundaries.begin(), boundaries.end(), cut) - 1;
    EXPECT_EQ(util::utf8_complete_prefix(std::string_view(text).substr(0, cut)), *last) << cut;
  }
}

} // namespace
} // namespace doctor
