// SPDX-License-Identifier: MIT
#include <doctor/util/text_decode.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace doctor::util {
namespace {

using Texts = std::vector<std::string>;

Texts texts(const DecodedText& d) {
  Texts out;
  for (const auto& line : d.lines) {
    out.push_back(line.text);
  }
  return out;
}

std::string utf16(std::u16string_view s, bool little_endian, bool bom) {
  std::string out;
  auto put = [&](char16_t u) {
    const auto lo = static_cast<char>(u & 0xFF);
    const auto hi = static_cast<char>(u >> 8);
    out.push_back(little_endian ? lo : hi);
    out.push_back(little_endian ? hi : lo);
  };
  if (bom) {
    put(0xFEFF);
  }
  for (const char16_t u : s) {
    put(u);
  }
  return out;
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out.append(s);
  }
  return out;
}

std::vector<TextLine> decode_in_chunks(std::string_view bytes,
                                       const std::vector<std::size_t>& cuts) {
  std::vector<TextLine> lines;
  TextDecoder decoder([&](const TextLine& line) { lines.push_back(line); });
  std::size_t start = 0;
  for (const std::size_t cut : cuts) {
    decoder.feed(bytes.substr(start, cut - start));
    start = cut;
  }
  decoder.feed(bytes.substr(start));
  decoder.finish();
  return lines;
}

// Feeding byte by byte, and in two chunks split at every offset from `from`, gives the lines of
// one chunk.
void expect_same_for_every_split(std::string_view bytes, std::size_t from) {
  const auto whole = decode_all(bytes).lines;
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < bytes.size(); ++i) {
    every.push_back(i);
  }
  ASSERT_EQ(decode_in_chunks(bytes, every), whole) << "byte by byte";
  for (std::size_t i = from; i < bytes.size(); ++i) {
    ASSERT_EQ(decode_in_chunks(bytes, {i}), whole) << "split at " << i;
  }
}

const std::string k_gbk_message =
    "\xd5\xd2\xb2\xbb\xb5\xbd\xd6\xb8\xb6\xa8\xb5\xc4\xc4\xa3\xbf\xe9\xa1\xa3";
const std::string k_utf8_message = "找不到指定的模块。";

TEST(text_decode, utf8_without_bom_keeps_text_and_numbers_lines_from_one) {
  const auto d = decode_all("first\nsecond λ\n\nfourth");
  EXPECT_EQ(d.info.encoding, Encoding::utf8);
  EXPECT_FALSE(d.info.bom);
  ASSERT_EQ(texts(d), (Texts{"first", "second λ", "", "fourth"}));
  for (std::size_t i = 0; i < d.lines.size(); ++i) {
    EXPECT_EQ(d.lines[i].number, i + 1);
    EXPECT_EQ(d.lines[i].part, 0u);
  }
}

TEST(text_decode, final_newline_adds_no_empty_line_and_empty_input_has_none) {
  EXPECT_EQ(texts(decode_all("a\nb\n")), (Texts{"a", "b"}));
  EXPECT_TRUE(decode_all("").lines.empty());
  EXPECT_EQ(texts(decode_all("\n")), (Texts{""}));
}

TEST(text_decode, utf8_bom_is_removed_and_reported) {
  const auto d = decode_all("\xEF\xBB\xBFImportError: libcudnn.so.9\n");
  EXPECT_EQ(d.info.encoding, Encoding::utf8);
  EXPECT_TRUE(d.info.bom);
  EXPECT_EQ(texts(d), (Texts{"ImportError: libcudnn.so.9"}));
}

TEST(text_decode, utf16le_with_bom_and_crlf_as_powershell_writes_it) {
  const auto bytes =
      utf16(u"Traceback (most recent call last):\r\n  OSError: 找不到指定的模块。\r\n", true, true);
  const auto d = decode_all(bytes);
  EXPECT_EQ(d.info.encoding, Encoding::utf16le);
  EXPECT_TRUE(d.info.bom);
  EXPECT_TRUE(d.info.crlf_seen);
  EXPECT_EQ(texts(d),
            (Texts{"Traceback (most recent call last):", "  OSError: " + k_utf8_message}));
}

TEST(text_decode, utf16be_with_bom) {
  const auto d = decode_all(utf16(u"cudnn λ\nok", false, true));
  EXPECT_EQ(d.info.encoding, Encoding::utf16be);
  EXPECT_EQ(texts(d), (Texts{"cudnn λ", "ok"}));
}

TEST(text_decode, utf16_without_bom_is_detected_from_nul_bytes) {
  const auto le = decode_all(utf16(u"CUDA error: out of memory\n", true, false));
  EXPECT_EQ(le.info.encoding, Encoding::utf16le);
  EXPECT_FALSE(le.info.bom);
  EXPECT_EQ(texts(le), (Texts{"CUDA error: out of memory"}));
  const auto be = decode_all(utf16(u"CUDA error: out of memory\n", false, false));
  EXPECT_EQ(be.info.encoding, Encoding::utf16be);
  EXPECT_EQ(texts(be), (Texts{"CUDA error: out of memory"}));
}

TEST(text_decode, surrogate_pair_becomes_one_code_point) {
  const auto d = decode_all(utf16(u"ok \U0001F600!", true, true));
  EXPECT_EQ(texts(d), (Texts{"ok \xF0\x9F\x98\x80!"}));
  EXPECT_EQ(d.info.replacements, 0u);
}

TEST(text_decode, unpaired_surrogates_and_an_odd_byte_become_replacement_characters) {
  std::u16string s = u"a";
  s.push_back(static_cast<char16_t>(0xD83D)); // high without low
  s.push_back(u'b');
  s.push_back(static_cast<char16_t>(0xDE00)); // low alone
  const auto d = decode_all(utf16(s, true, true) + "x");
  EXPECT_EQ(texts(d),
            (Texts{"a\xEF\xBF\xBD"
                   "b\xEF\xBF\xBD\xEF\xBF\xBD"}));
  EXPECT_EQ(d.info.replacements, 3u);
}

TEST(text_decode, gbk_chinese_error_line_decodes_to_utf8) {
  const auto d = decode_all("OSError: [WinError 126] " + k_gbk_message + "\r\n");
  EXPECT_EQ(d.info.encoding, Encoding::gbk);
  EXPECT_EQ(texts(d), (Texts{"OSError: [WinError 126] " + k_utf8_message}));
  EXPECT_EQ(d.info.replacements, 0u);
}

TEST(text_decode, valid_utf8_chinese_is_not_taken_for_gbk) {
  const auto d = decode_all("OSError: " + k_utf8_message);
  EXPECT_EQ(d.info.encoding, Encoding::utf8);
  EXPECT_EQ(texts(d), (Texts{"OSError: " + k_utf8_message}));
}

TEST(text_decode, gb18030_four_byte_sequence_becomes_one_replacement) {
  const auto d = decode_all(k_gbk_message + "\x81\x30\x81\x30" + "x");
  EXPECT_EQ(d.info.encoding, Encoding::gbk);
  EXPECT_EQ(texts(d), (Texts{k_utf8_message + "\xEF\xBF\xBDx"}));
}

TEST(text_decode, utf8_line_in_a_gbk_input_keeps_every_character) {
  // Read as GBK, the last byte of "：" (EF BC 9A) would pair with the "C" after it.
  const std::string utf8_line = "错误：Could not load library cudnn_ops64_9.dll";
  const auto d = decode_all("OSError: [WinError 126] " + k_gbk_message + "\r\n" + utf8_line + "\r\n"
                            + k_gbk_message + "\r\n");
  EXPECT_EQ(d.info.encoding, Encoding::gbk);
  EXPECT_EQ(texts(d),
            (Texts{"OSError: [WinError 126] " + k_utf8_message, utf8_line, k_utf8_message}));
  EXPECT_EQ(d.info.replacements, 0u);
}

TEST(text_decode, gbk_input_decides_each_line_and_keeps_invalid_bytes_as_replacements) {
  // A GBK line with a stray byte stays GBK (U+FFFD for the stray byte); an invalid UTF-8 line is
  // not valid UTF-8, so it is read as GBK too; a final UTF-8 line without LF is still UTF-8.
  const std::string bytes = k_gbk_message + "\n" + k_gbk_message + "\x80x\n" + "\xC3(\n" + "λ end";
  const auto d = decode_all(bytes);
  EXPECT_EQ(d.info.encoding, Encoding::gbk);
  EXPECT_EQ(texts(d),
            (Texts{k_utf8_message, k_utf8_message + "\xEF\xBF\xBDx", "\xEF\xBF\xBD(", "λ end"}));
  EXPECT_EQ(d.info.replacements, 2u);
}

TEST(text_decode, gbk_input_with_a_utf8_line_cut_at_its_end_reads_it_as_gbk) {
  // The last line ends inside a UTF-8 sequence: not valid UTF-8, so GBK decodes it.
  const auto d = decode_all(k_gbk_message + "\n" + "ab\xE9\x94");
  EXPECT_EQ(d.info.encoding, Encoding::gbk);
  ASSERT_EQ(d.lines.size(), 2u);
  EXPECT_EQ(d.lines[1].text, "ab\xE9\x96\xBF"); // GBK E9 94 is U+95BF
}

TEST(text_decode, long_utf8_line_in_a_gbk_input_is_judged_by_its_start_and_cut) {
  const std::string long_line = repeat("错误：Could not load ", 8); // over the cap of 64
  // Detection needs the GBK lines to outweigh the UTF-8 one in the sample.
  const std::string bytes = repeat(k_gbk_message + "\n", 40) + long_line + "\n" + k_gbk_message;
  std::vector<TextLine> lines;
  TextDecoder decoder([&](const TextLine& line) { lines.push_back(line); }, 64);
  decoder.feed(bytes);
  decoder.finish();
  EXPECT_EQ(decoder.info().encoding, Encoding::gbk);
  ASSERT_EQ(lines.size(), 42u);
  EXPECT_TRUE(lines[40].cut);
  EXPECT_TRUE(lines[40].text.starts_with("错误：Could not load 错误："));
  EXPECT_EQ(lines[41].text, k_utf8_message);
  EXPECT_EQ(decoder.info().replacements, 0u);
}

TEST(text_decode, mixed_gbk_and_utf8_lines_split_anywhere_give_the_same_result) {
  const std::string bytes =
      repeat(repeat(k_gbk_message + "\r\n", 3) + "错误：Could not load x\n", 60);
  ASSERT_GT(bytes.size(), k_sniff_bytes);
  expect_same_for_every_split(bytes, bytes.size() - 90);
  const auto d = decode_all(bytes);
  EXPECT_EQ(d.info.encoding, Encoding::gbk);
  EXPECT_EQ(d.lines.back().text, "错误：Could not load x");
}

TEST(text_decode, ansi_colours_of_tensorflow_and_pytorch_lines_are_removed) {
  const auto d = decode_all(
      "\x1b[1;31mE tensorflow/core/common_runtime/gpu/gpu_device.cc:2020]\x1b[0m Could not load "
      "dynamic library 'libcudnn.so.8'\n"
      "\x1b]8;;https://pytorch.org\x07link\x1b]8;;\x1b\\ \x1b(Btorch\x1b[K\n");
  EXPECT_TRUE(d.info.ansi_removed);
  EXPECT_EQ(texts(d),
            (Texts{"E tensorflow/core/common_runtime/gpu/gpu_device.cc:2020] Could not load "
                   "dynamic library 'libcudnn.so.8'",
                   "link torch"}));
}

TEST(text_decode, unterminated_escape_ends_at_a_line_feed) {
  const auto d = decode_all("a\x1b]title never ends\nb\x1b[12\nc");
  EXPECT_EQ(texts(d), (Texts{"a", "b", "c"}));
}

TEST(text_decode, syslog_traceback_is_expanded_into_lines_sharing_the_line_number) {
  const auto d = decode_all(
      "boot ok\n"
      "python[123]: Traceback (most recent call last):#012  File \"x.py\", "
      "line 1, in <module>#012RuntimeError: CUDA error\n"
      "next\n");
  EXPECT_TRUE(d.info.syslog_expanded);
  ASSERT_EQ(texts(d),
            (Texts{"boot ok",
                   "python[123]: Traceback (most recent call last):",
                   "  File \"x.py\", line 1, in <module>",
                   "RuntimeError: CUDA error",
                   "next"}));
  EXPECT_EQ(d.lines[1].number, 2u);
  EXPECT_EQ(d.lines[2].number, 2u);
  EXPECT_EQ(d.lines[3].number, 2u);
  EXPECT_EQ(d.lines[3].part, 2u);
  EXPECT_EQ(d.lines[4].number, 3u);
}

TEST(text_decode, syslog_tabs_are_expanded_only_with_the_traceback_convention) {
  const auto d = decode_all("kernel: x#012#011RuntimeError: boom#011!\n");
  EXPECT_EQ(texts(d), (Texts{"kernel: x", "\tRuntimeError: boom\t!"}));
  const auto plain = decode_all("fixed in #0123, see #012 and #011 here\n");
  EXPECT_FALSE(plain.info.syslog_expanded);
  EXPECT_EQ(texts(plain), (Texts{"fixed in #0123, see #012 and #011 here"}));
}

TEST(text_decode, overlong_line_is_cut_with_a_marker_and_the_next_line_survives) {
  const std::string long_line(1000, 'x');
  const auto d = decode_all(long_line + "\nshort\n", 100);
  ASSERT_EQ(d.lines.size(), 2u);
  EXPECT_TRUE(d.lines[0].cut);
  EXPECT_LE(d.lines[0].text.size(), 100u);
  EXPECT_TRUE(std::string_view(d.lines[0].text).ends_with(k_cut_marker));
  EXPECT_EQ(d.lines[1].text, "short");
  EXPECT_EQ(d.lines[1].number, 2u);
  EXPECT_EQ(d.info.cut_lines, 1u);
}

TEST(text_decode, cut_never_splits_a_character) {
  const auto d = decode_all(repeat("λ", 100), 64);
  ASSERT_EQ(d.lines.size(), 1u);
  const std::string& t = d.lines[0].text;
  EXPECT_EQ(t.substr(0, t.size() - k_cut_marker.size()),
            repeat("λ", (64 - k_cut_marker.size()) / 2));
}

TEST(text_decode, invalid_utf8_becomes_replacement_characters) {
  // A stray continuation byte, an overlong encoding, a surrogate, a truncated sequence.
  const auto d = decode_all(
      "a\x80"
      "b\xC0\xAF"
      "c\xED\xA0\x80"
      "d\xE2\x82");
  EXPECT_EQ(texts(d),
            (Texts{"a\xEF\xBF\xBD"
                   "b\xEF\xBF\xBD\xEF\xBF\xBD"
                   "c\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
                   "d\xEF\xBF\xBD"}));
}

TEST(text_decode, lone_carriage_return_stays_and_crlf_is_reported) {
  const auto d = decode_all("50%\r100%\nend\r\n");
  EXPECT_EQ(texts(d), (Texts{"50%\r100%", "end"}));
  EXPECT_TRUE(d.info.crlf_seen);
  EXPECT_FALSE(decode_all("a\nb\n").info.crlf_seen);
}

TEST(text_decode, utf8_chunk_boundaries_do_not_change_the_result) {
  const std::string bytes =
      repeat("λ 错误 \xF0\x9F\x98\x80\r\n", 300) + "\x1b[31mred\x1b[0m\r\nend\r";
  ASSERT_GT(bytes.size(), k_sniff_bytes);
  expect_same_for_every_split(bytes, bytes.size() - 80);
}

TEST(text_decode, utf16_chunk_boundaries_do_not_change_the_result) {
  const std::string bytes = utf16(u"line \U0001F600 λ\r\n" + std::u16string(200, u'x') + u"\r\n"
                                      + std::u16string(2000, u'y') + u"\r\n\U0001F600\r\nend",
                                  true,
                                  true);
  ASSERT_GT(bytes.size(), k_sniff_bytes);
  expect_same_for_every_split(bytes, bytes.size() - 80);
  EXPECT_EQ(texts(decode_all(bytes)).back(), "end");
}

TEST(text_decode, gbk_chunk_boundaries_do_not_change_the_result) {
  const std::string bytes = repeat("OSError: " + k_gbk_message + "\r\n", 200) + k_gbk_message;
  ASSERT_GT(bytes.size(), k_sniff_bytes);
  expect_same_for_every_split(bytes, bytes.size() - 60);
  const auto d = decode_all(bytes);
  EXPECT_EQ(d.info.encoding, Encoding::gbk);
  EXPECT_EQ(d.lines.back().text, k_utf8_message);
  EXPECT_EQ(d.lines.back().number, 201u);
}

TEST(text_decode, short_input_split_anywhere_gives_the_same_result) {
  const std::string bytes =
      "\xEF\xBB\xBF"
      "a\r\nλ\x1b[1m#\r\n"
      + k_utf8_message;
  expect_same_for_every_split(bytes, 1);
}

TEST(text_decode, streaming_hands_out_lines_before_finish) {
  std::vector<TextLine> lines;
  TextDecoder decoder([&](const TextLine& line) { lines.push_back(line); });
  decoder.feed(repeat("0123456789abcde\n", 300)); // more than the sniffed prefix
  EXPECT_EQ(lines.size(), 300u);
  decoder.feed("partial");
  EXPECT_EQ(lines.size(), 300u);
  decoder.finish();
  decoder.finish();
  ASSERT_EQ(lines.size(), 301u);
  EXPECT_EQ(lines.back().text, "partial");
  EXPECT_EQ(lines.back().number, 301u);
}

TEST(text_decode, encoding_names) {
  EXPECT_EQ(encoding_name(Encoding::utf8), "utf-8");
  EXPECT_EQ(encoding_name(Encoding::utf16le), "utf-16le");
  EXPECT_EQ(encoding_name(Encoding::utf16be), "utf-16be");
  EXPECT_EQ(encoding_name(Encoding::gbk), "gbk");
}

} // namespace
} // namespace doctor::util
