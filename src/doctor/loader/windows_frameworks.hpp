// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/loader/file_probe.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/model/facts.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

// How each framework loads its CUDA and cuDNN DLLs on Windows, and what cuDNN then loads itself:
// a simulation of one Python process that imports the framework and first uses cuDNN, step by
// step through resolve_windows, with the process's loaded-module list, DLL directories and PATH
// changing as the framework changes them. The framework-side rules come from the frameworks' own
// code (torch/__init__.py, TensorFlow's load_library.cc, Paddle's dynamic_loader.cc, ONNX
// Runtime's env.cc and __init__.py); the DLL lists and cuDNN's run-time loads come from
// data/kb/windows_loading.json, where every row names its source.
namespace doctor::loader {

// What the doctor knows about one Python environment on Windows before a program imports a
// framework in it. A Windows collector fills it from the interpreter's layout, the process
// environment and directory listings; tests fill it by hand.
struct WindowsPythonProcess {
  std::string exec_prefix;      // sys.exec_prefix: the environment (venv or conda prefix)
  std::string base_exec_prefix; // sys.base_exec_prefix; differs from exec_prefix in a venv
  std::string userbase;         // sysconfig's "userbase" (%APPDATA%\Python); "" not known
  std::string site_packages;
  unsigned python_minor = 10; // Python 3.<minor>
  // The loader state when the program starts. application_dir is the directory of the python.exe
  // that really runs: for a venv the base interpreter's, because the venv's python.exe only
  // launches it (unconfirmed for every Python version).
  WindowsLoaderConfig loader;
  // Variables other than PATH the frameworks read (CUDA_PATH_V11_8, ProgramFiles,
  // NVTOOLSEXT_PATH, FLAGS_cudnn_dir, FLAGS_cuda_dir); names compare without case.
  std::map<std::string, std::string> environment;
  // Directory -> the DLL file names in it, as a collector listed them. torch preloads every DLL
  // of torch\lib; without a listing only known GPU DLL names are looked for there.
  std::map<std::string, std::vector<std::string>> listings;
  bool calls_ort_preload_dlls = false; // the program calls onnxruntime.preload_dlls()
};

// One call a framework makes, before the DLLs' own loads: the plan.
struct WindowsLoadCall {
  enum class Kind { add_dll_directory, prepend_path, load };
  Kind kind = Kind::load;
  std::string target;      // the directory (or ';' list for prepend_path), or the DLL to load
  std::uint32_t flags = 0; // LoadLibraryExW flags of a load (0: LoadLibraryW)
  std::string reason;      // "preloaded by torch\__init__.py"
  std::string rule;        // the windows_loading.json rule id
  int group = -1; // loads of one group are alternatives: once one loads, the rest are skipped
  // torch: on error 126 set PATH = this + ';' + PATH (once) and retry with LoadLibraryW.
  std::string retry_path_prefix;
  bool fatal_on_error = false; // a failed load makes the framework's import raise
};

struct WindowsLoadPlan {
  std::vector<WindowsLoadCall> calls;
  std::vector<std::string> notes; // what is not modelled and why
};

// One DLL the simulated process asked for.
struct WindowsLoadStep {
  Resolution resolution;
  std::string dll;         // as asked: a bare name or a full path
  std::uint32_t flags = 0; // the load operation's flags
  std::string load_dir;    // the load operation's DLL directory, if it was started by full path
  LibraryRole role = LibraryRole::other;
  std::string reason; // "preloaded by torch\__init__.py", "opened at run time by …\cudnn64_8.dll"
  std::string rule;   // the windows_loading.json rule behind it ("" for an import read from a PE)
  // What the load returned: 0 loaded, 126 not found (the DLL or one of its imports), 193 a DLL of
  // another architecture found first. For an import, what resolving that import returned.
  unsigned error = 0;
  std::vector<std::string> notes; // shadowed copies, hand-placed copies in System32, guesses
};

struct WindowsLoadContext {
  std::string id;          // "torch:C:\venv"
  std::string description; // "torch 2.1.0+cu118 in C:\venv"
  std::vector<WindowsLoadStep> steps;
  std::vector<LoadedModule> loaded; // the process's loaded-module list at the end
  std::vector<std::string> notes;   // what was not modelled, versions not known
  bool import_failed = false;       // the framework's import raises (torch's preload)
};

// Returns the role of a Windows DLL by file name ("cudnn_ops64_9.dll" -> cudnn_sublibrary,
// "nvcuda.dll" -> driver).
LibraryRole windows_role_of(std::string_view dll);

// Expands {cuda_major}, {cuda_minor}, {cudnn_major} and {nvrtc_tag} (112 for CUDA 11.2+, 120 for
// 12.x: the number in nvrtc64_<tag>_0.dll). Returns "" if the pattern needs a CUDA version and
// `cuda` is empty.
std::string expand_dll_name(std::string_view pattern, const Version& cuda, unsigned cudnn_major);

// Returns what `framework` (torch, tensorflow, paddle, onnxruntime) asks the loader for at import
// and on first GPU use, in order, in `process`; `probe` answers which directories and files exist
// where the framework itself checks. An unknown framework gives an empty plan with a note.
WindowsLoadPlan plan_windows_framework(const facts::Framework& framework,
                                       const WindowsPythonProcess& process,
                                       const kb::KnowledgeBase& kb,
                                       FileProbe& probe);

// Runs the plan of `framework` and then cuDNN's own run-time loads (its sub-DLLs, zlibwapi,
// cuBLAS, NVRTC, the driver) in the process the plan left behind, following the GPU-relevant and
// Visual C++ runtime imports of every DLL found (from its PE import table, or
// windows_loading.json when its headers were not read). Which run-time loads a cuDNN DLL makes is
// decided by its version resource, else by the framework's cuDNN version; a cuDNN sub-library
// whose version resource differs from the dispatcher's is marked in its step's notes.
WindowsLoadContext simulate_windows_framework(const facts::Framework& framework,
                                              const WindowsPythonProcess& process,
                                              const kb::KnowledgeBase& kb,
                                              FileProbe& probe);

// A program that is not a framework (a C++ application, a tool built against the toolkit) calling
// LoadLibraryW for each of `dlls` by name in the process `process.loader` describes, then cuDNN's
// own run-time loads from the cuDNN it got, decided by that DLL's version resource.
WindowsLoadContext simulate_windows_program(const std::vector<std::string>& dlls,
                                            const WindowsPythonProcess& process,
                                            const kb::KnowledgeBase& kb,
                                            FileProbe& probe);

// Imports the extension module at `pyd_path` as CPython does (python_extension_request) and
// follows its GPU-relevant and Visual C++ runtime imports; no cuDNN run-time loads.
WindowsLoadContext simulate_python_extension(std::string_view pyd_path,
                                             const WindowsPythonProcess& process,
                                             const kb::KnowledgeBase& kb,
                                             FileProbe& probe);

} // namespace doctor::loader
