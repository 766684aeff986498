// SPDX-License-Identifier: MIT
#include <doctor/platform/environment.hpp>

#include <unistd.h>

extern char** environ; // NOLINT(readability-identifier-naming): POSIX name

namespace doctor::platform {

Environment Environment::of_this_process() {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      continue;
    }
    vars.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return Environment(std::move(vars));
}

} // namespace doctor::platform
