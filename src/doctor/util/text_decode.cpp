// SPDX-License-Identifier: MIT
// The decoder is a pipeline of byte-at-a-time state machines (bytes -> code points -> escape
// removal -> lines), so a chunk boundary can fall anywhere: every state that spans bytes (a UTF-8
// sequence, a UTF-16 unit or surrogate pair, a GBK pair, an ANSI escape, a CR before LF, a partial
// line) lives in the decoder between calls. Only encoding detection looks ahead, and only at a
// fixed-size prefix held in m_sniff.
#include <doctor/util/strings.hpp>
#include <doctor/util/text_decode.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace doctor::util {

namespace {

constexpr std::uint32_t k_replacement = 0xFFFD;
constexpr std::size_t k_min_line_bytes = 64;

constexpr std::size_t k_gbk_trails = 191; // trail bytes 0x40-0xFE
constexpr std::array<std::uint16_t, std::size_t{126}* k_gbk_trails> k_gbk_table = {
#include <doctor/util/gbk_table.inc>
};

// The code point of GBK pair (lead, trail), or 0 if the pair is not a GBK character.
std::uint32_t gbk_lookup(unsigned char lead, unsigned char trail) {
  if (lead < 0x81 || lead > 0xFE || trail < 0x40 || trail > 0xFE) {
    return 0;
  }
  return k_gbk_table[static_cast<std::size_t>(lead - 0x81) * k_gbk_trails + (trail - 0x40)];
}

std::size_t utf8_length(std::uint32_t cp) {
  if (cp < 0x80) {
    return 1;
  }
  if (cp < 0x800) {
    return 2;
  }
  return cp < 0x10000 ? 3 : 4;
}

// Counts invalid UTF-8 in `s`; an incomplete sequence at the very end is not counted, but sets
// `cut_end` when given.
std::size_t utf8_errors(std::string_view s, bool* cut_end = nullptr) {
  std::size_t errors = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int need = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      lo = c == 0xE0 ? 0xA0 : 0x80;
      hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
      ++errors;
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    bool ok = true;
    for (int k = 0; k < need; ++k, ++j) {
      if (j >= s.size()) {
        if (cut_end != nullptr) {
          *cut_end = true;
        }
        return errors; // cut by the end of the sample
      }
      const auto b = static_cast<unsigned char>(s[j]);
      if (b < lo || b > hi) {
        ok = false;
        break;
      }
      lo = 0x80;
      hi = 0xBF;
    }
    if (!ok) {
      ++errors;
    }
    i = j;
  }
  return errors;
}

// True if the high bytes of `s` read as GBK pairs (the rule in the header).
bool looks_like_gbk(std::string_view s) {
  std::size_t good = 0;
  std::size_t bad = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
    } else if (i + 3 < s.size() && c >= 0x81 && c <= 0xFE && s[i + 1] >= 0x30 && s[i + 1] <= 0x39
               && static_cast<unsigned char>(s[i + 2]) >= 0x81 && s[i + 3] >= 0x30
               && s[i + 3] <= 0x39) {
      ++good; // a GB18030 four-byte sequence
      i += 4;
    } else if (i + 1 == s.size()) {
      break; // a lead byte cut by the end of the sample
    } else if (gbk_lookup(c, static_cast<unsigned char>(s[i + 1])) != 0) {
      ++good;
      i += 2;
    } else {
      ++bad;
      ++i;
    }
  }
  return good > 0 && bad * 8 <= good;
}

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
         || c == '.';
}

// True if `s` starts with traceback text (the rule in the header), after spaces and #011.
bool starts_traceback_text(std::string_view s) {
  while (true) {
    if (s.starts_with(' ')) {
      s.remove_prefix(1);
    } else if (s.starts_with("#011")) {
      s.remove_prefix(4);
    } else {
      break;
    }
  }
  for (const std::string_view marker : {std::string_view("Traceback ("),
                                        std::string_view("File \""),
                                        std::string_view("During handling of the above exception"),
                                        std::string_view("The above exception was")}) {
    if (s.starts_with(marker)) {
      return true;
    }
  }
  std::size_t n = 0;
  while (n < s.size() && is_ident_char(s[n])) {
    ++n;
  }
  const std::string_view name = s.substr(0, n);
  const std::string_view rest = s.substr(n);
  if (rest.empty() || rest.starts_with(':') || rest.starts_with("#012")) {
    for (const std::string_view suffix : {std::string_view("Error"),
                                          std::string_view("Exception"),
                                          std::string_view("Warning"),
                                          std::string_view("Exit"),
                                          std::string_view("Interrupt")}) {
      if (name.size() > suffix.size() && name.ends_with(suffix)) {
        return true;
      }
    }
  }
  return false;
}

bool shows_syslog_escapes(std::string_view line) {
  for (std::size_t pos = line.find("#012"); pos != std::string_view::npos;
       pos = line.find("#012", pos + 4)) {
    if (starts_traceback_text(line.substr(pos + 4))) {
      return true;
    }
  }
  return false;
}

} // namespace

std::string_view encoding_name(Encoding e) {
  switch (e) {
  case Encoding::utf8:
    return "utf-8";
  case Encoding::utf16le:
    return "utf-16le";
  case Encoding::utf16be:
    return "utf-16be";
  case Encoding::gbk:
    return "gbk";
  }
  return "utf-8";
}

bool is_valid_utf8(std::string_view bytes) {
  // ASCII eight bytes at a time, the rest by the full rules.
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t x = 0;
    std::memcpy(&x, bytes.data() + i, 8);
    if ((x & 0x8080808080808080ULL) != 0) {
      break;
    }
  }
  bool cut_end = false;
  return utf8_errors(bytes.substr(i), &cut_end) == 0 && !cut_end;
}

TextDecoder::TextDecoder(LineSink sink, std::size_t max_line_bytes)
    : m_sink(std::move(sink))
    , m_max_line_bytes(max_line_bytes < k_min_line_bytes ? k_min_line_bytes : max_line_bytes) {}

void TextDecoder::feed(std::string_view bytes) {
  if (m_finished) {
    return;
  }
  if (!m_detected) {
    const std::size_t take = std::min(bytes.size(), k_sniff_bytes - m_sniff.size());
    m_sniff.append(bytes.substr(0, take));
    bytes.remove_prefix(take);
    if (m_sniff.size() < k_sniff_bytes) {
      return;
    }
    detect();
  }
  decode_bytes(bytes);
}

void TextDecoder::finish() {
  if (m_finished) {
    return;
  }
  if (!m_detected) {
    detect();
  }
  if (!m_raw.empty()) {
    flush_raw_line();
  }
  flush_decoder();
  m_finished = true;
  if (!m_line.empty() || m_cut) {
    end_line(false);
  }
}

void TextDecoder::force_encoding(Encoding encoding) {
  m_info.encoding = encoding;
  m_detected = true;
}

// Decides the encoding from m_sniff (the header's rules), then decodes the sample.
void TextDecoder::detect() {
  m_detected = true;
  std::string sample = std::exchange(m_sniff, std::string());
  std::string_view s = sample;
  if (s.starts_with("\xEF\xBB\xBF")) {
    m_info.encoding = Encoding::utf8;
    m_info.bom = true;
    s.remove_prefix(3);
  } else if (s.starts_with("\xFF\xFE")) {
    m_info.encoding = Encoding::utf16le;
    m_info.bom = true;
    s.remove_prefix(2);
  } else if (s.starts_with("\xFE\xFF")) {
    m_info.encoding = Encoding::utf16be;
    m_info.bom = true;
    s.remove_prefix(2);
  } else {
    std::size_t nul_even = 0;
    std::size_t nul_odd = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\0') {
        ++(i % 2 == 0 ? nul_even : nul_odd);
      }
    }
    const std::size_t pairs = s.size() / 2;
    if (s.size() >= 8 && nul_odd * 2 >= pairs && nul_even * 20 <= pairs) {
      m_info.encoding = Encoding::utf16le;
    } else if (s.size() >= 8 && nul_even * 2 >= pairs && nul_odd * 20 <= pairs) {
      m_info.encoding = Encoding::utf16be;
    } else if (utf8_errors(s) > 0 && looks_like_gbk(s)) {
      m_info.encoding = Encoding::gbk;
    } else {
      m_info.encoding = Encoding::utf8;
    }
  }
  decode_bytes(s);
}

void TextDecoder::decode_bytes(std::string_view bytes) {
  if (m_info.encoding == Encoding::gbk) {
    decode_gbk_lines(bytes);
    return;
  }
  for (const char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    switch (m_info.encoding) {
    case Encoding::utf8:
      decode_utf8(b);
      break;
    case Encoding::utf16le:
    case Encoding::utf16be:
      decode_utf16(b);
      break;
    case Encoding::gbk:
      decode_gbk(b);
      break;
    }
  }
}

// A GBK input often holds UTF-8 lines too (a program's own messages, pasted text): the raw
// bytes of each line are held until its LF (LF is never part of a GBK or UTF-8 sequence), then
// the line is decoded as UTF-8 if it is valid UTF-8 and as GBK otherwise. A line longer than the
// cap is judged by its first m_max_line_bytes bytes and the rest of it follows that judgement,
// so memory stays bounded and the result does not depend on how the input was cut.
void TextDecoder::decode_gbk_lines(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t lf = bytes.find('\n');
    if (m_line_mode != LineMode::undecided) {
      const std::size_t take = lf == std::string_view::npos ? bytes.size() : lf + 1;
      decode_in_line_mode(bytes.substr(0, take));
      if (lf != std::string_view::npos) {
        m_line_mode = LineMode::undecided;
      }
      bytes.remove_prefix(take);
      continue;
    }
    const std::size_t text = lf == std::string_view::npos ? bytes.size() : lf;
    const std::size_t room = m_max_line_bytes - m_raw.size();
    if (text > room) {
      m_raw.append(bytes.substr(0, room));
      bytes.remove_prefix(room);
      decide_line_mode(false);
      decode_in_line_mode(std::exchange(m_raw, std::string()));
      continue;
    }
    m_raw.append(bytes.substr(0, text));
    bytes.remove_prefix(text);
    if (lf != std::string_view::npos) {
      flush_raw_line();
      decode_in_line_mode("\n");
      m_line_mode = LineMode::undecided;
      bytes.remove_prefix(1);
    }
  }
}

// Judges the held bytes of a GBK input's line: UTF-8 if they are valid UTF-8. Unless they are
// the `whole` line (only its first cap bytes), a sequence cut at their end does not count.
void TextDecoder::decide_line_mode(bool whole) {
  bool cut_end = false;
  const bool valid = utf8_errors(m_raw, &cut_end) == 0 && (!whole || !cut_end);
  m_line_mode = valid ? LineMode::utf8 : LineMode::gbk;
}

// Decodes the held bytes of a whole line (its LF not included) in the mode they call for.
void TextDecoder::flush_raw_line() {
  decide_line_mode(true);
  decode_in_line_mode(std::exchange(m_raw, std::string()));
}

void TextDecoder::decode_in_line_mode(std::string_view bytes) {
  for (const char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    if (m_line_mode == LineMode::utf8) {
      decode_utf8(b);
    } else {
      decode_gbk(b);
    }
  }
}

// Unicode's "maximal subpart" rule: a byte that cannot continue the sequence ends it with one
// U+FFFD and is read again as a start byte.
void TextDecoder::decode_utf8(unsigned char b) {
  if (m_need > 0) {
    if (b >= m_lo && b <= m_hi) {
      m_cp = (m_cp << 6) | (b & 0x3Fu);
      m_lo = 0x80;
      m_hi = 0xBF;
      if (--m_need == 0) {
        put(m_cp);
      }
      return;
    }
    m_need = 0;
    put_invalid();
  }
  m_lo = 0x80;
  m_hi = 0xBF;
  if (b < 0x80) {
    put(b);
  } else if (b >= 0xC2 && b <= 0xDF) {
    m_need = 1;
    m_cp = b & 0x1Fu;
  } else if (b >= 0xE0 && b <= 0xEF) {
    m_need = 2;
    m_cp = b & 0x0Fu;
    m_lo = b == 0xE0 ? 0xA0 : 0x80;
    m_hi = b == 0xED ? 0x9F : 0xBF;
  } else if (b >= 0xF0 && b <= 0xF4) {
    m_need = 3;
    m_cp = b & 0x07u;
    m_lo = b == 0xF0 ? 0x90 : 0x80;
    m_hi = b == 0xF4 ? 0x8F : 0xBF;
  } else {
    put_invalid();
  }
}

void TextDecoder::decode_utf16(unsigned char b) {
  if (m_held_count == 0) {
    m_held = b;
    m_held_count = 1;
    return;
  }
  m_held_count = 0;
  const std::uint32_t unit = m_info.encoding == Encoding::utf16le
                                 ? (static_cast<std::uint32_t>(b) << 8) | m_held
                                 : (static_cast<std::uint32_t>(m_held) << 8) | b;
  const bool high = unit >= 0xD800 && unit <= 0xDBFF;
  const bool low = unit >= 0xDC00 && unit <= 0xDFFF;
  if (m_high_surrogate != 0) {
    const std::uint32_t h = std::exchange(m_high_surrogate, 0);
    if (low) {
      put(0x10000 + ((h - 0xD800) << 10) + (unit - 0xDC00));
      return;
    }
    put_invalid();
  }
  if (high) {
    m_high_surrogate = unit;
  } else if (low) {
    put_invalid();
  } else {
    put(unit);
  }
}

// Two-byte GBK by table; GB18030 four-byte sequences (second byte 0x30-0x39) become one U+FFFD.
// A lead byte followed by a byte that cannot be a trail gives U+FFFD, and that byte is read again.
void TextDecoder::decode_gbk(unsigned char b) {
  if (m_gbk_count == 0) {
    if (b < 0x80) {
      put(b);
    } else if (b >= 0x81 && b <= 0xFE) {
      m_gbk[m_gbk_count++] = b;
    } else {
      put_invalid();
    }
    return;
  }
  if (m_gbk_count == 1) {
    if (b >= 0x30 && b <= 0x39) {
      m_gbk[m_gbk_count++] = b;
      return;
    }
    m_gbk_count = 0;
    if (b >= 0x40 && b <= 0xFE && b != 0x7F) {
      const std::uint32_t cp = gbk_lookup(m_gbk[0], b);
      if (cp != 0) {
        put(cp);
      } else {
        put_invalid();
      }
      return;
    }
    put_invalid();
    decode_gbk(b);
    return;
  }
  const bool expected = m_gbk_count == 2 ? (b >= 0x81 && b <= 0xFE) : (b >= 0x30 && b <= 0x39);
  if (!expected) {
    m_gbk_count = 0;
    put_invalid();
    decode_gbk(b);
    return;
  }
  if (m_gbk_count == 2) {
    m_gbk[m_gbk_count++] = b;
    return;
  }
  m_gbk_count = 0;
  put_invalid();
}

void TextDecoder::flush_decoder() {
  if (m_need > 0) {
    m_need = 0;
    put_invalid();
  }
  if (m_held_count > 0) {
    m_held_count = 0;
    put_invalid();
  }
  if (m_high_surrogate != 0) {
    m_high_surrogate = 0;
    put_invalid();
  }
  if (m_gbk_count > 0) {
    m_gbk_count = 0;
    put_invalid();
  }
}

void TextDecoder::put_invalid() {
  ++m_info.replacements;
  put(k_replacement);
}

// The escape-removal state machine, then line splitting.
void TextDecoder::put(std::uint32_t cp) {
  switch (m_esc) {
  case EscState::none:
    break;
  case EscState::esc:
    if (cp >= 0x20 && cp <= 0x2F) {
      return; // intermediate bytes, as in ESC ( B
    }
    m_esc = EscState::none;
    if (cp == '[') {
      m_esc = EscState::csi;
      return;
    }
    if (cp == ']') {
      m_esc = EscState::osc;
      return;
    }
    if (cp != '\n') {
      return; // ESC + one character
    }
    break;
  case EscState::csi:
    if (cp >= 0x20 && cp <= 0x3F) {
      return; // parameter and intermediate bytes
    }
    m_esc = EscState::none;
    if (cp >= 0x40 && cp <= 0x7E) {
      return; // the final byte
    }
    break; // not a CSI character: the escape ends, the character is text
  case EscState::osc:
    if (cp == 0x07 || cp == 0x9C) {
      m_esc = EscState::none;
      return;
    }
    if (cp == 0x1B) {
      m_esc = EscState::osc_esc;
      return;
    }
    if (cp != '\n') {
      return;
    }
    m_esc = EscState::none;
    break;
  case EscState::osc_esc:
    m_esc = EscState::none;
    if (cp == '\\') {
      return;
    }
    break;
  }
  if (cp == 0x1B) {
    m_esc = EscState::esc;
    m_info.ansi_removed = true;
    return;
  }
  if (cp == '\n') {
    end_line(true);
    return;
  }
  append(cp);
}

void TextDecoder::append(std::uint32_t cp) {
  if (m_cut) {
    return;
  }
  if (m_line.size() + utf8_length(cp) > m_max_line_bytes - k_cut_marker.size()) {
    m_cut = true;
    return;
  }
  append_utf8(m_line, cp);
}

void TextDecoder::end_line(bool by_lf) {
  if (!m_cut && !m_line.empty() && m_line.back() == '\r') {
    m_line.pop_back();
    if (by_lf) {
      m_info.crlf_seen = true;
    }
  }
  TextLine line;
  line.number = m_line_number++;
  line.cut = std::exchange(m_cut, false);
  if (line.cut) {
    ++m_info.cut_lines;
  }
  std::string text = std::exchange(m_line, std::string());
  if (line.cut) {
    text.append(k_cut_marker);
  }
  if (!shows_syslog_escapes(text)) {
    line.text = std::move(text);
    m_sink(line);
    return;
  }
  m_info.syslog_expanded = true;
  std::string_view rest = text;
  while (true) {
    const std::size_t pos = rest.find("#012");
    std::string piece;
    const std::string_view raw = rest.substr(0, pos);
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw.substr(i).starts_with("#011")) {
        piece.push_back('\t');
        i += 3;
      } else {
        piece.push_back(raw[i]);
      }
    }
    line.text = std::move(piece);
    m_sink(line);
    if (pos == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(pos + 4);
    ++line.part;
  }
}

DecodedText decode_all(std::string_view bytes, std::size_t max_line_bytes) {
  DecodedText out;
  TextDecoder decoder([&out](const TextLine& line) { out.lines.push_back(line); }, max_line_bytes);
  decoder.feed(bytes);
  decoder.finish();
  out.info = decoder.info();
  return out;
}

} // namespace doctor::util
