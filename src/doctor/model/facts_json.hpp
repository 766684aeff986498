// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/bounded_json.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/util/error.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace doctor::facts {

// What a snapshot may hold (docs/snapshot.md). The doctor's snapshot of a workstation is about
// 150 KB with 4,500 values, 900 objects and 7 levels of nesting; each bound is hundreds of times
// that, and together they keep reading any text to a few times its size in memory.
inline constexpr JsonLimits k_snapshot_limits{
    .max_bytes = std::size_t{128} << 20U,
    .max_depth = 16,
    .max_string = std::size_t{1} << 20U,
    .max_members = 1024,
    .max_items = std::size_t{256} << 10U,
    .max_values = std::size_t{1} << 20U,
    .max_objects = std::size_t{128} << 10U,
    .integers_only = true,
};

// Returns the snapshot as JSON (docs/snapshot.md). Field order is fixed and lists keep the
// collectors' sorted order, so equal facts give byte-identical text.
nlohmann::ordered_json to_json(const Facts& facts);

// The snapshot's JSON of one section: the probes' runs and NVML's answers, for the probe
// command's report (the same form as in a snapshot).
nlohmann::ordered_json to_json(const ProbeInfo& probe);
nlohmann::ordered_json to_json(const NvmlInfo& nvml);

// Returns to_json(facts) as indented text with a final newline.
std::string to_json_text(const Facts& facts);

// Reads a snapshot within k_snapshot_limits. Returns ErrorCode::parse naming the field at fault
// ("driver.nvml.devices.value[0].memory_total") if the text is not JSON, breaks a bound, holds a
// value of the wrong type, a number out of its field's range or a value outside an enumerated
// field's set (facts_values.hpp); ErrorCode::too_large if it is longer than max_bytes or memory
// runs out; ErrorCode::unsupported if its schema is not one this build reads. Fields missing
// from an otherwise valid snapshot take their "not collected" defaults; unknown fields are
// ignored.
Expected<Facts> from_json_text(std::string_view text);

} // namespace doctor::facts
