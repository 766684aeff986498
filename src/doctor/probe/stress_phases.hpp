// SPDX-License-Identifier: MIT
// The stress child's phases (docs/stress.md), each on a GPU whose context is current: the memory
// test, the GEMM with its cross-checks, the bandwidth tests. Runs inside the isolated child only.
#pragma once

#include <doctor/probe/cuda_driver.hpp>
#include <doctor/probe/stress_child.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace doctor::probe {

// The shipped kernels, looked up once in the loaded module.
struct StressKernels {
  CuFunction memtest_write = nullptr;
  CuFunction memtest_verify = nullptr;
  CuFunction sgemm = nullptr;
  CuFunction copy = nullptr;
};

// A driver call that failed: {"function", "result", "name"?, "text"?}. A phase stops at its first
// failed call and reports it as "failed_call".
class StressCalls {
public:
  explicit StressCalls(const CudaDriverTable& t)
      : m_t(t) {}
  // Records the first failure; returns whether `rc` failed.
  bool failed(const char* function, CuResult rc);
  const std::optional<nlohmann::ordered_json>& first_failure() const { return m_failure; }
  const CudaDriverTable& table() const { return m_t; }
  // Keeps a library a phase loaded (cuBLAS) until the child ends: unloading vendor code while
  // its context lives runs its teardown, which can hang or crash like any vendor code.
  void keep(platform::DynamicLibrary lib) { m_loaded.push_back(std::move(lib)); }

private:
  const CudaDriverTable& m_t;
  std::optional<nlohmann::ordered_json> m_failure;
  std::vector<platform::DynamicLibrary> m_loaded;
};

// The memory test over at least 90% of the free memory: {"free_before", "total", "target",
// "bytes_covered", "chunks", "passes", "patterns": [{"name", "errors"}], "errors", "error_log":
// [{"address", "expected", "actual"}], "seconds"}.
nlohmann::ordered_json
memory_phase(StressCalls& calls, const StressKernels& k, const StressPlan& plan);

// The GEMM phase: {"n", "iterations", "seconds", "gflops", "run_mismatches",
// "reference_checked", "reference_mismatches", "nan", "first_mismatch"?, "cublas": {"status":
// "compared" | "skipped" | "failed", "detail", "library", "mismatches"}}: with plan.cublas, the
// first run is also compared, every element bit for bit, with cublasSgemm_v2 on the same inputs.
nlohmann::ordered_json
gemm_phase(StressCalls& calls, const StressKernels& k, const StressPlan& plan);

// The bandwidth phase: {"device_bytes", "device_to_device_bytes_per_s", "host_bytes",
// "host_to_device_bytes_per_s", "device_to_host_bytes_per_s", "pinned"}.
nlohmann::ordered_json
bandwidth_phase(StressCalls& calls, const StressKernels& k, const StressPlan& plan);

} // namespace doctor::probe
