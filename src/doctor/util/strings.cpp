// SPDX-License-Identifier: MIT
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <charconv>

namespace doctor::util {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

} // namespace

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  if (c < 0x80) {
    return 1;
  }
  if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
    len = 2;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
  } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
    len = 4;
  } else {
    return 0;
  }
  if (i + len > s.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
      return 0;
    }
  }
  // Overlong forms, UTF-16 surrogates and code points above U+10FFFF are not UTF-8 (RFC 3629);
  // they show in the second byte.
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90)
      || (c == 0xF4 && c1 > 0x8F)) {
    return 0;
  }
  return len;
}

std::size_t utf8_complete_prefix(std::string_view s) {
  const std::size_t n = s.size();
  // A sequence is at most 4 bytes, so an unfinished one starts within the last 3.
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) {
      continue; // a continuation byte: its lead is further back
    }
    std::size_t need = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 2;
    } else if ((c & 0xF0) == 0xE0) {
      need = 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 4;
    }
    if (need <= back) {
      return n; // ASCII, a byte no sequence starts with, or a sequence that is complete
    }
    if (back >= 2) {
      // The second byte already rules out overlong forms, surrogates and values past U+10FFFF.
      const auto c1 = static_cast<unsigned char>(s[n - back + 1]);
      if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90)
          || (c == 0xF4 && c1 > 0x8F)) {
        return n;
      }
    }
    return n - back;
  }
  return n;
}

std::uint32_t utf8_code_point(std::string_view seq) {
  const auto b = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(seq[k]));
  };
  switch (seq.size()) {
  case 1:
    return b(0);
  case 2:
    return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
  case 3:
    return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  case 4:
    return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  default:
    return 0xFFFD;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      break;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
  return out;
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    out.push_back(take_line(s));
  }
  return out;
}

std::string_view take_line(std::string_view& rest) {
  const std::size_t pos = std::min(rest.find('\n'), rest.size());
  std::string_view line = rest.substr(0, pos);
  rest.remove_prefix(std::min(pos + 1, rest.size()));
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  return line;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
  if (s.empty()) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
  }
  if (s.empty()) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return std::nullopt;
  }
  return value;
}

std::string sanitize(std::string_view s, std::size_t max_len) {
  std::string out;
  out.reserve(std::min(s.size(), max_len) + 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (out.size() >= max_len) {
      out += "…";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\t') {
      out += ' ';
      ++i;
      continue;
    }
    if (c < 0x20 || c == 0x7F) {
      out += '?';
      ++i;
      continue;
    }
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
      out += '?';
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

bool starts_with_then_version(std::string_view s, std::string_view prefix, std::string_view& rest) {
  if (!s.starts_with(prefix) || s.size() == prefix.size()) {
    return false;
  }
  const std::string_view tail = s.substr(prefix.size());
  bool digit_before = false;
  for (char c : tail) {
    if (c >= '0' && c <= '9') {
      digit_before = true;
    } else if (c == '.' && digit_before) {
      digit_before = false; // the next field must start with a digit again
    } else {
      return false;
    }
  }
  if (!digit_before) {
    return false; // empty, or ends with '.'
  }
  rest = tail;
  return true;
}

std::string_view unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  if (from.empty()) {
    return std::string(s);
  }
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = s.find(from, start);
    if (pos == std::string_view::npos) {
      out.append(s.substr(start));
      break;
    }
    out.append(s.substr(start, pos - start));
    out.append(to);
    start = pos + from.size();
  }
  return out;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    cp = 0xFFFD;
  }
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6U));
    out += static_cast<char>(0x80 | (cp & 0x3FU));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12U));
    out += static_cast<char>(0x80 | ((cp >> 6U) & 0x3FU));
    out += static_cast<char>(0x80 | (cp & 0x3FU));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18U));
    out += static_cast<char>(0x80 | ((cp >> 12U) & 0x3FU));
    out += static_cast<char>(0x80 | ((cp >> 6U) & 0x3FU));
    out += static_cast<char>(0x80 | (cp & 0x3FU));
  }
}

std::string utf16le_to_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() / 2);
  const auto unit = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[2 * i]))
           | (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[2 * i + 1])) << 8U);
  };
  const std::size_t n = bytes.size() / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t u = unit(i);
    if (u >= 0xD800 && u <= 0xDBFF && i + 1 < n && unit(i + 1) >= 0xDC00 && unit(i + 1) <= 0xDFFF) {
      append_utf8(out, 0x10000 + ((u - 0xD800) << 10U) + (unit(i + 1) - 0xDC00));
      ++i;
    } else {
      append_utf8(out, u);
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

std::string upper_hex(std::uint64_t value) {
  std::string s = hex(value);
  std::transform(s.begin() + 2, s.end(), s.begin() + 2, [](char c) {
    return c >= 'a' && c <= 'f' ? static_cast<char>(c - 'a' + 'A') : c;
  });
  return s;
}

std::string hex(std::uint64_t value) {
  static constexpr char k_digits[] = "0123456789abcdef";
  char buf[18];
  std::size_t n = sizeof buf;
  do {
    buf[--n] = k_digits[value & 0xFU];
    value >>= 4U;
  } while (value != 0);
  return "0x" + std::string(buf + n, sizeof buf - n);
}

} // namespace doctor::util
