// SPDX-License-Identifier: MIT
#include <doctor/collect/binary_reader.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <cctype>

namespace doctor::collect {

namespace {

bool is_drive_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// "C:" at the start of `path`.
bool starts_with_drive(std::string_view path) {
  return path.size() >= 2 && is_drive_letter(path[0]) && path[1] == ':';
}

} // namespace

std::optional<std::string> windows_inner(const platform::SysRoot& root, std::string_view path) {
  if (!loader::is_absolute_windows_path(path) || !starts_with_drive(path)) {
    return std::nullopt;
  }
  const std::string normal = loader::normalize_windows_path(path); // "C:\x\y"
  std::string rest = util::replace_all(normal.substr(2), "\\", "/");
  if (rest.empty()) {
    rest = "/";
  }
  if (root.is_live()) {
    return fmt::format("/{}:{}", static_cast<char>(std::toupper(normal[0])), rest);
  }
  if (std::toupper(normal[0]) != 'C') {
    return std::nullopt;
  }
  return rest;
}

std::string windows_outer(const platform::SysRoot& /*root*/, std::string_view inner) {
  std::string_view rest = inner;
  while (!rest.empty() && rest.front() == '/') {
    rest.remove_prefix(1);
  }
  std::string drive = "C:";
  if (starts_with_drive(rest) && (rest.size() == 2 || rest[2] == '/')) {
    drive = std::string(rest.substr(0, 2));
    rest.remove_prefix(2);
    while (!rest.empty() && rest.front() == '/') {
      rest.remove_prefix(1);
    }
  }
  return loader::normalize_windows_path(fmt::format("{}\\{}", drive, rest));
}

std::optional<std::string> windows_env(const platform::SysRoot& root, std::string_view name) {
  if (auto exact = root.env().get(name)) {
    return exact;
  }
  const std::string key = util::to_lower(name);
  for (const auto& [var, value] : root.env().all()) {
    if (util::to_lower(var) == key) {
      return value;
    }
  }
  return std::nullopt;
}

std::string expand_windows_variables(const platform::SysRoot& root, std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('%', i);
    if (open == std::string_view::npos) {
      break;
    }
    const std::size_t close = text.find('%', open + 1);
    if (close == std::string_view::npos) {
      break;
    }
    out.append(text.substr(i, open - i));
    const std::string_view name = text.substr(open + 1, close - open - 1);
    std::optional<std::string> value;
    if (!name.empty()) {
      value = util::to_lower(name) == "systemroot" ? windows_system_root(root)
                                                   : windows_env(root, name);
    }
    if (value) {
      out += *value;
      i = close + 1;
    } else {
      // Left as written; the closing '%' may open the next name.
      out.append(text.substr(open, close - open));
      i = close;
    }
  }
  out.append(text.substr(std::min(i, text.size())));
  return out;
}

std::string windows_system_root(const platform::SysRoot& root) {
  if (auto env = windows_env(root, "SystemRoot"); env && !env->empty()) {
    return loader::normalize_windows_path(*env);
  }
  if (const platform::Registry* reg = root.registry()) {
    if (auto v = reg->value(platform::RegistryRoot::local_machine,
                            "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion",
                            "SystemRoot");
        v && !v->text.empty()) {
      return loader::normalize_windows_path(v->text);
    }
  }
  return "C:\\Windows";
}

std::string registry_source(const platform::SysRoot& root,
                            platform::RegistryRoot hive,
                            std::string_view path,
                            std::string_view name) {
  // Registry::source names the key itself (live: "registry:HKLM\\…", a disk: "hive:FILE:HKLM\\…").
  const std::string key = root.registry()
                              ? root.registry()->source(hive, path)
                              : fmt::format("registry:{}\\{}", platform::to_string(hive), path);
  return fmt::format("{}\\{}", key, name);
}

std::string registry_reason(const platform::SysRoot& root,
                            const Error& error,
                            platform::RegistryRoot hive,
                            std::string_view path,
                            std::string_view name) {
  if (root.registry() == nullptr) {
    return "the registry of this machine cannot be read here";
  }
  if (error.code == ErrorCode::not_found) {
    return name.empty()
               ? fmt::format("{}\\{} does not exist", platform::to_string(hive), path)
               : fmt::format("{}\\{}\\{} is not set", platform::to_string(hive), path, name);
  }
  return error.message;
}

facts::Fact<std::string> registry_text(const platform::SysRoot& root,
                                       platform::RegistryRoot hive,
                                       std::string_view path,
                                       std::string_view name) {
  const platform::Registry* reg = root.registry();
  if (reg == nullptr) {
    return facts::Fact<std::string>::unknown(
        registry_reason(root, Error{ErrorCode::unsupported, ""}, hive, path, name));
  }
  auto v = reg->value(hive, path, name);
  if (!v) {
    return facts::Fact<std::string>::unknown(registry_reason(root, v.error(), hive, path, name));
  }
  using Type = platform::RegistryValue::Type;
  if (v->type != Type::string && v->type != Type::expand_string) {
    return facts::Fact<std::string>::unknown(
        fmt::format("{}\\{}\\{} is not a string", platform::to_string(hive), path, name));
  }
  return facts::Fact<std::string>::known(util::sanitize(v->text, 32768),
                                         registry_source(root, hive, path, name));
}

facts::Fact<std::uint64_t> registry_number(const platform::SysRoot& root,
                                           platform::RegistryRoot hive,
                                           std::string_view path,
                                           std::string_view name) {
  const platform::Registry* reg = root.registry();
  if (reg == nullptr) {
    return facts::Fact<std::uint64_t>::unknown(
        registry_reason(root, Error{ErrorCode::unsupported, ""}, hive, path, name));
  }
  auto v = reg->value(hive, path, name);
  if (!v) {
    return facts::Fact<std::uint64_t>::unknown(registry_reason(root, v.error(), hive, path, name));
  }
  using Type = platform::RegistryValue::Type;
  if (v->type != Type::dword && v->type != Type::qword) {
    return facts::Fact<std::uint64_t>::unknown(
        fmt::format("{}\\{}\\{} is not a number", platform::to_string(hive), path, name));
  }
  return facts::Fact<std::uint64_t>::known(v->number, registry_source(root, hive, path, name));
}

std::vector<std::string> registry_subkeys(const platform::SysRoot& root,
                                          platform::RegistryRoot hive,
                                          std::string_view path) {
  if (const platform::Registry* reg = root.registry()) {
    if (auto keys = reg->subkeys(hive, path)) {
      return std::move(*keys);
    }
  }
  return {};
}

Expected<std::vector<platform::DirEntry>> list_windows_dir(const platform::SysRoot& root,
                                                           std::string_view dir) {
  const auto inner = windows_inner(root, dir);
  if (!inner) {
    return make_error(ErrorCode::not_found, fmt::format("{}: not in the examined tree", dir));
  }
  auto entries = root.list_dir(*inner);
  if (!entries) {
    return tl::unexpected(
        Error{entries.error().code, util::replace_all(entries.error().message, *inner, dir)});
  }
  return entries;
}

bool windows_is_dir(const platform::SysRoot& root, std::string_view path) {
  const auto inner = windows_inner(root, path);
  return inner && root.is_dir(*inner);
}

bool windows_is_file(const platform::SysRoot& root, std::string_view path) {
  const auto inner = windows_inner(root, path);
  return inner && root.is_file(*inner);
}

Expected<std::string>
read_windows_file(const platform::SysRoot& root, std::string_view path, std::size_t max_bytes) {
  const auto inner = windows_inner(root, path);
  if (!inner) {
    return make_error(ErrorCode::not_found, fmt::format("{}: not in the examined tree", path));
  }
  auto data = root.read_file(*inner, max_bytes);
  if (!data) {
    return tl::unexpected(
        Error{data.error().code, util::replace_all(data.error().message, *inner, path)});
  }
  return data;
}

} // namespace doctor::collect

namespace doctor::collect {

std::optional<facts::BinaryInfo> read_windows_binary(const platform::SysRoot& root,
                                                     std::string_view path) {
  const auto inner = windows_inner(root, path);
  if (!inner) {
    return std::nullopt;
  }
  auto real = root.resolve(*inner);
  if (!real || !root.is_file(*real)) {
    return std::nullopt;
  }
  facts::BinaryInfo info = read_binary(root, *real);
  info.path = windows_outer(root, *real);
  // Windows grants access by ACL; the POSIX bits std::filesystem derives from the read-only
  // attribute (0666 or 0444) would read as "anyone may write it".
  info.mode.clear();
  return info;
}

void add_windows_binary(facts::Facts& facts, facts::BinaryInfo info) {
  const std::string key = loader::windows_path_key(info.path);
  for (const facts::BinaryInfo& b : facts.binaries) {
    if (loader::windows_path_key(b.path) == key) {
      return;
    }
  }
  facts.binaries.push_back(std::move(info));
}

void add_windows_probe(const platform::SysRoot& root, facts::Facts& facts, std::string_view path) {
  const std::string normal = loader::normalize_windows_path(path);
  const std::string key = loader::windows_path_key(normal);
  for (const facts::ProbedPath& p : facts.probed_paths) {
    if (p.path == key) {
      return;
    }
  }
  facts::ProbedPath p;
  p.path = key; // as the loader model asks (windows_search.hpp)
  if (const auto inner = windows_inner(root, normal)) {
    if (auto st = root.stat(*inner)) {
      p.exists = true;
      p.kind = std::string(platform::to_string(st->kind));
      if (auto real = root.resolve(*inner)) {
        p.real_path = windows_outer(root, *real);
      }
    }
  }
  facts.probed_paths.push_back(std::move(p));
}

} // namespace doctor::collect
