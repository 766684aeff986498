// SPDX-License-Identifier: MIT
#pragma once

// CUDA libraries built at test time with the toolkit's nvcc, for the fatbinary reader and the
// collectors that use it. Tests GTEST_SKIP when nvcc is absent; no binary is committed.

#include "temp_tree.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

namespace doctor::test {

inline constexpr const char* k_nvcc = "/usr/local/cuda/bin/nvcc";

// True if the CUDA toolkit's nvcc runs here.
inline bool nvcc_available() {
  static const bool k_available =
      std::system((std::string(k_nvcc) + " --version >/dev/null 2>&1").c_str()) == 0;
  return k_available;
}

// Builds a shared library with one trivial kernel at host path `path`, for the targets in
// `gencode` ("-gencode arch=compute_75,code=sm_75 …"). Returns false if nvcc is missing or fails.
inline bool make_cuda_library(const std::filesystem::path& path, const std::string& gencode) {
  if (!nvcc_available()) {
    return false;
  }
  const std::filesystem::path source = path.string() + ".cu";
  write_file(source, "__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }\n");
  const std::string command = std::string(k_nvcc) + " -shared -Xcompiler -fPIC " + gencode + " '"
                              + source.string() + "' -o '" + path.string() + "' >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

} // namespace doctor::test
