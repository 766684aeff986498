// SPDX-License-Identifier: MIT
// The CUDA and cuDNN versions a report names, in whatever wording: "cuda:8.0", "CUDA 11.8",
// "cuda12.1", "CUDA：11.3", "CUDA\v10.1\bin", "/usr/local/cuda-12.1", "torch 2.0.1+cu118",
// "nvidia-cudnn-cu12 9.1.0.70", "cuDNN: 7.4.2", "Loaded cuDNN version 8902" (8.9.2), "90100"
// (9.1.0), nvcc's "release 11.8", collect_env's "CUDA used to build PyTorch: 11.8", and the
// versions that library names carry (cudart64_101.dll, libcudart.so.8.0, cudnn64_7.dll,
// libcudnn.so.9).
//
// explain reads them from the head of each input (see Analysis) and compares them with the
// version of the library a loader failure names: a program asking for libcudart.so.10.1 on a
// machine whose report says CUDA 12.1 is a version mismatch, not a missing library.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::explain {

enum class VersionComponent { cuda, cudnn };

struct VersionMention {
  VersionComponent component = VersionComponent::cuda;
  std::string version; // "11.8", "12", "8.9.2", "7"
  unsigned major = 0;
  bool from_library_name = false; // cudart64_101.dll, libcudnn.so.8
  // The newest CUDA the driver supports (nvidia-smi's "CUDA Version", Paddle's "Driver API
  // Version"), not a CUDA that is installed or that a program was built for.
  bool driver_max = false;
  // Read from a package's CUDA tag ("+cu118", "mxnet-cu112"): the CUDA a build brings, not a
  // toolkit installed on the machine.
  bool build_tag = false;
  // The framework build that brings this version, when the line names the build rather than the
  // version ("torch 2.0.0+cu118", whose row in frameworks.json has cuDNN 8.7.0.84).
  std::string via;
  std::size_t begin = 0; // the phrase's span in the line
  std::size_t end = 0;
};

// Every version `line` names, in order. A line longer than 8 KiB is read up to there. Where two
// readings overlap, the more specific one (listed first in versions.cpp) is kept.
std::vector<VersionMention> find_version_mentions(std::string_view line);

// A framework build that a line names by its wheel version, whose knowledge-base row
// (frameworks.json) tells the CUDA and cuDNN it brings: "torch==2.0.0+cu118", "torch
// 2.1.0+cu121" in pip list, collect_env's "PyTorch version: 2.3.1+cu121".
struct FrameworkMention {
  std::string framework; // as frameworks.json names it: "torch"
  std::string version;   // "2.0.0"
  std::string variant;   // "cu118"
  std::size_t begin = 0; // the phrase's span in the line
  std::size_t end = 0;
};

// Every framework build `line` names, in order (at most 8; a line is read up to 8 KiB).
std::vector<FrameworkMention> find_framework_mentions(std::string_view line);

// Whether `line` may name a version (ASCII case ignored: "cu" or "nvrtc"): the cheap test that
// decides which lines are kept for find_version_mentions().
bool may_name_version(std::string_view line);

// A statement that a program was built for one version of a component and met another, in the
// reporter's or the program's own words: "PyTorch was compiled against 7102 but link against
// 7301", "compiled with cuDNN (8, 9, 2) but found (8, 5, 0)", "built for CUDA 12.1 while 11.8 is
// installed", "编译时用的 cuDNN 8.2，但运行时是 8.0". The first version after a "built" word
// (compiled, built, linked, requires, needs, expects, 编译) and before a turn ("but", "while",
// "however", "但", "而") is the one expected; the first after the turn is the one found. cuDNN's
// integer forms (7102, 90100) and tuples ((8, 9, 2)) are read as versions, CUDA's integer form
// (11040) as 11.4. A sentence about the driver ("but the driver supports 11.4") is not a pair.
struct VersionPair {
  VersionComponent component = VersionComponent::cudnn;
  std::string expected; // "7.1.2"
  std::string found;    // "7.3.1"
};

std::optional<VersionPair> find_version_pair(std::string_view line);

// cuDNN's integer version as CUDNN_VERSION and "Loaded cuDNN version" print it: 8902 -> "8.9.2",
// 90100 -> "9.1.0", 5005 -> "5.0.5". Nothing for a number that is not one.
std::optional<std::string> cudnn_version_of_number(unsigned long value);

// Whether a program that asks for CUDA `wanted` (from a library name: "11", "10.1", "12") is
// served by CUDA `found`: the same major from CUDA 11 on (the libraries keep their names across a
// major), the same major.minor before it (libcudart.so.10.1 is not in CUDA 10.2).
bool same_cuda_release(std::string_view wanted, std::string_view found);

} // namespace doctor::explain
