// SPDX-License-Identifier: MIT
#include "linux_search.hpp"

#include <doctor/platform/sysroot.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace doctor::loader {

namespace {

// The glibc-hwcaps subdirectories ld.so (glibc 2.33+) tries inside every search directory before
// the directory itself, best first, on x86-64 (ld.so --help: "Subdirectories of glibc-hwcaps
// directories, in priority order").
constexpr const char* k_hwcaps_x86_64[] = {"x86-64-v4", "x86-64-v3", "x86-64-v2"};

// The cache's architecture tag for an ELF machine as BinaryInfo names it.
std::string cache_arch_for(const facts::BinaryInfo* caller) {
  if (caller == nullptr || caller->machine.empty()) {
    return "x86-64";
  }
  if (caller->machine == "x86-64" || caller->machine == "i386" || caller->machine == "aarch64") {
    return caller->machine;
  }
  return caller->machine;
}

class Search {
public:
  Search(std::string_view name,
         const std::vector<LoaderObject>& chain,
         const LinuxLoaderConfig& config,
         FileProbe& probe)
      : m_name(name)
      , m_chain(chain)
      , m_config(config)
      , m_probe(probe) {
    m_result.name = std::string(name);
    m_result.requested_by = chain.empty() ? std::string() : chain.front().path;
  }

  Resolution run();

private:
  const facts::BinaryInfo* caller() const {
    return m_chain.empty() ? nullptr : m_chain.front().binary;
  }

  // Tries `dir`/name (after the glibc-hwcaps subdirectories of `dir` that exist).
  void try_dir(const std::string& dir, FoundVia via, const std::string& source);
  void try_file(const std::string& path, FoundVia via, const std::string& source);
  void skip(FoundVia via, const std::string& source, const std::string& what, std::string why);
  void search_list(const std::vector<std::string>& entries,
                   const std::string& object_path,
                   FoundVia via,
                   const std::string& source);

  std::string m_name;
  const std::vector<LoaderObject>& m_chain;
  const LinuxLoaderConfig& m_config;
  FileProbe& m_probe;
  Resolution m_result;
  std::set<std::string> m_seen_real;
  std::set<std::string> m_tried;
};

void Search::skip(FoundVia via,
                  const std::string& source,
                  const std::string& what,
                  std::string why) {
  m_result.steps.push_back(SearchStep{via, source, what, std::move(why), false});
}

// A candidate loads if it is a regular file whose ELF class and machine match the caller's;
// otherwise ld.so moves on silently ("wrong ELF class"), which is exactly why a 32-bit copy
// early on the path never explains itself at run time.
void Search::try_file(const std::string& path, FoundVia via, const std::string& source) {
  if (!m_tried.insert(path).second) {
    skip(via, source, path, "already tried");
    return;
  }
  const PathState st = m_probe.probe(path);
  if (!st.known) {
    m_result.unknown = true;
    skip(via, source, path, "not recorded in the snapshot");
    return;
  }
  if (!st.exists || st.is_dir) {
    skip(via, source, path, st.is_dir ? "a directory" : "absent");
    return;
  }
  const facts::BinaryInfo* me = caller();
  if (st.binary != nullptr) {
    if (st.binary->format != "elf") {
      skip(via, source, path, fmt::format("not an ELF file ({})", st.binary->format));
      return;
    }
    if (me != nullptr && me->bits != 0 && st.binary->bits != 0 && me->bits != st.binary->bits) {
      skip(via, source, path, fmt::format("wrong ELF class: {}-bit", st.binary->bits));
      return;
    }
    if (me != nullptr && !me->machine.empty() && !st.binary->machine.empty()
        && me->machine != st.binary->machine) {
      skip(via, source, path, fmt::format("wrong machine: {}", st.binary->machine));
      return;
    }
  }
  Candidate c{path, st.real_path.empty() ? path : st.real_path, via, source, st.binary};
  if (!m_result.chosen) {
    m_result.steps.push_back(SearchStep{via, source, path, "found", true});
    m_seen_real.insert(c.real_path);
    m_result.chosen = std::move(c);
    return;
  }
  if (m_seen_real.insert(c.real_path).second) {
    m_result.steps.push_back(
        SearchStep{via, source, path, "also here, but later in the order", true});
    m_result.shadowed.push_back(std::move(c));
  } else {
    m_result.steps.push_back(SearchStep{via, source, path, "the same file again", true});
  }
}

void Search::try_dir(const std::string& dir, FoundVia via, const std::string& source) {
  const std::string hwcaps = platform::join_path(dir, "glibc-hwcaps");
  if (m_probe.probe(hwcaps).is_dir) {
    for (const char* sub : k_hwcaps_x86_64) {
      try_file(platform::join_path(platform::join_path(hwcaps, sub), m_name),
               via,
               source + fmt::format(" (glibc-hwcaps {}: used only on CPUs that support it)", sub));
    }
  }
  try_file(platform::join_path(dir, m_name), via, source);
}

void Search::search_list(const std::vector<std::string>& entries,
                         const std::string& object_path,
                         FoundVia via,
                         const std::string& source) {
  for (const std::string& entry : entries) {
    const auto dir = expand_tokens(entry, object_path, m_config);
    if (!dir) {
      skip(via, source, entry, "skipped: unknown $TOKEN (ld.so ignores such entries)");
      continue;
    }
    if (dir->empty() || dir->front() != '/') {
      skip(via,
           source,
           entry,
           "skipped: relative to the process's current directory, which differs per run");
      continue;
    }
    try_dir(platform::normalize_path(*dir), via, source);
  }
}

Resolution Search::run() {
  if (m_name.find('/') != std::string::npos) {
    try_file(platform::normalize_path(m_name), FoundVia::direct, "path given");
    return std::move(m_result);
  }
  const facts::BinaryInfo* me = caller();
  const bool caller_has_runpath = me != nullptr && !me->runpath.empty();

  // 1. DT_RPATH of the caller, then of each object that loaded it, up to the executable - but
  //    only if the caller has no DT_RUNPATH, and never from an object that has one.
  if (caller_has_runpath) {
    skip(FoundVia::rpath, "RPATH", "", "skipped: the caller has a RUNPATH, so no RPATH is used");
  } else {
    for (const LoaderObject& obj : m_chain) {
      if (obj.binary == nullptr || obj.binary->rpath.empty()) {
        continue;
      }
      if (!obj.binary->runpath.empty()) {
        skip(FoundVia::rpath, "RPATH of " + obj.path, "", "skipped: that object has a RUNPATH");
        continue;
      }
      search_list(obj.binary->rpath, obj.path, FoundVia::rpath, "RPATH of " + obj.path);
    }
  }

  // 2. LD_LIBRARY_PATH: ':' or ';' separated; an empty entry is the current directory.
  if (m_config.ld_library_path_set) {
    std::string value = m_config.ld_library_path;
    std::replace(value.begin(), value.end(), ';', ':');
    for (std::string_view entry : util::split(value, ':')) {
      if (entry.empty()) {
        skip(FoundVia::ld_library_path,
             "LD_LIBRARY_PATH",
             ".",
             "an empty entry means the current directory, which differs per run");
        continue;
      }
      search_list({std::string(entry)}, "", FoundVia::ld_library_path, "LD_LIBRARY_PATH");
    }
  } else {
    skip(FoundVia::ld_library_path, "LD_LIBRARY_PATH", "", "not set");
  }

  // 3. DT_RUNPATH of the caller only: it is not inherited by what the caller loads.
  if (caller_has_runpath) {
    search_list(
        me->runpath, m_chain.front().path, FoundVia::runpath, "RUNPATH of " + m_chain.front().path);
  }

  // 4. /etc/ld.so.cache: the first entry of the right architecture. A caller with
  //    DF_1_NODEFLIB ignores entries in the default directories.
  const bool nodeflib = me != nullptr && me->nodeflib;
  if (!m_config.cache) {
    skip(FoundVia::ld_so_cache, "ld.so.cache", "/etc/ld.so.cache", "absent or unreadable");
  } else {
    const std::string arch = cache_arch_for(me);
    bool any = false;
    for (const facts::LdCacheEntry& e : *m_config.cache) {
      if (e.name != m_name) {
        continue;
      }
      any = true;
      if (e.arch != arch) {
        skip(FoundVia::ld_so_cache,
             "ld.so.cache",
             e.path,
             fmt::format("skipped: built for {}", e.arch));
        continue;
      }
      const std::string dir = platform::parent_path(e.path);
      if (nodeflib
          && std::find(m_config.default_dirs.begin(), m_config.default_dirs.end(), dir)
                 != m_config.default_dirs.end()) {
        skip(FoundVia::ld_so_cache,
             "ld.so.cache",
             e.path,
             "skipped: the caller has DF_1_NODEFLIB and this is a default directory");
        continue;
      }
      try_file(platform::normalize_path(e.path), FoundVia::ld_so_cache, "ld.so.cache");
      break; // ld.so takes one cache entry
    }
    if (!any) {
      skip(FoundVia::ld_so_cache, "ld.so.cache", "/etc/ld.so.cache", "no entry for this name");
    }
  }

  // 5. The default directories, unless the caller has DF_1_NODEFLIB.
  if (nodeflib) {
    skip(FoundVia::default_dirs, "default", "", "skipped: the caller has DF_1_NODEFLIB");
  } else {
    for (const std::string& dir : m_config.default_dirs) {
      try_dir(dir, FoundVia::default_dirs, "default");
    }
  }
  return std::move(m_result);
}

} // namespace

LinuxLoaderConfig linux_config_from(const facts::Facts& facts) {
  LinuxLoaderConfig c;
  if (const auto it = facts.environment.find("LD_LIBRARY_PATH"); it != facts.environment.end()) {
    c.ld_library_path = it->second;
    c.ld_library_path_set = true;
  }
  if (facts.linker.cache) {
    c.cache = *facts.linker.cache;
  }
  c.default_dirs = facts.linker.default_dirs;
  // $LIB is the distribution's library directory name: the multiarch one on Debian-style
  // systems, lib64 elsewhere (glibc's DL_DST_LIB as distributions configure it).
  const std::string arch = facts.os.architecture.value_or("x86_64");
  const std::string triplet = arch == "aarch64"   ? "aarch64-linux-gnu"
                              : arch == "ppc64le" ? "powerpc64le-linux-gnu"
                                                  : "x86_64-linux-gnu";
  const bool multiarch = std::find(c.default_dirs.begin(), c.default_dirs.end(), "/lib/" + triplet)
                         != c.default_dirs.end();
  c.lib_token = multiarch ? "lib/" + triplet : "lib64";
  c.platform_token = arch;
  return c;
}

std::optional<std::string> expand_tokens(std::string_view entry,
                                         std::string_view object_path,
                                         const LinuxLoaderConfig& config) {
  std::string out;
  std::size_t i = 0;
  while (i < entry.size()) {
    if (entry[i] != '$') {
      out += entry[i++];
      continue;
    }
    std::string_view rest = entry.substr(i + 1);
    std::string_view token;
    std::size_t used = 0;
    if (!rest.empty() && rest.front() == '{') {
      const auto close = rest.find('}');
      if (close == std::string_view::npos) {
        return std::nullopt;
      }
      token = rest.substr(1, close - 1);
      used = close + 1;
    } else {
      std::size_t n = 0;
      while (n < rest.size() && ((rest[n] >= 'A' && rest[n] <= 'Z') || rest[n] == '_')) {
        ++n;
      }
      token = rest.substr(0, n);
      used = n;
    }
    if (token == "ORIGIN") {
      if (object_path.empty()) {
        return std::nullopt;
      }
      out += platform::parent_path(object_path);
    } else if (token == "LIB") {
      out += config.lib_token;
    } else if (token == "PLATFORM") {
      out += config.platform_token;
    } else {
      return std::nullopt;
    }
    i += 1 + used;
  }
  return out;
}

Resolution resolve_linux(std::string_view name,
                         const std::vector<LoaderObject>& chain,
                         const LinuxLoaderConfig& config,
                         FileProbe& probe) {
  return Search(name, chain, config, probe).run();
}

} // namespace doctor::loader
