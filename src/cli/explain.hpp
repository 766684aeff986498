// SPDX-License-Identifier: MIT
#pragma once

#include "options.hpp"

namespace doctor::cli {

// `explain`: reads each input (a file, "-" for standard input, or an argument that is the error
// text itself), names the causes with their evidence and fixes, and joins them with the facts of
// this machine (or --snapshot) unless --no-machine. Returns 0 whether or not a cause was found.
// Throws CommandError (exit 2) for an input that cannot be read.
int run_explain(const ExplainOptions& options);

} // namespace doctor::cli
