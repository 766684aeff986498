// SPDX-License-Identifier: MIT
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <set>

namespace doctor::loader {

namespace {

bool is_separator(char c) {
  return c == '\\' || c == '/';
}

char fold(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool same_name(std::string_view a, std::string_view b) {
  return windows_path_key(a) == windows_path_key(b);
}

// A directory in the search order, with how it got there.
struct SearchDir {
  std::string path;
  FoundVia via = FoundVia::direct;
  std::string source;
};

// Why a file of the right name is not loadable in this process, or "" if it is (as far as its
// headers were read). Windows maps the first file it finds; a 32-bit DLL in a 64-bit process (or a
// file that is no PE image at all) fails with ERROR_BAD_EXE_FORMAT there.
std::string image_problem(const facts::BinaryInfo* binary, const WindowsLoaderConfig& config) {
  if (binary == nullptr) {
    return {};
  }
  if (binary->format != "pe") {
    return fmt::format("it is not a PE image ({})", binary->format);
  }
  if (binary->bits != 0 && config.process_bits != 0 && binary->bits != config.process_bits) {
    return fmt::format("it is a {}-bit DLL in a {}-bit process", binary->bits, config.process_bits);
  }
  if (!binary->machine.empty() && !config.process_machine.empty()
      && binary->machine != config.process_machine) {
    return fmt::format(
        "it is built for {}, the process for {}", binary->machine, config.process_machine);
  }
  return {};
}

class WindowsSearch {
public:
  WindowsSearch(std::string_view name,
                const WindowsLoadRequest& request,
                const WindowsLoaderConfig& config,
                FileProbe& probe)
      : m_file(with_default_extension(name))
      , m_request(request)
      , m_config(config)
      , m_probe(probe) {
    m_result.name = std::string(name);
    m_result.requested_by = request.requested_by;
  }

  Resolution run();

private:
  std::string system32() const {
    return m_config.system32.empty() ? windows_join(m_config.windows_dir, "System32")
                                     : m_config.system32;
  }
  std::string system16() const {
    return m_config.system16.empty() ? windows_join(m_config.windows_dir, "System")
                                     : m_config.system16;
  }

  void skip(FoundVia via, std::string source, std::string what, std::string why) {
    m_result.steps.push_back(
        SearchStep{via, std::move(source), std::move(what), std::move(why), false});
  }
  void try_file(const std::string& path, FoundVia via, const std::string& source);
  void try_dir(const SearchDir& dir);
  bool try_loaded_module();
  std::vector<SearchDir> search_flags_order(std::uint32_t bits);
  std::vector<SearchDir> standard_order();
  void add_path_entries(std::vector<SearchDir>& out, FoundVia via);
  void list_not_searched();
  void note_unspecified_user_dir_order();

  std::string m_file; // the file name looked for (".dll" added when the name has no extension)
  const WindowsLoadRequest& m_request;
  const WindowsLoaderConfig& m_config;
  FileProbe& m_probe;
  Resolution m_result;
  std::set<std::string> m_tried;     // keys of files already tried
  std::set<std::string> m_seen_real; // keys of the real files found
  bool m_search_flags_mode = false;
};

// The first file of the name wins, loadable or not: unlike ld.so, the Windows loader does not skip
// a DLL of the wrong architecture and search on, it fails with error 193. Later copies are listed
// as shadowed so that a report can say where a loadable copy is.
void WindowsSearch::try_file(const std::string& path, FoundVia via, const std::string& source) {
  const std::string key = windows_path_key(path);
  if (!m_tried.insert(key).second) {
    skip(via, source, path, "already tried");
    return;
  }
  const PathState st = m_probe.probe(key);
  if (!st.known) {
    m_result.unknown = true;
    skip(via, source, path, "not recorded in the snapshot");
    return;
  }
  if (!st.exists || st.is_dir) {
    skip(via, source, path, st.is_dir ? "a directory" : "absent");
    return;
  }
  if (!st.kind.empty() && st.kind != "regular") {
    // A FIFO, socket or device node in a Windows tree mounted on Linux: no file Windows could
    // open as a DLL (its file systems hold none), and the doctor does not open it either.
    skip(via, source, path, fmt::format("not a file Windows can load ({})", st.kind));
    return;
  }
  if (st.binary != nullptr && st.binary->read_error == "resource") {
    m_result.unknown = true;
    if (m_result.undetermined.empty() && !m_result.chosen) {
      m_result.undetermined = st.binary->read_error_message;
    }
    skip(via, source, path, "could not be examined: " + st.binary->read_error_message);
    return;
  }
  if (!m_result.undetermined.empty() && !m_result.chosen) {
    skip(via, source, path, "not judged: an earlier candidate could not be examined");
    return;
  }
  const std::string problem = image_problem(st.binary, m_config);
  Candidate c{path, st.real_path.empty() ? path : st.real_path, via, source, st.binary};
  const bool new_file = m_seen_real.insert(windows_path_key(c.real_path)).second;
  if (!m_result.chosen) {
    if (problem.empty()) {
      m_result.steps.push_back(SearchStep{via, source, path, "found", true});
    } else {
      m_result.fatal_error = k_error_bad_exe_format;
      m_result.steps.push_back(
          SearchStep{via,
                     source,
                     path,
                     fmt::format("found first, but {}: LoadLibrary fails here with error 193 "
                                 "(ERROR_BAD_EXE_FORMAT); Windows does not search on",
                                 problem),
                     false});
    }
    m_result.chosen = std::move(c);
    return;
  }
  if (!problem.empty()) {
    skip(via, source, path, fmt::format("also here, but {}", problem));
    return;
  }
  if (!new_file) {
    m_result.steps.push_back(SearchStep{via, source, path, "the same file again", true});
    return;
  }
  m_result.steps.push_back(SearchStep{
      via,
      source,
      path,
      m_result.fatal_error != 0
          ? "a loadable copy, but never reached: the search stops at the first file of the name"
          : "also here, but later in the order",
      true});
  m_result.shadowed.push_back(std::move(c));
}

void WindowsSearch::try_dir(const SearchDir& dir) {
  if (dir.path.empty()) {
    if (dir.via == FoundVia::app_dir) {
      m_result.unknown = true;
      skip(dir.via, dir.source, "", "not known");
    } else if (dir.via == FoundVia::current_dir) {
      skip(dir.via, dir.source, "", "not judged: the current directory differs per run");
    } else {
      skip(dir.via,
           dir.source,
           "",
           "skipped: not an absolute path, so it depends on the current directory");
    }
    return;
  }
  try_file(windows_join(dir.path, m_file), dir.via, dir.source);
}

// "If a DLL with the same module name is already loaded in memory, the system uses the loaded
// DLL, no matter which directory it is in" (search-order documentation, "Factors that affect
// searching"). Only a bare name is matched by module name; a full path matches the same file.
bool WindowsSearch::try_loaded_module() {
  const bool by_path = m_file.find_first_of("\\/") != std::string::npos;
  for (const LoadedModule& m : m_request.loaded) {
    const bool match = by_path ? same_name(normalize_windows_path(m_file), m.path)
                               : same_name(windows_file_name(m.name), m_file);
    if (!match) {
      continue;
    }
    const PathState st = m_probe.probe(windows_path_key(m.path));
    Candidate c{m.path,
                st.real_path.empty() ? m.path : st.real_path,
                FoundVia::loaded_module,
                "loaded-module list",
                st.binary};
    m_result.steps.push_back(
        SearchStep{FoundVia::loaded_module,
                   "loaded-module list",
                   m.path,
                   "already loaded: the loader uses this module and does not search",
                   true});
    m_result.chosen = std::move(c);
    return true;
  }
  return false;
}

void WindowsSearch::add_path_entries(std::vector<SearchDir>& out, FoundVia via) {
  for (const std::string& entry : split_windows_path_list(m_config.path)) {
    if (is_absolute_windows_path(entry)) {
      out.push_back({normalize_windows_path(entry), via, "PATH"});
    } else if (!m_config.current_dir.empty() && entry.find('%') == std::string::npos) {
      out.push_back({normalize_windows_path(windows_join(m_config.current_dir, entry)),
                     via,
                     "PATH (relative entry, taken from the current directory)"});
    } else {
      out.push_back({"", via, "PATH entry \"" + entry + "\" (not an absolute path)"});
    }
  }
}

// LOAD_LIBRARY_SEARCH_* order: "If you use more than one flag, then the corresponding directories
// are searched in this order: DLL_LOAD_DIR, APPLICATION_DIR, USER_DIRS, SYSTEM32" (search-order
// documentation); DEFAULT_DIRS is APPLICATION_DIR | SYSTEM32 | USER_DIRS (LoadLibraryExW
// reference). "Directories in the standard search path are not searched."
std::vector<SearchDir> WindowsSearch::search_flags_order(std::uint32_t bits) {
  if ((bits & k_load_library_search_default_dirs) != 0) {
    bits |= k_load_library_search_application_dir | k_load_library_search_user_dirs
            | k_load_library_search_system32;
  }
  std::vector<SearchDir> out;
  if ((bits & k_load_library_search_dll_load_dir) != 0) {
    if (is_absolute_windows_path(m_request.load_dir)) {
      out.push_back({normalize_windows_path(m_request.load_dir),
                     FoundVia::dll_load_dir,
                     "directory of the DLL being loaded (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)"});
    } else {
      skip(FoundVia::dll_load_dir,
           "LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR",
           "",
           "skipped: it applies only when a DLL is loaded by its full path");
    }
  }
  if ((bits & k_load_library_search_application_dir) != 0) {
    out.push_back({m_config.application_dir,
                   FoundVia::app_dir,
                   "application directory (LOAD_LIBRARY_SEARCH_APPLICATION_DIR)"});
  }
  if ((bits & k_load_library_search_user_dirs) != 0) {
    std::vector<std::string> dirs = m_config.user_dirs;
    if (m_config.dll_directory && !m_config.dll_directory->empty()) {
      dirs.push_back(*m_config.dll_directory);
    }
    const bool several = dirs.size() > 1;
    for (const std::string& d : dirs) {
      out.push_back({normalize_windows_path(d),
                     FoundVia::user_dirs,
                     several ? "os.add_dll_directory / AddDllDirectory (the order among these "
                               "directories is unspecified; modelled in call order)"
                             : "os.add_dll_directory / AddDllDirectory"});
    }
  }
  if ((bits & k_load_library_search_system32) != 0) {
    out.push_back({system32(), FoundVia::system32, "System32 (LOAD_LIBRARY_SEARCH_SYSTEM32)"});
  }
  return out;
}

// The standard order for unpackaged desktop applications, safe DLL search mode on: application
// directory, System32, System, Windows, current directory, PATH; with it off the current directory
// comes second. LOAD_WITH_ALTERED_SEARCH_PATH with a full path puts the loaded DLL's directory in
// place of the application directory ("That's the only way in which they differ"). SetDllDirectory
// inserts its directory after the first and drops the current directory.
std::vector<SearchDir> WindowsSearch::standard_order() {
  std::vector<SearchDir> out;
  const bool altered = (m_request.flags & k_load_with_altered_search_path) != 0
                       && is_absolute_windows_path(m_request.load_dir);
  if (altered) {
    out.push_back({normalize_windows_path(m_request.load_dir),
                   FoundVia::dll_load_dir,
                   "directory of the DLL being loaded (LOAD_WITH_ALTERED_SEARCH_PATH)"});
  } else {
    out.push_back({m_config.application_dir, FoundVia::app_dir, "application directory"});
  }
  const bool set_dll_dir = m_config.dll_directory.has_value();
  if (set_dll_dir && !m_config.dll_directory->empty()) {
    out.push_back(
        {normalize_windows_path(*m_config.dll_directory), FoundVia::user_dirs, "SetDllDirectory"});
  }
  const SearchDir cwd{m_config.current_dir, FoundVia::current_dir, "current directory"};
  if (!m_config.safe_dll_search_mode && !set_dll_dir) {
    out.push_back(cwd);
  }
  out.push_back({system32(), FoundVia::system32, "System32"});
  out.push_back({system16(), FoundVia::system16, "16-bit system directory"});
  out.push_back({m_config.windows_dir, FoundVia::windows_dir, "Windows directory"});
  if (m_config.safe_dll_search_mode && !set_dll_dir) {
    out.push_back(cwd);
  } else if (set_dll_dir) {
    skip(FoundVia::current_dir,
         "current directory",
         "",
         "not searched: SetDllDirectory removes it from the order");
  }
  add_path_entries(out, FoundVia::path);
  return out;
}

// In LOAD_LIBRARY_SEARCH mode PATH and the current directory are not searched; users expect them
// to be, so each is listed, and a copy of the DLL there is pointed out.
void WindowsSearch::list_not_searched() {
  std::vector<SearchDir> dirs;
  if (!m_config.current_dir.empty()) {
    dirs.push_back({m_config.current_dir, FoundVia::current_dir, "current directory"});
  }
  add_path_entries(dirs, FoundVia::path);
  for (const SearchDir& d : dirs) {
    if (d.path.empty()) {
      continue;
    }
    const std::string file = windows_join(d.path, m_file);
    const PathState st = m_probe.probe(windows_path_key(file));
    const bool here = st.known && st.exists && !st.is_dir;
    skip(d.via,
         d.source,
         file,
         here ? "the file is here, but not searched: LOAD_LIBRARY_SEARCH_* flags leave out PATH "
                "and the current directory"
              : "not searched: LOAD_LIBRARY_SEARCH_* flags leave out PATH and the current "
                "directory");
  }
}

// "If more than one path has been added, the order in which the paths are searched is
// unspecified": when another AddDllDirectory directory holds a different copy, say so.
void WindowsSearch::note_unspecified_user_dir_order() {
  if (!m_result.chosen || m_result.chosen->via != FoundVia::user_dirs) {
    return;
  }
  for (const Candidate& c : m_result.shadowed) {
    if (c.via != FoundVia::user_dirs) {
      continue;
    }
    for (SearchStep& s : m_result.steps) {
      if (s.path == m_result.chosen->path && s.via == FoundVia::user_dirs) {
        s.outcome += fmt::format(
            "; {} may be taken instead: Windows does not specify the order "
            "among AddDllDirectory directories",
            c.path);
      }
    }
  }
}

Resolution WindowsSearch::run() {
  if (try_loaded_module()) {
    return std::move(m_result);
  }
  if (m_file.find_first_of("\\/") != std::string::npos) {
    // "If the string specifies a fully qualified path, the function searches only that path."
    if (is_absolute_windows_path(m_file)) {
      try_file(normalize_windows_path(m_file), FoundVia::direct, "path given");
    } else if (!m_config.current_dir.empty()) {
      try_file(normalize_windows_path(windows_join(m_config.current_dir, m_file)),
               FoundVia::current_dir,
               "relative path, from the current directory");
    } else {
      skip(FoundVia::current_dir,
           "relative path",
           m_file,
           "not judged: relative to the current directory, which differs per run");
      m_result.unknown = true;
    }
    return std::move(m_result);
  }
  // KnownDLLs are always the System32 copy.
  for (const std::string& known : m_config.known_dlls) {
    if (same_name(with_default_extension(known), m_file)) {
      try_file(windows_join(system32(), m_file), FoundVia::known_dlls, "KnownDLLs");
      return std::move(m_result);
    }
  }
  std::uint32_t bits = m_request.flags & k_load_library_search_mask;
  const bool altered = (m_request.flags & k_load_with_altered_search_path) != 0;
  if (bits == 0 && !altered) {
    bits = m_config.default_dll_directories & k_load_library_search_mask;
  }
  m_search_flags_mode = bits != 0;
  const std::vector<SearchDir> order =
      m_search_flags_mode ? search_flags_order(bits) : standard_order();
  for (const SearchDir& dir : order) {
    try_dir(dir);
  }
  if (m_search_flags_mode) {
    list_not_searched();
  }
  note_unspecified_user_dir_order();
  return std::move(m_result);
}

} // namespace

std::string normalize_windows_path(std::string_view path) {
  std::string prefix;
  std::size_t i = 0;
  if (path.size() >= 2 && is_separator(path[0]) && is_separator(path[1])) {
    prefix = "\\\\"; // UNC
    i = 2;
  } else if (path.size() >= 2 && path[1] == ':') {
    prefix = std::string(path.substr(0, 2));
    i = 2;
    if (path.size() > 2 && is_separator(path[2])) {
      prefix += '\\';
      i = 3;
    }
  } else if (!path.empty() && is_separator(path[0])) {
    prefix = "\\";
    i = 1;
  }
  std::vector<std::string_view> parts;
  while (i < path.size()) {
    std::size_t j = i;
    while (j < path.size() && !is_separator(path[j])) {
      ++j;
    }
    const std::string_view part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (prefix.empty()) {
        parts.push_back(part);
      }
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out = prefix;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (k != 0) {
      out += '\\';
    }
    out += parts[k];
  }
  return out;
}

std::string windows_path_key(std::string_view path) {
  std::string out = normalize_windows_path(path);
  for (char& c : out) {
    c = fold(c);
  }
  return out;
}

std::string windows_join(std::string_view dir, std::string_view name) {
  if (dir.empty()) {
    return std::string(name);
  }
  std::string out(dir);
  if (!is_separator(out.back())) {
    out += '\\';
  }
  out += name;
  return out;
}

std::string windows_parent(std::string_view path) {
  const std::string norm = normalize_windows_path(path);
  const auto pos = norm.find_last_of('\\');
  if (pos == std::string::npos) {
    return norm.size() >= 2 && norm[1] == ':' ? norm.substr(0, 2) : std::string();
  }
  if (pos == 2 && norm[1] == ':') {
    return norm.substr(0, 3); // "C:\x" -> "C:\"
  }
  return norm.substr(0, pos);
}

std::string windows_file_name(std::string_view path) {
  const auto pos = path.find_last_of("\\/:");
  return std::string(pos == std::string_view::npos ? path : path.substr(pos + 1));
}

bool is_absolute_windows_path(std::string_view path) {
  if (path.size() >= 3 && path[1] == ':' && is_separator(path[2])) {
    const char d = fold(path[0]);
    return d >= 'a' && d <= 'z';
  }
  return path.size() >= 2 && is_separator(path[0]) && is_separator(path[1]);
}

std::vector<std::string> split_windows_path_list(std::string_view value) {
  std::vector<std::string> out;
  for (std::string_view entry : util::split(value, ';')) {
    entry = util::trim(entry);
    if (entry.size() >= 2 && entry.front() == '"' && entry.back() == '"') {
      entry = entry.substr(1, entry.size() - 2);
    }
    if (!entry.empty()) {
      out.emplace_back(entry);
    }
  }
  return out;
}

std::string with_default_extension(std::string_view name) {
  const std::string file = windows_file_name(name);
  if (!file.empty() && file.back() == '.') {
    return std::string(name.substr(0, name.size() - 1));
  }
  if (file.find('.') == std::string::npos) {
    return std::string(name) + ".dll";
  }
  return std::string(name);
}

WindowsLoadRequest python_extension_request(std::string_view pyd_path, unsigned python_minor) {
  WindowsLoadRequest r;
  r.flags = python_minor >= 8
                ? k_load_library_search_default_dirs | k_load_library_search_dll_load_dir
                : k_load_with_altered_search_path;
  r.load_dir = windows_parent(pyd_path);
  r.requested_by = "Python import of " + std::string(pyd_path);
  return r;
}

CtypesLoad ctypes_load(std::string_view name,
                       std::optional<std::uint32_t> winmode,
                       unsigned python_minor,
                       std::string_view current_dir) {
  CtypesLoad out;
  out.name = std::string(name);
  out.request.requested_by = "ctypes.CDLL(\"" + std::string(name) + "\")";
  const bool has_path = name.find_first_of("\\/") != std::string_view::npos;
  if (has_path && !is_absolute_windows_path(name) && !current_dir.empty()) {
    out.name = normalize_windows_path(windows_join(current_dir, name));
  }
  if (has_path && is_absolute_windows_path(out.name)) {
    out.request.load_dir = windows_parent(out.name);
  }
  if (python_minor < 8) {
    out.request.flags = 0;
  } else if (winmode) {
    out.request.flags = *winmode;
  } else {
    out.request.flags = k_load_library_search_default_dirs;
    if (has_path) {
      out.request.flags |= k_load_library_search_dll_load_dir;
    }
  }
  return out;
}

Resolution resolve_windows(std::string_view dll_name,
                           const WindowsLoadRequest& request,
                           const WindowsLoaderConfig& config,
                           FileProbe& probe) {
  return WindowsSearch(dll_name, request, config, probe).run();
}

} // namespace doctor::loader
