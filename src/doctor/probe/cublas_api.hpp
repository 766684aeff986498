// SPDX-License-Identifier: MIT
// The slice of cuBLAS's C ABI (cublas_api.h of cuBLAS 11 to 13) the cuBLAS and stress children
// call, declared here rather than included: the doctor never links cuBLAS.
#pragma once

#include <doctor/platform/dynlib.hpp>
#include <doctor/probe/symbols.hpp>
#include <doctor/util/strings.hpp>

#include <nlohmann/json.hpp>

namespace doctor::probe {

using CublasStatus = int;
using CublasHandle = void*;

inline constexpr CublasStatus k_cublas_success = 0;
inline constexpr int k_cublas_op_n = 0; // CUBLAS_OP_N

struct CublasTable {
  CublasStatus (*get_property)(int, int*) = nullptr;
  CublasStatus (*create)(CublasHandle*) = nullptr;
  CublasStatus (*get_version)(CublasHandle, int*) = nullptr;
  const char* (*status_name)(CublasStatus) = nullptr;
  const char* (*status_string)(CublasStatus) = nullptr;
  CublasStatus (*sgemm)(CublasHandle,
                        int,
                        int,
                        int,
                        int,
                        int,
                        const float*,
                        const float*,
                        int,
                        const float*,
                        int,
                        const float*,
                        float*,
                        int) = nullptr;
};

// Binds every entry point of `t` that `lib` exports, recording the names used in `symbols`.
inline void
bind_cublas(const platform::DynamicLibrary& lib, CublasTable& t, nlohmann::ordered_json& symbols) {
  bind(lib, t.get_property, {"cublasGetProperty"}, symbols);
  bind(lib, t.create, {"cublasCreate_v2"}, symbols);
  bind(lib, t.get_version, {"cublasGetVersion_v2"}, symbols);
  bind(lib, t.status_name, {"cublasGetStatusName"}, symbols);
  bind(lib, t.status_string, {"cublasGetStatusString"}, symbols);
  bind(lib, t.sgemm, {"cublasSgemm_v2"}, symbols);
}

// {"result": rc, "name"?, "text"?} as the library names its status.
inline nlohmann::ordered_json cublas_status(const CublasTable& t, CublasStatus rc) {
  nlohmann::ordered_json out;
  out["result"] = rc;
  const char* name = t.status_name != nullptr ? t.status_name(rc) : nullptr;
  if (name != nullptr) {
    out["name"] = util::sanitize(name, 100);
  }
  const char* text = t.status_string != nullptr ? t.status_string(rc) : nullptr;
  if (text != nullptr) {
    out["text"] = util::sanitize(text, 300);
  }
  return out;
}

} // namespace doctor::probe
