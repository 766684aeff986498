// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::platform {

// The environment variables of an examined system. With --sysroot it starts empty and only --env
// fills it; on the live machine it starts as the doctor's own environment.
class Environment {
public:
  Environment() = default;
  explicit Environment(std::map<std::string, std::string> vars);

  // Returns the doctor's own process environment.
  static Environment of_this_process();

  // Returns the value of `name`, or nullopt if unset.
  std::optional<std::string> get(std::string_view name) const;

  // Sets `name` to `value`.
  void set(std::string name, std::string value);

  // Splits the value of `name` at `separator` (':' on Linux), dropping empty entries.
  std::vector<std::string> list(std::string_view name, char separator = ':') const;

  const std::map<std::string, std::string>& all() const { return m_vars; }

private:
  std::map<std::string, std::string> m_vars;
};

} // namespace doctor::platform
