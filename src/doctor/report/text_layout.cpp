// SPDX-License-Identifier: MIT
#include <doctor/report/text_layout.hpp>
#include <doctor/util/strings.hpp>

namespace doctor::report {

std::string_view severity_color(Severity s) {
  switch (s) {
  case Severity::critical:
    return "1;35";
  case Severity::error:
    return "1;31";
  case Severity::warning:
    return "1;33";
  case Severity::info:
    return "1;36";
  }
  return "0";
}

std::string_view severity_label(Severity s) {
  switch (s) {
  case Severity::critical:
    return "CRITICAL";
  case Severity::error:
    return "ERROR";
  case Severity::warning:
    return "WARNING";
  case Severity::info:
    return "INFO";
  }
  return "INFO";
}

std::size_t columns(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++n;
    }
  }
  return n;
}

std::string wrap(std::string_view text, std::string_view indent, std::string_view more) {
  std::string out;
  std::string line(indent);
  bool line_has_word = false;
  for (std::string_view word : util::split(text, ' ')) {
    if (word.empty()) {
      continue;
    }
    if (line_has_word && columns(line) + 1 + columns(word) > k_width) {
      out += line + "\n";
      line = std::string(more);
      line_has_word = false;
    }
    if (line_has_word) {
      line += ' ';
    }
    line += word;
    line_has_word = true;
  }
  out += line + "\n";
  return out;
}

} // namespace doctor::report
