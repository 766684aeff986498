// SPDX-License-Identifier: MIT
#include <doctor/model/severity.hpp>

namespace doctor {

std::string_view to_string(Severity s) {
  switch (s) {
  case Severity::info:
    return "info";
  case Severity::warning:
    return "warning";
  case Severity::error:
    return "error";
  case Severity::critical:
    return "critical";
  }
  return "info";
}

std::optional<Severity> parse_severity(std::string_view text) {
  for (Severity s : {Severity::info, Severity::warning, Severity::error, Severity::critical}) {
    if (to_string(s) == text) {
      return s;
    }
  }
  return std::nullopt;
}

} // namespace doctor
