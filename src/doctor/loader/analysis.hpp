// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/file_probe.hpp>
#include <doctor/loader/linux_search.hpp>
#include <doctor/model/facts.hpp>

#include <string>
#include <string_view>
#include <vector>

// What each way of loading the GPU stack on this machine would really load: a framework's own
// libraries with their RPATH/RUNPATH, cuDNN's dispatcher opening its sub-libraries, the CUDA
// runtime opening the driver, a plain program. The same walk runs while collecting (through a
// recording SysRootProbe) and in the checks (through a FactsProbe over the snapshot).
namespace doctor::loader {

enum class LibraryRole {
  cudnn_dispatcher, // libcudnn.so.N
  cudnn_sublibrary, // libcudnn_ops.so.9, libcudnn_cnn_infer.so.8, …
  cuda_runtime,     // libcudart
  cuda_library,     // cuBLAS, cuBLASLt, NVRTC, cuFFT, NCCL, …
  driver,           // libcuda, libnvidia-ml
  zlib,             // libz
  other,
};

// Returns the role of a library by its soname ("libcublasLt.so.12" -> cuda_library).
LibraryRole role_of(std::string_view soname);

// One library asked for in a context, and why it was asked for.
struct LoadStep {
  Resolution resolution;
  LibraryRole role = LibraryRole::other;
  std::string reason; // "DT_NEEDED of …/libtorch_cuda.so", "opened by …/libcudnn.so.9 at run time"
};

struct LoadContext {
  std::string id;          // stable: "torch:/venv", "tensorflow:/venv", "program", "cudnn:/dir"
  std::string description; // "torch 2.15.0+cu132 in /venv"
  std::string subject;     // what findings are about
  std::string shipped_cudnn_dir; // the cuDNN the framework ships (pip nvidia/cudnn/lib), if any
  std::vector<LoadStep> steps;
};

// Walks every loading context of the facts' machine through `probe`. `kb` supplies cuDNN's
// library sets (which sub-libraries a dispatcher opens).
std::vector<LoadContext>
analyse_linux(const facts::Facts& facts, const kb::KnowledgeBase& kb, FileProbe& probe);

// The sub-libraries a cuDNN dispatcher of `major` may open: the knowledge base's full set (with
// optional members whose release is not newer than `version`) and any other member name of that
// major present in the facts' cuDNN directories.
std::vector<std::string> cudnn_members(const facts::Facts& facts,
                                       const kb::KnowledgeBase& kb,
                                       unsigned major,
                                       const facts::Fact<Version>& version);

} // namespace doctor::loader
