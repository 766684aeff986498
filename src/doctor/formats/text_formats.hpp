// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/version.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Parsers for the small text files collectors read. Pure functions over text: every one accepts
// any bytes (truncated, binary, huge lines) and answers nullopt or an empty result rather than
// guessing. Fuzzed by tests/fuzz/fuzz_text_formats.cpp.
namespace doctor::formats {

// Parses os-release(5): KEY=value lines, values optionally quoted. Ignores comments and junk.
std::map<std::string, std::string> parse_os_release(std::string_view text);

struct NvidiaModuleVersion {
  std::string version; // "535.104.05"
  std::string type;    // "open" or "proprietary"
  std::string banner;  // the whole NVRM line
};

// Parses /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05
// …" or "… Open Kernel Module for x86_64  570.86.15 …"). nullopt if no NVRM line with a version.
std::optional<NvidiaModuleVersion> parse_nvidia_proc_version(std::string_view text);

// Parses /proc/meminfo into bytes per key ("MemTotal" -> 25165824000). Values in kB are scaled.
std::map<std::string, std::uint64_t> parse_meminfo(std::string_view text);

struct CpuInfo {
  std::string model;       // first "model name" (x86) or "Model"/"CPU part" fallbacks
  std::uint64_t count = 0; // "processor" entries
};

// Parses /proc/cpuinfo.
CpuInfo parse_cpuinfo(std::string_view text);

// Returns the names of loaded modules in /proc/modules text.
std::vector<std::string> parse_proc_modules(std::string_view text);

// Returns the paths of NVIDIA driver modules (nvidia.ko, Debian's nvidia-current.ko,
// nvidia-tesla-*, nvidia-legacy-*, nvidia-open*; compressed or not) that a modules.dep lists, as
// written there (relative to the kernel's module directory, or absolute). The kernel's own nvidiafb
// and nvidia-wmi-ec-backlight are not the NVIDIA driver and are skipped.
std::vector<std::string> parse_modules_dep_nvidia(std::string_view text);

// Reads the toolkit version from a CUDA version.json ({"cuda": {"version": "12.4.1"}}).
std::optional<Version> parse_cuda_version_json(std::string_view text);

// Reads the toolkit version from a CUDA version.txt ("CUDA Version 10.2.89").
std::optional<Version> parse_cuda_version_txt(std::string_view text);

// Returns the integer value of `#define name <integer>` in C header text, or nullopt.
std::optional<std::int64_t> find_define(std::string_view header, std::string_view name);

// Reads cuDNN's version from cudnn_version.h (cuDNN >= 8) or cudnn.h (cuDNN 7): CUDNN_MAJOR,
// CUDNN_MINOR and CUDNN_PATCHLEVEL.
std::optional<Version> parse_cudnn_header(std::string_view header);

// Reads CUDA_VERSION from cuda.h or CUDART_VERSION from cuda_runtime_api.h (13000 -> 13.0).
std::optional<Version> parse_cuda_header(std::string_view header);

struct DistInfoName {
  std::string name; // normalised per PEP 503: lower case, runs of -_. become '-'
  std::string version;
};

// Splits a "<name>-<version>.dist-info" or ".egg-info" directory name. nullopt if it is not one.
std::optional<DistInfoName> parse_dist_info_dir(std::string_view dir_name);

// Normalises a Python package name per PEP 503.
std::string normalize_package_name(std::string_view name);

// If `file_name` is `stem` followed by ".<dotted version>" ("libcuda.so.535.104.05" with stem
// "libcuda.so"), returns the version text.
std::optional<std::string> version_after_stem(std::string_view file_name, std::string_view stem);

} // namespace doctor::formats
