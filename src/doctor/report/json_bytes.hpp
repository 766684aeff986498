// SPDX-License-Identifier: MIT
// JSON holds text, and the names on a machine need not be text: a folder name may be any bytes
// but / and NUL. The JSON reports keep such a name findable (docs/report.md, "Bytes that are not
// UTF-8").
#pragma once

#include <nlohmann/json.hpp>

namespace doctor::report {

// Makes every string in `doc` valid UTF-8 without losing a byte. A member "k" whose string is not
// UTF-8 shows it with each such byte as \xNN (util::escape_invalid_utf8) and gains a sibling
// "k_bytes" holding all its bytes in hexadecimal; a member "k" whose array holds such strings
// gets "k_bytes", an array as long, with the hexadecimal bytes of each such string and null for
// the others. Keys that are not UTF-8 are escaped the same way. Valid UTF-8 is left as it is, so
// a document of valid text is unchanged.
void keep_bytes(nlohmann::ordered_json& doc);

} // namespace doctor::report
