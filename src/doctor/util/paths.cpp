// SPDX-License-Identifier: MIT
#include <doctor/util/paths.hpp>

#include <algorithm>

namespace doctor::util {

void join_path_into(std::string& out, std::string_view dir, std::string_view name) {
  while (dir.size() > 1 && dir.back() == '/') {
    dir.remove_suffix(1);
  }
  while (!name.empty() && name.front() == '/') {
    name.remove_prefix(1);
  }
  out.clear();
  out.reserve(dir.size() + 1 + name.size()); // one allocation: the loader model joins thousands
  out += dir;
  if (out.empty() || out.back() != '/') {
    out += '/';
  }
  out += name;
}

std::string join_path(std::string_view dir, std::string_view name) {
  std::string out;
  join_path_into(out, dir, name);
  return out;
}

std::string parent_path(std::string_view path) {
  const std::string normal = normalize_path(path);
  const auto slash = normal.rfind('/');
  if (slash == 0 || slash == std::string::npos) {
    return "/";
  }
  return normal.substr(0, slash);
}

std::string_view file_name(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') {
    path.remove_suffix(1);
  }
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_within(std::string_view path, std::string_view dir) {
  return dir == "/" || path == dir
         || (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

// Most paths the loader model builds already are normal.
bool is_normal_path(std::string_view path) {
  if (path == "/") {
    return true;
  }
  if (path.empty() || path.front() != '/' || path.back() == '/') {
    return false;
  }
  for (std::size_t i = 0; i < path.size();) {
    const std::size_t end = std::min(path.find('/', i + 1), path.size());
    const std::string_view part = path.substr(i + 1, end - i - 1); // after the '/' at i
    if (part.empty() || part == "." || part == "..") {
      return false;
    }
    i = end;
  }
  return true;
}

// One pass, building the result in place: it runs for every line of every package record, so
// it must not allocate per component.
std::string normalize_path(std::string_view path) {
  if (is_normal_path(path)) {
    return std::string(path);
  }
  std::string out;
  out.reserve(path.size() + 1);
  std::size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') {
      ++i;
    }
    const std::size_t end = std::min(path.find('/', i), path.size());
    const std::string_view part = path.substr(i, end - i);
    i = end;
    if (part.empty() || part == ".") {
      continue;
    }
    if (part == "..") {
      out.resize(out.empty() ? 0 : out.rfind('/'));
      continue;
    }
    out += '/';
    out += part;
  }
  if (out.empty()) {
    out = "/";
  }
  return out;
}

} // namespace doctor::util
