// SPDX-License-Identifier: MIT
#include <doctor/util/escape.hpp>

#include <gtest/gtest.h>

#include <string>

namespace doctor {
namespace {

using util::cut_utf8;
using util::escape_markdown;
using util::escape_terminal;

TEST(escape, cut_utf8_never_ends_inside_a_sequence) {
  const std::string cjk = "文字化け"; // 3 bytes each
  EXPECT_EQ(cut_utf8(cjk, 12), cjk);
  EXPECT_EQ(cut_utf8(cjk, 11), "文字化");
  EXPECT_EQ(cut_utf8(cjk, 7), "文字");
  EXPECT_EQ(cut_utf8(cjk, 2), "");
  EXPECT_EQ(cut_utf8("été", 2), "é");
  EXPECT_EQ(cut_utf8("ab\xff\xfe"
                     "cd",
                     3),
            "ab\xff");
  EXPECT_EQ(cut_utf8("\xf0\x9f\x98\x80x", 3), "");
  for (std::size_t n = 0; n <= cjk.size(); ++n) {
    EXPECT_TRUE(util::is_utf8(cut_utf8(cjk + "é😀", n))) << n;
  }
}

TEST(escape, is_utf8_rejects_stray_truncated_and_overlong_bytes) {
  EXPECT_TRUE(util::is_utf8("plain 文字 é"));
  EXPECT_FALSE(util::is_utf8("\xff"));
  EXPECT_FALSE(util::is_utf8("\xe6\x96"));
  EXPECT_FALSE(util::is_utf8("\xc0\xaf"));
  EXPECT_FALSE(util::is_utf8("\xed\xa0\x80")); // a surrogate
}

TEST(escape, terminal_shows_every_control_visibly) {
  EXPECT_EQ(escape_terminal("\x1b]0;owned\x07"), "\\x1b]0;owned\\x07");
  EXPECT_EQ(escape_terminal("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(escape_terminal("HIDDEN\rCould not load"), "HIDDEN\\rCould not load");
  EXPECT_EQ(escape_terminal("a\nERROR fake\tb\bc\x7f"), "a\\nERROR fake\\tb\\x08c\\x7f");
  EXPECT_EQ(escape_terminal("csi\xc2\x9b"
                            "2J"),
            "csi\\u{009b}2J");
  EXPECT_EQ(escape_terminal("abc\u202edcba"), "abc\\u{202e}dcba");
  EXPECT_EQ(escape_terminal("bad\xff\xe6\x96"), "bad\\xff\\xe6\\x96");
}

TEST(escape, terminal_keeps_printable_text_as_it_is) {
  EXPECT_EQ(escape_terminal("/usr/local/cuda-12.2/lib64"), "/usr/local/cuda-12.2/lib64");
  EXPECT_EQ(escape_terminal("C:\\Windows\\System32 加载 café"), "C:\\Windows\\System32 加载 café");
}

TEST(escape, markdown_makes_links_html_and_markup_text) {
  EXPECT_EQ(escape_markdown("[x](https://evil)"), "\\[x\\]\\(https://evil\\)");
  EXPECT_EQ(escape_markdown("<img src=x>|a*b_c`d"), "\\<img src=x\\>\\|a\\*b\\_c\\`d");
  EXPECT_EQ(escape_markdown("C:\\cuda"), "C:\\\\cuda");
  EXPECT_EQ(escape_markdown("a\nb"), "a\\\\nb");
  EXPECT_EQ(escape_markdown("&lt; !# ~~"), "\\&lt; \\!\\# \\~\\~");
}

TEST(escape, code_spans_and_fences_outgrow_the_backticks_inside) {
  EXPECT_EQ(util::markdown_code_span("a"), "`a`");
  EXPECT_EQ(util::markdown_code_span("a``b"), "```a``b```");
  EXPECT_EQ(util::markdown_code_span("`x"), "`` `x ``");
  EXPECT_EQ(util::markdown_code_span("\x1b[2J"), "`\\x1b[2J`");
  EXPECT_EQ(util::markdown_fence("plain"), "```");
  EXPECT_EQ(util::markdown_fence("a ```` b"), "`````");
  EXPECT_EQ(util::markdown_code_block("x ```\n"), "````\nx ```\n````\n");
}

TEST(escape, invalid_utf8_is_escaped_and_its_bytes_kept_in_hex) {
  EXPECT_EQ(util::escape_invalid_utf8("/opt/\xff"
                                      "é"),
            "/opt/\\xffé");
  EXPECT_EQ(util::hex_bytes("/\xff"), "2fff");
}

} // namespace
} // namespace doctor
