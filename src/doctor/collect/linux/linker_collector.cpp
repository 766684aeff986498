// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/ld_cache_lookup.hpp>
#include <doctor/formats/ld_so_cache.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/wildcard.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr std::size_t k_max_conf = std::size_t{1024} * 1024;
constexpr int k_max_include_depth = 16;

// Expands an "include" pattern of ld.so.conf. ldconfig runs glob(3) on it; only the last
// component may carry wildcards in practice (/etc/ld.so.conf.d/*.conf), which is all we match.
std::vector<std::string> expand_include(const platform::SysRoot& root, const std::string& pattern) {
  const std::string dir = util::parent_path(pattern);
  const std::string name(util::file_name(pattern));
  if (!util::has_wildcard(name)) {
    return {pattern};
  }
  std::vector<std::string> out;
  auto entries = root.list_dir(dir);
  if (!entries) {
    return out;
  }
  for (const platform::DirEntry& e : *entries) {
    if (util::wildcard_match(name, e.name)) {
      out.push_back(util::join_path(dir, e.name)); // list_dir is sorted, as glob's result is
    }
  }
  return out;
}

// Reads one ld.so.conf file: directory lines, "include" lines (relative patterns are relative
// to the including file's directory) and "hwcap" lines (ignored by modern glibc).
void read_conf(const platform::SysRoot& root,
               const std::string& path,
               int depth,
               std::set<std::string>& visited,
               std::vector<std::string>& dirs) {
  if (depth > k_max_include_depth || !visited.insert(path).second) {
    return;
  }
  auto text = root.read_file(path, k_max_conf);
  if (!text) {
    return;
  }
  for (std::string_view line : util::split_lines(*text)) {
    const auto hash = line.find('#');
    if (hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = util::trim(line);
    if (line.empty()) {
      continue;
    }
    if (line.starts_with("include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
      for (std::string_view pattern : util::split(util::trim(line.substr(7)), ' ')) {
        if (pattern.empty()) {
          continue;
        }
        std::string full(pattern);
        if (full.front() != '/') {
          full = util::join_path(util::parent_path(path), full);
        }
        for (const std::string& file : expand_include(root, full)) {
          read_conf(root, file, depth + 1, visited, dirs);
        }
      }
      continue;
    }
    if (line.starts_with("hwcap") && line.size() > 5 && (line[5] == ' ' || line[5] == '\t')) {
      continue;
    }
    // A line may list several directories separated by blanks, commas or colons; an old
    // "dir=TYPE" suffix names the library type and is dropped.
    std::string entry(line);
    for (char& c : entry) {
      if (c == ',' || c == ':' || c == '\t') {
        c = ' ';
      }
    }
    for (std::string_view dir : util::split(entry, ' ')) {
      const auto eq = dir.find('=');
      dir = dir.substr(0, eq);
      if (!dir.empty() && dir.front() == '/') {
        const std::string normal = util::normalize_path(dir);
        if (std::find(dirs.begin(), dirs.end(), normal) == dirs.end()) {
          dirs.push_back(normal);
        }
      }
    }
  }
}

} // namespace

void collect_linker(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  LinkerInfo& linker = facts.linker;
  auto top = root.read_file("/etc/ld.so.conf", k_max_conf);
  if (!top && top.error().code != ErrorCode::not_found) {
    linker.conf_dirs = Fact<std::vector<std::string>>::unknown(
        fmt::format("cannot read /etc/ld.so.conf: {}", top.error().message));
  } else if (top) {
    std::vector<std::string> dirs;
    std::set<std::string> visited;
    read_conf(root, "/etc/ld.so.conf", 0, visited, dirs);
    linker.conf_dirs =
        Fact<std::vector<std::string>>::known(std::move(dirs), "file:/etc/ld.so.conf");
  } else {
    linker.conf_dirs = Fact<std::vector<std::string>>::unknown("/etc/ld.so.conf does not exist");
  }

  // Mapped, not read: the parse copies out what it keeps, and a copy of the whole file would
  // touch as many fresh pages of memory again.
  auto data = map_ld_so_cache(root);
  if (!data) {
    linker.cache = Fact<std::vector<LdCacheEntry>>::unknown(data.error().message);
  } else {
    // Each record straight into the facts: no vector of parsed records in between.
    std::vector<LdCacheEntry> entries;
    auto records = formats::visit_ld_so_cache(data->data(), [&](const formats::LdCacheView& r) {
      if (entries.empty()) {
        entries.reserve(r.count);
      }
      entries.push_back(
          LdCacheEntry{std::string(r.name), std::string(r.path), formats::ld_cache_arch(r.flags)});
    });
    if (records) {
      linker.cache =
          Fact<std::vector<LdCacheEntry>>::known(std::move(entries), "file:/etc/ld.so.cache");
    } else {
      linker.cache = Fact<std::vector<LdCacheEntry>>::unknown(
          fmt::format("/etc/ld.so.cache is damaged: {}", records.error().message));
    }
  }
  linker.default_dirs = linker_default_dirs(root, facts);
}

// The loader's built-in directories, searched after the cache. Debian-style multiarch systems
// search /lib/<triplet> and /usr/lib/<triplet> before /lib and /usr/lib (ld.so --help on Debian
// 12); RPM-style 64-bit systems use /lib64 and /usr/lib64 (ld.so(8)).
std::vector<std::string> linker_default_dirs(const platform::SysRoot& root, const Facts& facts) {
  std::string triplet = "x86_64-linux-gnu";
  if (facts.os.architecture) {
    const std::string& arch = *facts.os.architecture;
    if (arch == "aarch64") {
      triplet = "aarch64-linux-gnu";
    } else if (arch == "ppc64le") {
      triplet = "powerpc64le-linux-gnu";
    }
  }
  const std::string multiarch = "/lib/" + triplet;
  if (root.is_dir(multiarch) || root.is_dir("/usr" + multiarch)) {
    return {multiarch, "/usr" + multiarch, "/lib", "/usr/lib"};
  }
  return {"/lib64", "/usr/lib64", "/lib", "/usr/lib"};
}

} // namespace doctor::collect
