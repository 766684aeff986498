// SPDX-License-Identifier: MIT
#include <doctor/platform/console.hpp>

namespace doctor::platform {

// A Linux terminal takes the UTF-8 bytes as they are: no stream is written as characters.

Expected<bool> write_console(StandardStream /*stream*/, std::string_view /*text*/) {
  return false;
}

Expected<void> flush_console(StandardStream /*stream*/) {
  return {};
}

} // namespace doctor::platform
