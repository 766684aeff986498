// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// What a loader search found for one library name, shared by the Linux (linux_search.hpp) and
// Windows (windows_search.hpp) models: the winner, every path considered with why, and the copies
// the winner shadows.
namespace doctor::loader {

// How a candidate was found. The Linux values come first; the Windows values were appended (the
// JSON and text reports name them through to_string, so existing values keep their meaning).
enum class FoundVia {
  direct,
  rpath,
  ld_library_path,
  runpath,
  ld_so_cache,
  default_dirs,
  // Windows ("Dynamic-link library search order", learn.microsoft.com)
  known_dlls,    // HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\KnownDLLs
  loaded_module, // a module of that name is already loaded in the process
  app_dir,       // the directory of the process's .exe
  dll_load_dir,  // the directory of the DLL being loaded (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR or
                 // LOAD_WITH_ALTERED_SEARCH_PATH)
  user_dirs,     // AddDllDirectory / os.add_dll_directory / SetDllDirectory
  system32,      // GetSystemDirectory()
  system16,      // %SystemRoot%\System
  windows_dir,   // GetWindowsDirectory()
  current_dir,   // the process's current directory
  path,          // the PATH environment variable
  // Linux, appended: an object LD_PRELOAD loaded before the program, answering by its SONAME
  ld_preload,
};

// "direct", "rpath", "LD_LIBRARY_PATH", "runpath", "ld.so.cache", "default", "KnownDLLs",
// "already loaded", "app dir", "DLL load dir", "add_dll_directory", "System32", "System",
// "Windows", "current dir", "PATH", "LD_PRELOAD".
constexpr std::string_view to_string(FoundVia via) {
  switch (via) {
  case FoundVia::direct:
    return "direct";
  case FoundVia::rpath:
    return "rpath";
  case FoundVia::ld_library_path:
    return "LD_LIBRARY_PATH";
  case FoundVia::runpath:
    return "runpath";
  case FoundVia::ld_so_cache:
    return "ld.so.cache";
  case FoundVia::default_dirs:
    return "default";
  case FoundVia::known_dlls:
    return "KnownDLLs";
  case FoundVia::loaded_module:
    return "already loaded";
  case FoundVia::app_dir:
    return "app dir";
  case FoundVia::dll_load_dir:
    return "DLL load dir";
  case FoundVia::user_dirs:
    return "add_dll_directory";
  case FoundVia::system32:
    return "System32";
  case FoundVia::system16:
    return "System";
  case FoundVia::windows_dir:
    return "Windows";
  case FoundVia::current_dir:
    return "current dir";
  case FoundVia::path:
    return "PATH";
  case FoundVia::ld_preload:
    return "LD_PRELOAD";
  }
  return "direct";
}

// One path considered, or a run of paths that differ only in the folder.
struct SearchStep {
  SearchStep() = default;
  SearchStep(FoundVia via_,
             std::string source_,
             std::string path_,
             std::string outcome_,
             bool found_ = false)
      : via(via_)
      , source(std::move(source_))
      , path(std::move(path_))
      , outcome(std::move(outcome_))
      , found(found_) {}

  FoundVia via = FoundVia::direct;
  std::string source;  // "RPATH of /x/libtorch_cuda.so", "LD_LIBRARY_PATH", "ld.so.cache"
  std::string path;    // the candidate file, or the directory when skipped as a whole
  std::string outcome; // "found", "absent", "wrong ELF class: 32-bit", "skipped: …"
  bool found = false;  // a loadable candidate
  // A run: this step stands for `count` consecutive paths of one source with the same file name
  // and outcome, in as many folders, from `path` to `last_path` (a LD_LIBRARY_PATH of hundreds
  // of folders would otherwise store one step per folder for every library asked for).
  std::uint32_t count = 1;
  std::string last_path; // count > 1 only
};

// A search folds a run of this many or more such steps into one (SearchStep::count).
inline constexpr std::uint32_t k_step_run = 8;

struct Candidate {
  std::string path; // as found: this becomes the library's $ORIGIN
  std::string real_path;
  FoundVia via = FoundVia::direct;
  std::string source;
  const facts::BinaryInfo* binary = nullptr;
};

struct Resolution {
  std::string name;
  std::string requested_by; // the caller's path, or "" for a program without RPATH/RUNPATH
  std::optional<Candidate> chosen;
  std::vector<SearchStep> steps;   // every path considered, in order, also after the winner
  std::vector<Candidate> shadowed; // loadable copies later in the order (other real files)
  bool unknown = false;            // some path could not be judged (a snapshot without it)
  // The load fails at a file the search met. Windows: the loader stops at the first file of the
  // name, so `chosen` may be a file it cannot load; then this is the error LoadLibrary returns
  // (193: ERROR_BAD_EXE_FORMAT, a DLL of another architecture). Linux: ld.so skips files of
  // another ELF class or machine but fails on one that is no ELF file at all; then `chosen` is
  // empty, this is k_error_not_elf (linux_search.hpp) and `fatal_message` says why. 0: no failure.
  unsigned fatal_error = 0;
  std::string fatal_message; // Linux: dlerror()'s text, "/a/libx.so: invalid ELF header"
  // The doctor could not examine a candidate before any answer (out of memory or file
  // descriptors: a resource limit of its own, collect::read_binary's read_error "resource"):
  // then no `chosen`, and this is why. "" otherwise.
  std::string undetermined;
};

} // namespace doctor::loader
