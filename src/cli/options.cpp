// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <fmt/format.h>

namespace doctor::cli {

Expected<std::map<std::string, std::string>>
parse_env_assignments(const std::vector<std::string>& values) {
  std::map<std::string, std::string> out;
  for (const std::string& v : values) {
    const auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0) {
      return make_error(ErrorCode::invalid_argument,
                        fmt::format("--env {}: expected NAME=VALUE", v));
    }
    out[v.substr(0, eq)] = v.substr(eq + 1);
  }
  return out;
}

std::optional<ColorMode> parse_color(std::string_view text) {
  if (text == "auto") {
    return ColorMode::automatic;
  }
  if (text == "always") {
    return ColorMode::always;
  }
  if (text == "never") {
    return ColorMode::never;
  }
  return std::nullopt;
}

} // namespace doctor::cli
