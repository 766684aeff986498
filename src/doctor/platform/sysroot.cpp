// SPDX-License-Identifier: MIT
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace doctor::platform {

namespace {

constexpr int k_max_symlinks = 40; // the Linux kernel's own limit (MAXSYMLINKS)

std::deque<std::string> components(std::string_view path) {
  std::deque<std::string> out;
  for (std::string_view part : util::split(path, '/')) {
    if (!part.empty() && part != ".") {
      out.emplace_back(part);
    }
  }
  return out;
}

std::string to_inner(const std::vector<std::string>& parts) {
  if (parts.empty()) {
    return "/";
  }
  std::string out;
  for (const std::string& p : parts) {
    out += '/';
    out += p;
  }
  return out;
}

// "C:": a drive letter, the first component of a live Windows machine's inner path.
bool is_drive(std::string_view part) {
  return part.size() == 2 && part[1] == ':'
         && ((part[0] >= 'A' && part[0] <= 'Z') || (part[0] >= 'a' && part[0] <= 'z'));
}

} // namespace

struct SysRoot::ComponentCache {
  std::mutex mutex;
  // Inner path of a directory component -> its link target, or nullopt if it is no link.
  std::unordered_map<std::string, std::optional<std::string>> links;
  // Inner path of a folder resolved as one -> its canonical inner path (looked up by view).
  struct ViewHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::string, ViewHash, std::equal_to<>> folders;
};

std::string_view to_string(OsFamily os) {
  return os == OsFamily::windows ? "windows" : "linux";
}

SysRoot::SysRoot(std::filesystem::path root, Environment env, OsFamily os, bool live)
    : m_root(std::move(root))
    , m_env(std::move(env))
    , m_os(os)
    , m_live(live)
    , m_host_is_inner(m_root == "/" && os == OsFamily::linux)
    , m_components(std::make_shared<ComponentCache>()) {}

std::filesystem::path SysRoot::host_path(std::string_view inner) const {
  if (m_host_is_inner) {
    // The live machine: the normalised inner path is the host path (".." cannot climb above "/").
    return u8path(util::normalize_path(inner));
  }
  std::filesystem::path out = m_root;
  // Lexically normalised first, so that ".." cannot climb out of the root.
  std::deque<std::string> parts = components(util::normalize_path(inner));
  if (m_live && m_os == OsFamily::windows && !parts.empty() && is_drive(parts.front())) {
    // The live Windows machine: "/C:/Windows" is C:\Windows (appending "Windows" to "C:" would
    // name a path relative to the drive's current directory).
    out = std::filesystem::path(parts.front() + "/");
    parts.pop_front();
  }
  for (const std::string& part : parts) {
    out /= u8path(part);
  }
  return out;
}

// Walks the path one component at a time, the way the kernel's path lookup does, but with the
// sysroot as "/": each component is lstat'ed on the host, and a symlink's target is spliced in
// front of the components still to visit (an absolute target restarts at the sysroot).
Expected<std::string> SysRoot::resolve(std::string_view inner) const {
  return resolve_as(inner, false);
}

Expected<std::string> SysRoot::resolve_as(std::string_view inner, bool directory) const {
  if (std::string known; directory && cached_folder(inner, 0, known)) {
    return known;
  }
  auto resolved = walk(inner, directory);
  if (directory && resolved) {
    const std::lock_guard lock(m_components->mutex);
    m_components->folders.emplace(inner, *resolved);
  }
  return resolved;
}

Expected<std::string> SysRoot::walk(std::string_view inner, bool directory) const {
  std::deque<std::string> todo = components(inner);
  std::vector<std::string> done;
  int links = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.front());
    todo.pop_front();
    if (part == "..") {
      if (!done.empty()) {
        done.pop_back();
      }
      continue;
    }
    done.push_back(part);
    const std::string current = to_inner(done);
    // A component with more to come is a directory or a link to one: those repeat across every
    // lookup of a run (/usr, /usr/lib, /usr/local/cuda), so what they are is looked up once. So
    // is the last component of a path resolved as a directory (the folder of a file that lstat()
    // examines: a search tries many names in the same folder). Any other last component is
    // examined afresh.
    const bool intermediate = !todo.empty() || directory;
    std::optional<std::string> cached_target;
    bool cached = false;
    if (intermediate) {
      const std::lock_guard lock(m_components->mutex);
      if (auto it = m_components->links.find(current); it != m_components->links.end()) {
        cached = true;
        cached_target = it->second;
      }
    }
    if (cached) {
      if (!cached_target) {
        continue;
      }
      if (++links > k_max_symlinks) {
        return make_error(ErrorCode::symlink_loop,
                          fmt::format("{}: too many levels of symbolic links", inner));
      }
      done.pop_back();
      if (!cached_target->empty() && cached_target->front() == '/') {
        done.clear();
      }
      std::deque<std::string> spliced = components(*cached_target);
      for (auto it = spliced.rbegin(); it != spliced.rend(); ++it) {
        todo.push_front(*it);
      }
      continue;
    }
    auto st = lstat_path(host_path(current));
    if (!st) {
      return tl::unexpected(
          Error{st.error().code,
                fmt::format("{}: {}",
                            current,
                            st.error().code == ErrorCode::not_found ? "no such file or directory"
                                                                    : st.error().message)});
    }
    if (st->kind != platform::FileKind::symlink) {
      if (intermediate && st->kind == platform::FileKind::directory) {
        const std::lock_guard lock(m_components->mutex);
        m_components->links.emplace(current, std::nullopt);
      }
      continue;
    }
    if (++links > k_max_symlinks) {
      return make_error(ErrorCode::symlink_loop,
                        fmt::format("{}: too many levels of symbolic links", inner));
    }
    auto target = platform::read_symlink(host_path(current));
    if (!target) {
      return tl::unexpected(target.error());
    }
    if (intermediate) {
      const std::lock_guard lock(m_components->mutex);
      m_components->links.emplace(current, *target);
    }
    done.pop_back();
    if (!target->empty() && target->front() == '/') {
      done.clear();
    }
    std::deque<std::string> spliced = components(*target);
    for (auto it = spliced.rbegin(); it != spliced.rend(); ++it) {
      todo.push_front(*it);
    }
  }
  return to_inner(done);
}

Error SysRoot::inner_error(const Error& error,
                           const std::filesystem::path& host,
                           std::string_view inner) {
  return Error{
      error.code,
      fmt::format("{}: {}", inner, util::replace_all(error.message, utf8(host) + ": ", ""))};
}

Expected<std::string>
SysRoot::read_file(std::string_view inner, std::size_t max_bytes, bool allow_truncate) const {
  auto real = resolve(inner);
  if (!real) {
    return tl::unexpected(real.error());
  }
  const std::filesystem::path host = host_path(*real);
  auto data = platform::read_file(host, max_bytes, allow_truncate);
  if (!data) {
    return tl::unexpected(
        inner_error(data.error(), host, inner)); // the inner path, not the host one
  }
  return data;
}

Expected<InputFile> SysRoot::open_resolved(std::string_view real) const {
  const std::filesystem::path host = host_path(real);
  auto file = InputFile::open(host);
  if (!file) {
    return tl::unexpected(inner_error(file.error(), host, real));
  }
  return file;
}

Expected<MappedFile> SysRoot::map_file(std::string_view inner) const {
  auto real = resolve(inner);
  if (!real) {
    return tl::unexpected(real.error());
  }
  const std::filesystem::path host = host_path(*real);
  auto mapped = MappedFile::open(host);
  if (!mapped) {
    return tl::unexpected(inner_error(mapped.error(), host, inner));
  }
  return mapped;
}

Expected<std::vector<platform::DirEntry>> SysRoot::list_dir(std::string_view inner) const {
  auto real = resolve(inner);
  if (!real) {
    return tl::unexpected(real.error());
  }
  const std::filesystem::path host = host_path(*real);
  auto entries = list_dir_entries(host);
  if (!entries) {
    return tl::unexpected(inner_error(entries.error(), host, inner));
  }
  return entries;
}

Expected<FileStat> SysRoot::lstat(std::string_view inner) const {
  auto status = lstat_resolved(inner);
  if (!status) {
    return tl::unexpected(status.error());
  }
  return status->stat;
}

// resolve() of a normalised path walks its folder exactly as lstat() does, then lstat()s the last
// component: unless that is a link, the canonical path is the folder's joined with the name.
Expected<SysRoot::LinkStatus> SysRoot::lstat_resolved(std::string_view inner) const {
  // A search's paths are mostly normal already: then no copy is made.
  std::string normalized;
  std::string_view normal = inner;
  if (!util::is_normal_path(inner)) {
    normalized = util::normalize_path(inner);
    normal = normalized;
  }
  if (normal == "/") {
    auto st = lstat_path(m_root);
    if (!st) {
      return tl::unexpected(st.error());
    }
    return LinkStatus{*st, inner == normal ? std::string(normal) : std::string()};
  }
  // `normal` is normalised: its folder is what comes before its last '/'.
  const std::size_t slash = normal.rfind('/');
  const std::string_view folder = slash == 0 ? std::string_view("/") : normal.substr(0, slash);
  const std::string_view name = normal.substr(slash + 1);
  // The real path is built in one string: the folder's canonical path (from the cache of
  // folders, or walked), then the name.
  std::string real;
  if (!cached_folder(folder, name.size() + 1, real)) {
    auto dir = resolve_as(folder, true);
    if (!dir) {
      return tl::unexpected(dir.error());
    }
    real = std::move(*dir);
  }
  if (real.empty() || real.back() != '/') {
    real += '/';
  }
  real += name;
  // On the live Linux machine the canonical inner path is the host path.
  auto st = m_host_is_inner ? lstat_utf8(real) : lstat_path(host_path(real));
  if (!st) {
    std::string message(inner); // most searched paths are absent: no format string to parse
    message += ": no such file or directory";
    return make_error(st.error().code, std::move(message));
  }
  if (st->kind == FileKind::symlink || inner != normal) {
    real.clear();
  }
  return LinkStatus{*st, std::move(real)};
}

bool SysRoot::cached_folder(std::string_view inner, std::size_t extra, std::string& out) const {
  const std::lock_guard lock(m_components->mutex);
  const auto it = m_components->folders.find(inner);
  if (it == m_components->folders.end()) {
    return false;
  }
  out.reserve(it->second.size() + extra);
  out = it->second;
  return true;
}

Expected<FileStat> SysRoot::stat(std::string_view inner) const {
  auto real = resolve(inner);
  if (!real) {
    return tl::unexpected(real.error());
  }
  return lstat_path(host_path(*real));
}

Expected<std::string> SysRoot::read_link(std::string_view inner) const {
  const std::string normal = util::normalize_path(inner);
  auto dir = resolve_as(util::parent_path(normal), true);
  if (!dir) {
    return tl::unexpected(dir.error());
  }
  return platform::read_symlink(host_path(util::join_path(*dir, util::file_name(normal))));
}

bool SysRoot::is_dir(std::string_view inner) const {
  auto st = stat(inner);
  return st && st->kind == platform::FileKind::directory;
}

bool SysRoot::is_file(std::string_view inner) const {
  auto st = stat(inner);
  return st && st->kind == platform::FileKind::regular;
}

bool SysRoot::exists(std::string_view inner) const {
  return stat(inner).has_value();
}

Expected<std::string> SysRoot::find_any_case(std::string_view inner) const {
  std::string current;
  for (const std::string& part : components(util::normalize_path(inner))) {
    std::string exact = current;
    exact += '/';
    exact += part;
    if (exists(exact)) {
      current = std::move(exact);
      continue;
    }
    auto entries = list_dir(current.empty() ? "/" : current);
    if (!entries) {
      return tl::unexpected(entries.error());
    }
    const std::string wanted = util::to_lower(part);
    const auto match = std::find_if(entries->begin(), entries->end(), [&](const DirEntry& e) {
      return util::to_lower(e.name) == wanted;
    });
    if (match == entries->end()) {
      return make_error(ErrorCode::not_found,
                        fmt::format("{}: no such file or directory (in any case)", exact));
    }
    current += '/';
    current += match->name;
  }
  return current.empty() ? std::string("/") : util::normalize_path(current);
}

std::optional<std::string> SysRoot::windows_directory() const {
  auto system32 = find_any_case("/Windows/System32");
  if (!system32 || !is_dir(*system32)) {
    return std::nullopt;
  }
  return system32->substr(0, system32->rfind('/'));
}

} // namespace doctor::platform
