// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <cstdint>
#include <vector>

namespace doctor::platform {

// The user and groups whose rights this process has.
struct ProcessIdentity {
  std::uint32_t uid = 0;
  std::vector<std::uint32_t> gids; // effective group first, then supplementary groups
};

// Returns this process's identity. Returns ErrorCode::unsupported where the platform has no
// POSIX-style identity (Windows).
Expected<ProcessIdentity> current_identity();

} // namespace doctor::platform
