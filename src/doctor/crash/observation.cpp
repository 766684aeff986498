// SPDX-License-Identifier: MIT
#include <doctor/crash/observation.hpp>

namespace doctor::crash {

std::string_view to_string(Platform platform) {
  return platform == Platform::windows ? "windows" : "linux";
}

} // namespace doctor::crash
