// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>
#include <doctor/util/error.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace doctor::facts {

// Returns the snapshot as JSON (docs/snapshot.md). Field order is fixed and lists keep the
// collectors' sorted order, so equal facts give byte-identical text.
nlohmann::ordered_json to_json(const Facts& facts);

// Returns to_json(facts) as indented text with a final newline.
std::string to_json_text(const Facts& facts);

// Reads a snapshot. Returns ErrorCode::parse with the position or the field at fault if the text
// is not JSON or not a snapshot, and ErrorCode::unsupported if its schema is not one this build
// reads. Fields missing from an otherwise valid snapshot take their "not collected" defaults.
Expected<Facts> from_json_text(std::string_view text);

} // namespace doctor::facts
