// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/loader/file_probe.hpp>
#include <doctor/loader/resolution.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The Windows loader's search for a DLL asked for by LoadLibrary/LoadLibraryEx or named in an
// import table, as Microsoft documents it ("Dynamic-link library search order",
// https://learn.microsoft.com/windows/win32/dlls/dynamic-link-library-search-order, and the
// LoadLibraryExW reference, .../api/libloaderapi/nf-libloaderapi-loadlibraryexw), for unpackaged
// desktop applications. The model works on facts only: paths are Windows paths held as strings,
// compared without regard to case, and every look at a file goes through a FileProbe, so the same
// code runs on Linux (tests, snapshots) and on Windows (a live collector fills the config).
//
// Not modelled: DLL redirection (.local), side-by-side manifests, API sets (api-ms-win-*),
// packaged apps and the package dependency graph, WOW64 file-system redirection (the model is a
// 64-bit process), and the registry's App Paths (which the loader ignores anyway).
namespace doctor::loader {

// LoadLibraryExW dwFlags (libloaderapi.h values, as listed in the LoadLibraryExW reference).
inline constexpr std::uint32_t k_load_with_altered_search_path = 0x00000008;
inline constexpr std::uint32_t k_load_library_search_dll_load_dir = 0x00000100;
inline constexpr std::uint32_t k_load_library_search_application_dir = 0x00000200;
inline constexpr std::uint32_t k_load_library_search_user_dirs = 0x00000400;
inline constexpr std::uint32_t k_load_library_search_system32 = 0x00000800;
inline constexpr std::uint32_t k_load_library_search_default_dirs = 0x00001000;
// Every LOAD_LIBRARY_SEARCH_* bit above.
inline constexpr std::uint32_t k_load_library_search_mask = 0x00001F00;

// GetLastError() values of a failed LoadLibrary.
inline constexpr unsigned k_error_mod_not_found = 126;  // ERROR_MOD_NOT_FOUND
inline constexpr unsigned k_error_bad_exe_format = 193; // ERROR_BAD_EXE_FORMAT

// A module already in the process ("the loaded-module list").
struct LoadedModule {
  std::string name; // base name as loaded ("cudnn64_8.dll")
  std::string path; // where it was loaded from
};

// The examined system and the process at the moment of the call: what a Windows collector reads
// from GetSystemDirectory/GetWindowsDirectory, the KnownDLLs and SafeDllSearchMode registry
// values, and the process's environment and loader settings. The frameworks model
// (windows_frameworks.hpp) copies and changes it as a simulated process adds DLL directories or
// edits PATH.
struct WindowsLoaderConfig {
  std::string windows_dir = "C:\\Windows"; // GetWindowsDirectory(), %SystemRoot%
  std::string system32;                    // GetSystemDirectory(); empty: windows_dir\System32
  std::string system16;                    // the 16-bit system directory; empty: windows_dir\System
  std::vector<std::string> known_dlls;     // the KnownDLLs key's values (file names)
  bool safe_dll_search_mode = true;        // HKLM\...\Session Manager\SafeDllSearchMode (default 1)
  unsigned process_bits = 64;              // the process's architecture: 64 or 32 bits
  std::string process_machine = "x64";     // as BinaryInfo names PE machines: "x64", "x86", "arm64"
  std::string application_dir;             // the directory of the process's .exe
  std::string current_dir;                 // empty: not known (it differs per run)
  std::string path;                        // the process's PATH (';' separated)
  // AddDllDirectory calls (Python's os.add_dll_directory), in call order.
  std::vector<std::string> user_dirs;
  // SetDllDirectory: nullopt never called; "" removes the current directory; a path is searched
  // after the application directory (and also as a user directory in LOAD_LIBRARY_SEARCH mode).
  std::optional<std::string> dll_directory;
  // SetDefaultDllDirectories flags; 0: never called, so LoadLibrary uses the standard order.
  std::uint32_t default_dll_directories = 0;
};

// One request to the loader.
struct WindowsLoadRequest {
  // LoadLibraryExW flags of the load operation; 0 for LoadLibraryW (the process default order).
  std::uint32_t flags = 0;
  // The directory of the DLL the load operation was started for by absolute path, used by
  // LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR and LOAD_WITH_ALTERED_SEARCH_PATH while its import-table
  // dependencies are found. Empty when the operation started with a bare name.
  std::string load_dir;
  std::string requested_by;         // who asks, for display ("C:\...\cudnn64_8.dll", "torch")
  std::vector<LoadedModule> loaded; // the process's loaded-module list
};

// Returns `path` with '/' turned into '\', repeated separators, "." and ".." removed and no
// trailing separator, keeping its case for display ("c:/Tools//cuda/bin/" -> "c:\Tools\cuda\bin").
std::string normalize_windows_path(std::string_view path);

// Returns the key the FileProbe is asked with and paths are compared by: the normalised path in
// lower case ("C:\Windows\System32\NVCUDA.dll" -> "c:\windows\system32\nvcuda.dll"). Only ASCII
// letters are folded.
std::string windows_path_key(std::string_view path);

// Joins a directory and a file name with one '\'.
std::string windows_join(std::string_view dir, std::string_view name);

// The directory part of `path` ("C:\a\b.dll" -> "C:\a"); "" if it has none.
std::string windows_parent(std::string_view path);

// The file part of `path` ("C:\a\b.dll" -> "b.dll").
std::string windows_file_name(std::string_view path);

// True for "C:\x", "C:/x" and "\\server\share\x".
bool is_absolute_windows_path(std::string_view path);

// Returns the PATH entries in order, without empty entries and surrounding quotes.
std::vector<std::string> split_windows_path_list(std::string_view value);

// Returns the file name a LoadLibrary call really looks for: ".dll" is appended to a name without
// an extension, and a trailing '.' (meaning "no extension") is dropped (LoadLibraryExW reference,
// lpFileName).
std::string with_default_extension(std::string_view name);

// How CPython (3.`python_minor`) asks for an extension module (.pyd) at `pyd_path`: 3.8+ calls
// LoadLibraryExW(path, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)
// (Python/dynload_win.c, bpo-36085), so the .pyd's dependencies are looked for in its own
// directory, the application directory, os.add_dll_directory directories and System32, never on
// PATH. Older versions used LOAD_WITH_ALTERED_SEARCH_PATH (unconfirmed for 3.7 and earlier).
WindowsLoadRequest python_extension_request(std::string_view pyd_path, unsigned python_minor);

// A ctypes.CDLL/WinDLL call as CPython 3.8+ makes it (Lib/ctypes/__init__.py, CDLL.__init__): with
// winmode=None the flags are LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, plus
// LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR when the name contains '/' or '\' (the name is then made
// absolute with nt._getfullpathname, here against `current_dir`); with a winmode the flags are
// exactly winmode. Before 3.8 ctypes called LoadLibrary (flags 0; unconfirmed).
struct CtypesLoad {
  std::string name; // what is passed to the loader
  WindowsLoadRequest request;
};
CtypesLoad ctypes_load(std::string_view name,
                       std::optional<std::uint32_t> winmode,
                       unsigned python_minor,
                       std::string_view current_dir);

// Resolves `dll_name` (a bare module name or a path) for `request` in the process `config`
// describes, through `probe`, which is asked with windows_path_key() paths. The first file of the
// name ends the search: a file of another architecture or not a PE image becomes `chosen` with
// `fatal_error` 193, because Windows fails the load there instead of searching on. The search
// still continues past the winner to list shadowed copies, and in LOAD_LIBRARY_SEARCH mode every
// PATH directory that holds the name is listed as "not searched".
Resolution resolve_windows(std::string_view dll_name,
                           const WindowsLoadRequest& request,
                           const WindowsLoaderConfig& config,
                           FileProbe& probe);

} // namespace doctor::loader
