// SPDX-License-Identifier: MIT
#include <doctor/platform/host_path.hpp>

namespace doctor::platform {

// A Linux path is a string of bytes, whatever they encode: nothing is converted.

std::filesystem::path u8path(std::string_view utf8) {
  return std::filesystem::path(std::string(utf8));
}

std::string utf8(const std::filesystem::path& path) {
  return path.native();
}

std::string generic_utf8(const std::filesystem::path& path) {
  return path.generic_string();
}

} // namespace doctor::platform
