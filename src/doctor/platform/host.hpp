// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/sysroot.hpp>

namespace doctor::platform {

// The operating system this binary was built for and runs on.
OsFamily host_os();

} // namespace doctor::platform
