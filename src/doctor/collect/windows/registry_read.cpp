// SPDX-License-Identifier: MIT
#include <doctor/collect/windows/registry_read.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect::windows {

using facts::Fact;

namespace {

// The value, or the fact's reason for having none.
Expected<RegistryValue> read(const Registry& registry,
                             RegistryRoot root,
                             std::string_view path,
                             std::string_view name,
                             std::string_view not_set,
                             std::string& reason) {
  auto v = registry.value(root, path, name);
  if (!v) {
    reason =
        v.error().code == ErrorCode::not_found
            ? std::string(not_set)
            : fmt::format("{}\\{} cannot be read: {}", to_string(root), path, v.error().message);
  }
  return v;
}

} // namespace

const Registry* registry_of(const platform::SysRoot& root, std::string& reason) {
  if (const Registry* r = root.registry()) {
    return r;
  }
  reason = root.registry_error().empty() ? std::string("no registry was opened for this system")
                                         : root.registry_error();
  return nullptr;
}

std::string value_source(const Registry& registry,
                         RegistryRoot root,
                         std::string_view path,
                         std::string_view name) {
  return fmt::format("{}\\{}", registry.source(root, path), name.empty() ? "(Default)" : name);
}

Fact<std::string> string_fact(const Registry& registry,
                              RegistryRoot root,
                              std::string_view path,
                              std::string_view name,
                              std::string_view not_set) {
  std::string reason;
  auto v = read(registry, root, path, name, not_set, reason);
  if (!v) {
    return Fact<std::string>::unknown(reason);
  }
  if (v->type != RegistryValue::Type::string && v->type != RegistryValue::Type::expand_string) {
    return Fact<std::string>::unknown(
        fmt::format("{}\\{}\\{} is not a string", to_string(root), path, name));
  }
  return Fact<std::string>::known(v->text, value_source(registry, root, path, name));
}

Fact<std::uint64_t> number_fact(const Registry& registry,
                                RegistryRoot root,
                                std::string_view path,
                                std::string_view name,
                                std::string_view not_set) {
  std::string reason;
  auto v = read(registry, root, path, name, not_set, reason);
  if (!v) {
    return Fact<std::uint64_t>::unknown(reason);
  }
  if (v->type != RegistryValue::Type::dword && v->type != RegistryValue::Type::qword) {
    return Fact<std::uint64_t>::unknown(
        fmt::format("{}\\{}\\{} is not a number", to_string(root), path, name));
  }
  return Fact<std::uint64_t>::known(v->number, value_source(registry, root, path, name));
}

std::optional<std::string> string_value(const Registry& registry,
                                        RegistryRoot root,
                                        std::string_view path,
                                        std::string_view name) {
  auto v = registry.value(root, path, name);
  if (!v
      || (v->type != RegistryValue::Type::string
          && v->type != RegistryValue::Type::expand_string)) {
    return std::nullopt;
  }
  return v->text;
}

std::string windows_path(std::string_view inner) {
  std::string out = "C:";
  out += inner;
  std::replace(out.begin(), out.end(), '/', '\\');
  return out;
}

} // namespace doctor::collect::windows
