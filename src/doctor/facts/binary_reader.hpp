// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/facts/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <string>

namespace doctor::facts {

// Reads the headers of the file at canonical inner path `real_path` (ELF or PE, by its magic)
// into a BinaryInfo, with its size, mode and owner. A file that cannot be mapped, is empty, or is
// neither ELF nor PE gives format "unknown" and says why in `problems`. Touches only the pages the
// headers live in.
BinaryInfo read_binary(const platform::SysRoot& root, const std::string& real_path);

} // namespace doctor::facts
