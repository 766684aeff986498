// SPDX-License-Identifier: MIT
// Layout helpers shared by the text reports (check's and explain's): colours, severity labels,
// word wrapping.
#pragma once

#include <doctor/model/severity.hpp>

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace doctor::report {

inline constexpr std::size_t k_width = 100;

struct Style {
  bool on;
  std::string apply(std::string_view code, std::string_view text) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
  std::string bold(std::string_view t) const { return apply("1", t); }
  std::string dim(std::string_view t) const { return apply("2", t); }
};

// The ANSI colour of a severity ("1;31" for errors).
std::string_view severity_color(Severity s);

// "CRITICAL", "ERROR", "WARNING", "INFO".
std::string_view severity_label(Severity s);

// Counts display columns: UTF-8 continuation bytes take no column.
std::size_t columns(std::string_view s);

// Word-wraps `text` to k_width with `indent` before the first line and `more` before the others.
std::string wrap(std::string_view text, std::string_view indent, std::string_view more);

} // namespace doctor::report
