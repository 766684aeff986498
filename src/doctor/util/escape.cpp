// SPDX-License-Identifier: MIT
#include <doctor/util/escape.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::util {

namespace {

std::size_t longest_backtick_run(std::string_view s) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

} // namespace

bool is_bidi_format(std::uint32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string_view cut_utf8(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) {
    return s;
  }
  std::size_t end = 0;
  while (end < max_bytes) {
    const std::size_t len = std::max<std::size_t>(1, utf8_sequence_length(s, end));
    if (end + len > max_bytes) {
      break;
    }
    end += len;
  }
  return s.substr(0, end);
}

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
      return false;
    }
    i += len;
  }
  return true;
}

std::string escape_terminal(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_escaped_terminal(out, s);
  return out;
}

void append_escaped_terminal(std::string& out, std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    // A run of printable ASCII (most text, every usual path) is copied as it is.
    std::size_t plain = i;
    while (plain < s.size() && static_cast<unsigned char>(s[plain]) >= 0x20
           && static_cast<unsigned char>(s[plain]) < 0x7F) {
      ++plain;
    }
    if (plain > i) {
      out.append(s.substr(i, plain - i));
      i = plain;
      continue;
    }
    const std::size_t len = utf8_sequence_length(s, i);
    const auto byte = static_cast<unsigned char>(s[i]);
    if (len == 0) {
      out += fmt::format("\\x{:02x}", byte);
      ++i;
      continue;
    }
    const std::string_view seq = s.substr(i, len);
    const std::uint32_t cp = utf8_code_point(seq);
    i += len;
    if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == 0x7F) {
      out += fmt::format("\\x{:02x}", cp);
    } else if ((cp >= 0x80 && cp < 0xA0) || is_bidi_format(cp)) {
      out += fmt::format("\\u{{{:04x}}}", cp);
    } else {
      out.append(seq);
    }
  }
}

std::string escape_markdown(std::string_view s) {
  const std::string visible = escape_terminal(s);
  std::string out;
  out.reserve(visible.size());
  for (char c : visible) {
    switch (c) {
    case '\\':
    case '`':
    case '*':
    case '_':
    case '[':
    case ']':
    case '(':
    case ')':
    case '<':
    case '>':
    case '|':
    case '#':
    case '!':
    case '~':
    case '&':
      out += '\\';
      break;
    default:
      break;
    }
    out += c;
  }
  return out;
}

std::string markdown_code_span(std::string_view s) {
  const std::string visible = escape_terminal(s);
  const std::string fence(longest_backtick_run(visible) + 1, '`');
  const bool pad = !visible.empty()
                   && (visible.front() == '`' || visible.back() == '`' || visible.front() == ' ');
  return pad ? fence + " " + visible + " " + fence : fence + visible + fence;
}

std::string markdown_fence(std::string_view s) {
  return std::string(std::max<std::size_t>(3, longest_backtick_run(s) + 1), '`');
}

std::string markdown_code_block(std::string_view lines) {
  const std::string fence = markdown_fence(lines);
  return fmt::format("{}\n{}{}\n", fence, lines, fence);
}

std::string escape_invalid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

std::string hex_bytes(std::string_view s) {
  std::string out;
  out.reserve(s.size() * 2);
  for (char c : s) {
    out += fmt::format("{:02x}", static_cast<unsigned char>(c));
  }
  return out;
}

} // namespace doctor::util
