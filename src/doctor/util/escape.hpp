// SPDX-License-Identifier: MIT
// Untrusted text on its way to a reader: a folder name, a log line, a package record. Each output
// format has one function here that makes such a string inert there, and one cut keeps text whole
// characters. Valid UTF-8 that is printable stays as it is, so ordinary paths and CJK text read
// unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace doctor::util {

// The longest start of `s` of at most `max_bytes` bytes that does not end inside a UTF-8 sequence
// (a byte that is not UTF-8 counts as one character of its own).
std::string_view cut_utf8(std::string_view s, std::size_t max_bytes);

// True for the Unicode bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), which reorder the text a reader sees ("Trojan Source"). The marks U+200E/F
// only nudge neutral characters and stay (Windows writes them into its dates).
bool is_bidi_format(std::uint32_t cp);

// True if `s` is all valid UTF-8 (RFC 3629: no overlong forms, surrogates or values past U+10FFFF).
bool is_utf8(std::string_view s);

// `s` for a terminal: every control character (C0, DEL, C1), Unicode bidirectional override
// character and byte that is not UTF-8 is shown as a visible escape: \n, \r, \t, \xNN for a byte
// (ESC is \x1b, BEL \x07, an invalid byte \xff) and \u{NNNN} for a code point above U+007F.
// Nothing else changes, so a line of the result can neither move the cursor, change colours, set
// the window title nor reorder what is shown.
std::string escape_terminal(std::string_view s);
// escape_terminal(s), appended to `out` (a report of hundreds of lines builds no string per field).
void append_escaped_terminal(std::string& out, std::string_view s);

// `s` as Markdown text, also safe in a table cell: escape_terminal, then a backslash before every
// ASCII punctuation that can start Markdown or HTML markup: \ ` * _ [ ] ( ) < > | # ! ~ &. So a
// folder named "[x](https://…)" shows as text, never as a link.
std::string escape_markdown(std::string_view s);

// `s` as a Markdown code span: escape_terminal, then fenced with more backticks than the longest
// run of backticks inside it (CommonMark), padded with a space where it starts or ends with one.
std::string markdown_code_span(std::string_view s);

// The fence for a Markdown code block holding `s`: at least three backticks, one more than the
// longest run of backticks in `s`.
std::string markdown_fence(std::string_view s);

// `lines` (each ending in a newline, already escaped for the terminal) as a Markdown code block
// fenced by markdown_fence, so no line can close it.
std::string markdown_code_block(std::string_view lines);

// `s` with each byte that is not UTF-8 written as \xNN and every other character kept: what JSON
// shows in place of a string that is not UTF-8 (the bytes themselves travel in a sibling field).
std::string escape_invalid_utf8(std::string_view s);

// The bytes of `s` in lower-case hexadecimal, two digits a byte.
std::string hex_bytes(std::string_view s);

} // namespace doctor::util
