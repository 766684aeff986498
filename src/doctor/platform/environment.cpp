// SPDX-License-Identifier: MIT
#include <doctor/platform/environment.hpp>
#include <doctor/util/strings.hpp>

namespace doctor::platform {

Environment::Environment(std::map<std::string, std::string> vars)
    : m_vars(std::move(vars)) {}

std::optional<std::string> Environment::get(std::string_view name) const {
  const auto it = m_vars.find(std::string(name));
  if (it == m_vars.end()) {
    return std::nullopt;
  }
  return it->second;
}

void Environment::set(std::string name, std::string value) {
  m_vars[std::move(name)] = std::move(value);
}

std::vector<std::string> Environment::list(std::string_view name, char separator) const {
  std::vector<std::string> out;
  const auto value = get(name);
  if (!value) {
    return out;
  }
  for (std::string_view item : util::split(*value, separator)) {
    if (!item.empty()) {
      out.emplace_back(item);
    }
  }
  return out;
}

} // namespace doctor::platform
