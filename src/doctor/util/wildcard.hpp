// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace doctor::util {

// Matches `name` against a shell wildcard `pattern` with `*`, `?` and `[...]` classes (`[!...]`
// negates), as glob(3) does for one path component. Runs in O(len(pattern) * len(name)).
bool wildcard_match(std::string_view pattern, std::string_view name);

// True if `pattern` contains a wildcard character.
bool has_wildcard(std::string_view pattern);

} // namespace doctor::util
