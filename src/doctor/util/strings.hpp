// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::util {

// Returns `s` without leading and trailing ASCII whitespace.
std::string_view trim(std::string_view s);
// Returns `s` without trailing ASCII whitespace.
std::string_view trim_right(std::string_view s);

// Splits `s` at every `sep`; keeps empty fields.
std::vector<std::string_view> split(std::string_view s, char sep);

// Splits `s` into lines, accepting "\n" and "\r\n"; a final newline adds no empty line.
std::vector<std::string_view> split_lines(std::string_view s);
// The first line of `rest` (without its "\n" or "\r\n"), taken off `rest`: split_lines one line at
// a time, for a search that stops early and must not touch the rest of a mapped file.
std::string_view take_line(std::string_view& rest);

// Joins `parts` with `sep` between them.
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// Returns `s` with ASCII letters lower-cased.
std::string to_lower(std::string_view s);

// Parses a whole decimal number; nullopt if `s` is empty, has other characters or overflows.
std::optional<std::uint64_t> parse_uint(std::string_view s);

// Parses a whole hexadecimal number with an optional "0x" prefix; nullopt on any junk.
std::optional<std::uint64_t> parse_hex(std::string_view s);

// Returns `s` made safe to print: control characters and invalid UTF-8 become "?", and text
// longer than `max_len` bytes is cut with a trailing "…".
std::string sanitize(std::string_view s, std::size_t max_len = 300);

// Returns true if `s` has the form "<prefix><digits and dots>" and stores what follows the prefix.
bool starts_with_then_version(std::string_view s, std::string_view prefix, std::string_view& rest);

// Removes one pair of matching quotes ('…' or "…") around `s`, if present.
std::string_view unquote(std::string_view s);

// Replaces every occurrence of `from` in `s` with `to`.
std::string replace_all(std::string_view s, std::string_view from, std::string_view to);

// Length of the valid UTF-8 sequence starting at `s[i]` (1 to 4), or 0 if none starts there
// (a stray byte, a truncated or overlong sequence, a surrogate, a value above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

// The length of the longest start of `s` that does not end in the first bytes of a UTF-8
// sequence that more bytes could complete: "ab\xe5\xbc" gives 2, "ab\xe5\xbc\xa0" 5. Bytes
// that no continuation can make valid (a stray continuation byte, 0xC0, 0xFF, "\xe0\x80") are
// kept: only a sequence cut short is held back, for a writer that receives text in pieces.
std::size_t utf8_complete_prefix(std::string_view s);

// The code point of `seq`, one valid UTF-8 sequence (as utf8_sequence_length measured it).
std::uint32_t utf8_code_point(std::string_view seq);

// Appends code point `cp` as UTF-8; a surrogate or a value above U+10FFFF becomes U+FFFD.
void append_utf8(std::string& out, std::uint32_t cp);

// Decodes UTF-16LE `bytes` (an odd last byte is ignored); unpaired surrogates become U+FFFD.
std::string utf16le_to_utf8(std::string_view bytes);

// True for the ASCII digits '0'..'9' (whatever the locale, unlike std::isdigit).
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The value of the hexadecimal digit `c`, or -1.
int hex_digit(char c);

// "0x1a2b": `value` in lower-case hexadecimal with the prefix.
std::string hex(std::uint64_t value);

// Returns `value` as "0x" and upper-case hex digits, without leading zeros ("0x1000007E").
std::string upper_hex(std::uint64_t value);

} // namespace doctor::util
