// SPDX-License-Identifier: MIT
// Loader failures read structurally. Every runtime words "a library did not load" its own way
// (the Windows loader through Python, .NET, Java, ONNX Runtime or Julia, glibc's dlopen, a C++
// program's own message, the console's language), but each such message carries the same three
// facts: which library failed, which one was missing (when it says), and what kind of failure it
// was. parse_load_failure() pulls those out of one line without a phrase per runtime, tolerating
// the typos real reports carry (",so", "..so", "libcudart so.8.0", a name without its suffix,
// either slash); classify_library() says what the library is, from the knowledge base's cuDNN
// library sets and the names of the CUDA, driver and runtime libraries. The decision from
// (library identity, error kind, platform) to a finding is data: signatures.json "loader_rules".
#pragma once

#include <doctor/kb/knowledge_base.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::explain {

enum class LoadErrorKind {
  unknown,
  not_found,          // the library itself is not on the search path (or not at all)
  dependency_missing, // the library is there, one it needs is not
  procedure_missing,  // a symbol or entry point is not exported: two versions mixed
  access_denied,      // the loader was refused the file (permissions, policy)
  wrong_architecture, // 32/64-bit or another CPU (WinError 193, wrong ELF class)
  invalid_image,      // not a valid library at all: truncated, zero-filled, a text file
  init_failed,        // loaded, but its initialisation routine failed (WinError 1114)
  out_of_memory,      // the loader ran out of memory (WinError 1455, the page file)
};

std::string_view to_string(LoadErrorKind kind);
// Returns the kind named by `name` ("not_found"...), or nothing.
std::optional<LoadErrorKind> load_error_kind(std::string_view name);

struct LoadFailure {
  std::string
      library; // lower-case file name of the library that failed ("cudnn_cnn_infer64_8.dll")
  std::string missing; // the dependency the message names as missing, when it does
  std::string module;  // the Python extension module, for "DLL load failed while importing M"
  // Python failed to import an extension module it does not name (Python 3.7 and older: "DLL
  // load failed: The specified procedure could not be found."); `module` is then empty.
  bool unnamed_module = false;
  std::string symbol; // the missing procedure or symbol, when named
  LoadErrorKind kind = LoadErrorKind::unknown;
  long code = -1;       // the Windows error or errno number given, or -1
  bool windows = false; // the message or the name is a Windows one
};

// Reads one log line. Returns nothing when the line does not report a library failing to load
// (a library merely named, or loaded, is not a failure).
std::optional<LoadFailure> parse_load_failure(std::string_view line);

// The kind of error a line states on its own, when it is the system's message for a load failure
// printed on the line after the one naming the library (Julia's Libdl and others print
// `could not load library "X"`, then "Access is denied." or "找不到指定的模块。"): a short line,
// decorations aside, whose words name a kind and that is not itself a load failure.
std::optional<LoadErrorKind> load_error_continuation(std::string_view line);

// Literals at least one of which every line that parse_load_failure() accepts contains (ASCII
// case ignored): the prefilter's triggers for it. They are the failure words and the error-number
// keys, not library names, and none is shorter than 8 bytes, so the sampled prefilter keeps its
// stride.
const std::vector<std::string>& load_failure_triggers();

// What a library is.
enum class LibraryRole {
  unknown,
  cudnn,            // the cuDNN dispatcher: cudnn64_8.dll, libcudnn.so.9
  cudnn_sublibrary, // cudnn_cnn_infer64_8.dll, libcudnn_ops.so.9
  zlib,             // zlibwapi.dll, which cuDNN 8.3-8.9 on Windows needs
  cuda_runtime,     // cudart
  cuda_library,     // cuBLAS, cuFFT, cuRAND, cuSOLVER, cuSPARSE, NVRTC, nvJitLink, CUPTI, NPP...
  driver,           // nvcuda.dll, libcuda.so.1
  nvml,             // nvml.dll, libnvidia-ml.so.1
  msvc_runtime,     // vcruntime140.dll, msvcp140.dll, the UCRT
  openmp,           // libomp140.x86_64.dll, vcomp140.dll, libiomp5md.dll, libgomp
  tensorrt,         // libnvinfer: optional for the frameworks that probe it
  framework,        // a framework's own library: torch_cuda.dll, c10.dll, onnxruntime.dll...
  python_extension, // a Python extension module (.pyd, *.cpython-*.so)
  gpu_module,       // a program's own GPU build, named so: yolo_cpp_dll_gpu.dll, *_cudafeatures.dll
};

std::string_view to_string(LibraryRole role);
std::optional<LibraryRole> library_role(std::string_view name);

struct LibraryIdentity {
  LibraryRole role = LibraryRole::unknown;
  unsigned cudnn_major = 0; // for the cuDNN roles, when the name tells
  std::string cuda_version; // for the CUDA roles, when the name tells ("11", "10.1", "12")
};

// Classifies a lower-case file name as parse_load_failure() returns it, using `cudnn_sets`
// (the knowledge base's cuDNN library sets) for the cuDNN roles.
LibraryIdentity classify_library(std::string_view name,
                                 const std::vector<kb::CudnnLibrarySet>& cudnn_sets);

} // namespace doctor::explain
