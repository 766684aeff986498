// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/checks/check.hpp>

#include <span>

namespace doctor::checks {

// The registry: every check, in a fixed order.
std::span<const CheckDef> all_checks();

} // namespace doctor::checks
