// SPDX-License-Identifier: MIT
// Private to collect/: how much of a machine's file a collector reads at most. A hostile or
// broken file (a huge /proc/modules, a binary in place of /etc/group) is cut there, never read
// whole.
#pragma once

#include <cstddef>

namespace doctor::collect {

// /proc and /sys files, version files, os-release: a few KB in practice.
inline constexpr std::size_t k_max_small_file = std::size_t{1024} * 1024;

// Text a collector parses as a whole (version.json, cuda.h, /etc/group, mountinfo).
inline constexpr std::size_t k_max_text_file = std::size_t{4} * 1024 * 1024;

} // namespace doctor::collect
