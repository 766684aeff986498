// SPDX-License-Identifier: MIT
// The input layer of `explain`: raw bytes of a pasted or redirected error log become numbered
// UTF-8 lines, read as a stream with memory bounded by the line cap.
//
// Detection rules (decided once per stream, from a fixed prefix, so the result never depends on
// how the input was cut into chunks):
// - A BOM decides: EF BB BF UTF-8, FF FE UTF-16LE (PowerShell `>`), FE FF UTF-16BE.
// - Otherwise the first k_sniff_bytes bytes (or all of a shorter input) are the sample:
//   * UTF-16 without BOM: at least 8 bytes, NUL at >= 50% of the odd offsets and <= 5% of the even
//     offsets is UTF-16LE (ASCII text "A\0B\0"); the mirror image is UTF-16BE.
//   * UTF-8 if the sample has no invalid UTF-8 (an incomplete sequence at its very end is not
//     counted: the sample may cut a character).
//   * GBK if the sample is not valid UTF-8 but its bytes >= 0x80 form GBK double-byte characters:
//     at least one valid pair (or GB18030 four-byte sequence) and at most one stray high byte
//     per 8 of them.
//   * UTF-8 otherwise (invalid bytes become U+FFFD).
//   A log that is ASCII for its first 4 KiB and GBK after that is therefore read as UTF-8.
// - In a GBK input, a line whose bytes are valid UTF-8 is decoded as UTF-8 (a UTF-8 line such as
//   `错误：Could not load …` read as GBK would pair its last byte with the `C`), every other line
//   as GBK. A line longer than the cap is judged by its first cap bytes.
// - GBK is decoded by gbk_table.inc (two-byte codes, generated from Python's codec); GB18030's
//   four-byte sequences (lead, 0x30-0x39, lead, 0x30-0x39) become one U+FFFD.
// - Invalid input in any encoding becomes U+FFFD (UTF-8: one per maximal invalid subpart, as
//   Unicode recommends), never an error.
//
// Cleaning, on the decoded text:
// - ANSI escapes are removed: CSI (ESC [ parameters/intermediates, up to a final byte 0x40-0x7E),
//   OSC (ESC ] ... up to BEL or ESC \), and other escapes: ESC, intermediate bytes 0x20-0x2F
//   (ESC ( B), and one more character. A line feed inside an unterminated CSI/OSC ends the
//   escape, so a hostile escape never swallows the following lines.
// - Lines split at LF; one CR before the LF is removed (CRLF); a lone CR stays in the line. Empty
//   lines are kept. A final line without LF is a line; a final LF adds no empty line.
// - A line longer than the cap keeps its first bytes (at a character boundary) plus k_cut_marker.
// - rsyslog escapes control characters as `#ooo` (octal): `#012` for LF, `#011` for TAB. A line is
//   expanded only when it shows that convention: it contains `#012` and at least one `#012` is
//   followed (after spaces and `#011`s) by traceback text: `Traceback (`, `File "`,
//   `During handling of the above exception`, `The above exception was`, or an exception name
//   (identifier with dots ending in Error, Exception, Warning, Exit or Interrupt) followed by `:`
//   or the end of the line. Such a line is split at every `#012` and its `#011`s become tabs; the
//   pieces share the physical line's number and count `part` from 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::util {

enum class Encoding { utf8, utf16le, utf16be, gbk };

// Returns "utf-8", "utf-16le", "utf-16be" or "gbk".
std::string_view encoding_name(Encoding e);

// The default cap on one line's bytes, the marker included.
inline constexpr std::size_t k_max_line_bytes = std::size_t{64} * 1024;
// The bytes looked at to detect an encoding without BOM.
inline constexpr std::size_t k_sniff_bytes = 4096;
// Ends a line that was cut at the cap.
inline constexpr std::string_view k_cut_marker = " \xE2\x80\xA6[line cut]";

// What the decoder found; complete once finish() has run.
struct DecodeInfo {
  Encoding encoding = Encoding::utf8;
  bool bom = false;             // the encoding came from a byte order mark
  bool crlf_seen = false;       // at least one line ended in CR LF
  bool ansi_removed = false;    // at least one ANSI escape was removed
  bool syslog_expanded = false; // at least one line's #012/#011 escapes were expanded
  std::size_t replacements = 0; // U+FFFD written for invalid input
  std::size_t cut_lines = 0;    // lines cut at the cap
  // Set by explain's scanner, not the decoder: the console width the head's lines were cut at,
  // and how many lines were joined into the ones before them (explain/hard_wrap.hpp).
  std::size_t wrap_width = 0;
  std::size_t wrap_joined = 0;
};

// One output line: valid UTF-8 without LF, at most the cap in bytes.
struct TextLine {
  std::size_t number = 0; // 1-based physical line of the input
  std::size_t part = 0;   // 0, or the piece of a syslog-expanded line
  std::string text;
  bool cut = false;     // the line was longer than the cap and ends in k_cut_marker
  std::size_t span = 1; // physical lines it covers: more when lines cut at a console's width
                        // were joined again (explain/hard_wrap.hpp)

  bool operator==(const TextLine&) const = default;
};

struct DecodedText {
  std::vector<TextLine> lines;
  DecodeInfo info;
};

// Streaming decoder. feed() any chunks, then finish(); every complete line goes to the sink as
// soon as it is known. Memory is bounded by twice the cap plus k_sniff_bytes, whatever the input
// size.
// The output is the same however the input is cut into chunks.
class TextDecoder {
public:
  using LineSink = std::function<void(const TextLine&)>;

  // `max_line_bytes` is raised to at least 64.
  explicit TextDecoder(LineSink sink, std::size_t max_line_bytes = k_max_line_bytes);

  // Consumes `bytes`, calling the sink for each line completed; ignored after finish().
  void feed(std::string_view bytes);

  // Flushes incomplete sequences (as U+FFFD) and the last line. Calling it again does nothing.
  void finish();

  // What was detected so far; the encoding is final once k_sniff_bytes were fed or after finish().
  const DecodeInfo& info() const { return m_info; }

  // Skips detection: the input is in `encoding` (a BOM is then not removed). Call before feed().
  void force_encoding(Encoding encoding);

  // The number the next line will get; set it before feed() to number a part of a larger input.
  std::size_t next_line_number() const { return m_line_number; }
  void set_next_line_number(std::size_t number) { m_line_number = number; }

private:
  enum class EscState { none, esc, csi, osc, osc_esc };

  void detect();
  void decode_bytes(std::string_view bytes);
  void decode_utf8(unsigned char b);
  void decode_utf16(unsigned char b);
  void decode_gbk(unsigned char b);
  void decode_gbk_lines(std::string_view bytes);
  void decide_line_mode(bool whole);
  void flush_raw_line();
  void decode_in_line_mode(std::string_view bytes);
  void flush_decoder();
  void put_invalid();
  void put(std::uint32_t cp);
  void append(std::uint32_t cp);
  void end_line(bool by_lf);

  LineSink m_sink;
  std::size_t m_max_line_bytes;
  DecodeInfo m_info;
  bool m_detected = false;
  bool m_finished = false;
  std::string m_sniff; // bytes held until the encoding is known

  // Decoder state: UTF-8 (remaining continuation bytes, bounds of the next), UTF-16 (held byte,
  // high surrogate), GBK (held bytes of a sequence).
  std::uint32_t m_cp = 0;
  int m_need = 0;
  unsigned char m_lo = 0x80;
  unsigned char m_hi = 0xBF;
  int m_held_count = 0;
  unsigned char m_held = 0;
  std::uint32_t m_high_surrogate = 0;
  unsigned char m_gbk[3] = {0, 0, 0};
  int m_gbk_count = 0;
  // A GBK input is judged line by line: the raw bytes of the current line until its LF (at most
  // the cap), and how the line is decoded once that is known.
  enum class LineMode { undecided, utf8, gbk };
  std::string m_raw;
  LineMode m_line_mode = LineMode::undecided;

  EscState m_esc = EscState::none;
  std::string m_line;
  bool m_cut = false;
  std::size_t m_line_number = 1;
};

// True if `bytes` is valid UTF-8 to its end (the decoder would replace nothing in it).
bool is_valid_utf8(std::string_view bytes);

// Decodes a whole input at once: feed(bytes), then finish().
DecodedText decode_all(std::string_view bytes, std::size_t max_line_bytes = k_max_line_bytes);

} // namespace doctor::util
