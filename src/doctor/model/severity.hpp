// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string_view>

namespace doctor {

// How bad a finding is, ordered from least to most severe.
enum class Severity { info, warning, error, critical };

// Returns "info", "warning", "error" or "critical".
std::string_view to_string(Severity s);

// Parses the names above; nullopt for anything else.
std::optional<Severity> parse_severity(std::string_view text);

} // namespace doctor
