// SPDX-License-Identifier: MIT
// JSON holds text, and the names on a machine need not be text: a folder name may be any bytes
// but / and NUL. The JSON reports and snapshots keep such a name findable (docs/report.md, "Bytes
// that are not UTF-8"; docs/snapshot.md).
#pragma once

#include <nlohmann/json.hpp>

namespace doctor::util {

// Makes every string in `doc` valid UTF-8 without losing a byte. A member "k" whose string is not
// UTF-8 shows it with each such byte as \xNN (util::escape_invalid_utf8) and gains a sibling
// "k_bytes" holding all its bytes in hexadecimal; a member "k" whose array holds such strings
// gets "k_bytes", an array as long, with the hexadecimal bytes of each such string and null for
// the others. Keys that are not UTF-8 are escaped the same way. Valid UTF-8 is left as it is, so
// a document of valid text is unchanged.
void keep_bytes(nlohmann::ordered_json& doc);

// The inverse of keep_bytes for the members it writes: every "k_bytes" beside a string "k" puts
// those bytes back into "k", and beside an array "k" into each item it gives, and is removed.
// Returns false (with `doc` partly restored) when a "k_bytes" beside a string or array "k" is not
// what keep_bytes writes: hexadecimal of an even length, or an array as long as "k" of such
// strings and nulls. Keys that keep_bytes escaped stay escaped.
bool restore_bytes(nlohmann::ordered_json& doc);

} // namespace doctor::util
