// SPDX-License-Identifier: MIT
#include <doctor/util/regex.hpp>

#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>

namespace doctor {
namespace {

Regex compile(std::string_view pattern) {
  auto re = Regex::compile(pattern);
  EXPECT_TRUE(re.has_value()) << pattern << ": " << (re ? "" : re.error().message);
  return re ? std::move(*re) : *Regex::compile("x");
}

std::string first(std::string_view pattern, std::string_view text) {
  RegexMatch m;
  if (!compile(pattern).search(text, &m))
    return "<none>";
  return std::string(text.substr(m.begin, m.end - m.begin));
}

TEST(Regex, LiteralsClassesAndEscapes) {
  EXPECT_EQ(first("cudnn64_\\d+\\.dll", "load 'cudnn64_8.dll' failed"), "cudnn64_8.dll");
  EXPECT_EQ(first("[^']+", "'abc'"), "abc");
  EXPECT_EQ(first("[a-c]+", "xxbcaz"), "bca");
  EXPECT_EQ(first("\\w+", "  lib_x9-"), "lib_x9");
  EXPECT_EQ(first("\\s+\\S", "ab \t c"), " \t c");
  EXPECT_EQ(first("\\x41\\t", "zA\t"), "A\t");
  EXPECT_EQ(first("[\\]x]+", "a]x]b"), "]x]");
  EXPECT_EQ(first("[-a]+", "b-a-"), "-a-");
  EXPECT_EQ(first("a.c", "a\nc abc"), "abc");
  EXPECT_EQ(first("\\(\\d\\)", "f(7)"), "(7)");
  EXPECT_EQ(first("x{2,3}", "xxxxx"), "xxx");
  EXPECT_EQ(first("x{2}", "x xx"), "xx");
  EXPECT_EQ(first("x{2,}", "xxxxx"), "xxxxx");
  EXPECT_EQ(first("a{,2}", "a{,2}"), "a{,2}"); // not a count: literal braces, as RE2
  EXPECT_EQ(first("找不到", "OSError: 找不到指定的模块"), "找不到");
}

TEST(Regex, LeftmostFirstAndLazy) {
  EXPECT_EQ(first("a|ab", "ab"), "a");
  EXPECT_EQ(first("ab|a", "ab"), "ab");
  EXPECT_EQ(first("a+?", "aaa"), "a");
  EXPECT_EQ(first("<.*>", "<a><b>"), "<a><b>");
  EXPECT_EQ(first("<.*?>", "<a><b>"), "<a>");
  EXPECT_EQ(first("b", "aaab"), "b");
  EXPECT_EQ(first("x*", "abc"), "");
}

TEST(Regex, AnchorsAndWordBoundaries) {
  EXPECT_EQ(first("^ab", "abab"), "ab");
  EXPECT_EQ(first("^b", "ab"), "<none>");
  EXPECT_EQ(first("b$", "abab"), "b");
  EXPECT_EQ(first("\\bXid\\b", "NoXid Xid: 79"), "Xid");
  EXPECT_EQ(first("\\Bid", "Xid"), "id");
}

TEST(Regex, CaseInsensitive) {
  auto re = compile("(?i)cuda out of MEMORY");
  EXPECT_TRUE(re.ignores_case());
  EXPECT_TRUE(re.search("RuntimeError: CUDA Out Of Memory."));
  EXPECT_EQ(re.required_literal(), "cuda out of memory");
  EXPECT_FALSE(compile("cuda").search("CUDA"));
  EXPECT_TRUE(compile("(?i)[a-c]").search("B"));
}

TEST(Regex, NamedAndNumberedGroups) {
  auto re = compile(
      "Loaded runtime CuDNN library: (?<found>[\\d.]+) but source was compiled with: "
      "(?P<expected>[\\d.]+)");
  ASSERT_EQ(re.group_names().size(), 2U);
  EXPECT_EQ(re.group_index("found"), 1U);
  EXPECT_EQ(re.group_index("expected"), 2U);
  EXPECT_EQ(re.group_index("other"), 0U);
  std::string text =
      "E cuda_dnn.cc:361] Loaded runtime CuDNN library: 8.1.0 but source was "
      "compiled with: 8.6.0.  CuDNN library needs";
  RegexMatch m;
  ASSERT_TRUE(re.search(text, &m));
  EXPECT_EQ(m.group(text, 1), "8.1.0");
  EXPECT_EQ(m.group(text, 2), "8.6.0."); // the class takes the sentence's full stop too
  EXPECT_EQ(m.group(text, 3), "");
  EXPECT_EQ(re.required_literal(), " but source was compiled with: "); // the longer run

  auto opt = compile("a(?<x>b)?c");
  std::string t2 = "ac";
  ASSERT_TRUE(opt.search(t2, &m));
  EXPECT_EQ(m.groups[0].first, RegexMatch::k_npos);
  EXPECT_EQ(m.group(t2, 1), "");
}

TEST(Regex, RequiredLiteralIsTopLevelOnly) {
  EXPECT_EQ(compile("Could not load dynamic library '(?<lib>[^']+)'").required_literal(),
            "Could not load dynamic library '");
  EXPECT_EQ(compile("ab+cdef").required_literal(), "cdef"); // b is quantified; "a" is too short
  EXPECT_EQ(compile("(?:abcdef)|x").required_literal(), "");
  EXPECT_EQ(compile("Xid \\(PCI:(?<pci>[^)]+)\\): (?<xid>\\d+)").required_literal(), "Xid (PCI:");
  EXPECT_EQ(compile("zlibwapi\\.dll").required_literal(), "zlibwapi.dll");
}

TEST(Regex, RejectsBadPatternsWithTheOffset) {
  for (const char* bad : {"(",
                          ")",
                          "a)",
                          "[abc",
                          "*a",
                          "a**",
                          "a{3,2}",
                          "a{101}",
                          "\\",
                          "\\q",
                          "(?=x)",
                          "(?<>x)",
                          "(?<n>a)(?<n>b)",
                          "[z-a]",
                          "[a-\\d]",
                          "^*",
                          "a*{2}",
                          "[\xC3\xA9]"}) {
    auto re = Regex::compile(bad);
    ASSERT_FALSE(re.has_value()) << bad;
    EXPECT_NE(re.error().message.find("offset"), std::string::npos) << re.error().message;
  }
  // Nesting and size limits: errors, not stack overflows or huge programs.
  EXPECT_FALSE(Regex::compile(std::string(500, '(') + "a" + std::string(500, ')')).has_value());
  auto big = Regex::compile("((a{100}){100}){100}");
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().code, ErrorCode::too_large);
}

TEST(Regex, PrefixSkipsToItsOccurrences) {
  auto re = compile("Xid (?<n>\\d+)");
  EXPECT_EQ(re.prefix(), "Xid ");
  std::string text = "Xid x, Xid , Xid 79";
  RegexMatch m;
  ASSERT_TRUE(re.search(text, &m));
  EXPECT_EQ(m.group(text, 1), "79");
  auto ci = compile("(?i)OUT of memory (\\d+)");
  EXPECT_EQ(ci.prefix(), "out of memory ");
  EXPECT_EQ(first("(?i)OUT of memory (\\d+)", "Out Of Memory x; OUT OF MEMORY 12"),
            "OUT OF MEMORY 12");
  EXPECT_EQ(compile("(a)bcd").prefix(), "");
  EXPECT_EQ(compile("x").prefix(), "x");
  EXPECT_EQ(first("abab", "abaabab"), "abab");
}

// Patterns that make backtracking engines exponential run in linear time here; the test would
// not finish otherwise.
TEST(Regex, PathologicalPatternsStayLinear) {
  std::string as(20000, 'a');
  EXPECT_FALSE(compile("(a*)*b").search(as));
  EXPECT_FALSE(compile("(a|a)*c").search(as));
  EXPECT_FALSE(compile("(a|aa)+$x").search(as));
  EXPECT_TRUE(compile("(a+)+").search(as));
  std::string spaces(20000, ' ');
  EXPECT_FALSE(compile("\\s*\\s*\\s*\\s*\\s*:").search(spaces));
}

// Differential test: random patterns over {a, b} against std::regex (ECMAScript is leftmost-first
// too). Only the whole match is compared: ECMAScript clears captures of repeated groups per
// iteration, RE2's dialect keeps the last.
TEST(Regex, AgreesWithStdRegexOnRandomPatterns) {
  std::mt19937 rng(12345);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  // Loop bodies never match empty: libstdc++ and Perl disagree on empty iterations.
  std::function<std::string(int, bool)> gen = [&](int depth, bool may_be_empty) -> std::string {
    int k = depth > 3 ? pick(3) : pick(9);
    if (!may_be_empty && (k == 5 || k == 7))
      k = 3;
    switch (k) {
    case 0:
      return "a";
    case 1:
      return "b";
    case 2:
      return pick(2) != 0 ? "[ab]" : ".";
    case 3:
      return gen(depth + 1, may_be_empty) + gen(depth + 1, may_be_empty);
    case 4:
      return "(?:" + gen(depth + 1, may_be_empty) + "|" + gen(depth + 1, may_be_empty) + ")";
    case 5:
      return "(?:" + gen(depth + 1, false) + ")*";
    case 6:
      return "(?:" + gen(depth + 1, false) + ")+?";
    case 7:
      return "(" + gen(depth + 1, true) + ")?";
    default:
      return "(?:" + gen(depth + 1, false) + "){1,2}";
    }
  };
  int compared = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string pattern = gen(0, true);
    std::string text;
    for (int j = pick(8); j > 0; --j)
      text.push_back(pick(3) == 0 ? 'b' : 'a');
    auto mine = Regex::compile(pattern);
    ASSERT_TRUE(mine.has_value()) << pattern;
    std::regex theirs(pattern, std::regex::ECMAScript);
    std::smatch sm;
    bool expect = std::regex_search(text, sm, theirs);
    RegexMatch m;
    bool got = mine->search(text, &m);
    ASSERT_EQ(got, expect) << pattern << " on '" << text << "'";
    if (got) {
      ASSERT_EQ(m.begin, static_cast<std::size_t>(sm.position(0))) << pattern << " on " << text;
      ASSERT_EQ(m.end - m.begin, static_cast<std::size_t>(sm.length(0)))
          << pattern << " on " << text;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 3000);
}

} // namespace
} // namespace doctor
