// SPDX-License-Identifier: MIT
// What one run of `cudnn-doctor stress` observed (docs/stress.md): the stress child's report as
// the parent read it, the NVML samples taken during the run, and the peaks NVML implies. Not
// part of the snapshot: a stress run is an action, not a fact about the installation.
#pragma once

#include <doctor/model/facts.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace doctor::facts {

// One wrong word the memory test read.
struct StressMemoryError {
  std::uint64_t address = 0; // device address of the 32-bit word
  std::uint32_t expected = 0;
  std::uint32_t actual = 0;
  std::string pattern; // "walking_ones", "own_address", "moving_inversions", "random"
};

struct StressMemory {
  std::uint64_t free_before = 0; // cuMemGetInfo_v2 before the test
  std::uint64_t total = 0;
  std::uint64_t bytes_covered = 0;
  std::uint64_t chunks = 0;
  std::uint64_t passes = 0;
  std::vector<std::pair<std::string, std::uint64_t>> pattern_errors; // per pattern family
  std::uint64_t errors = 0;
  std::vector<StressMemoryError> error_log; // the first few, with address and values
  std::optional<double> seconds;
};

struct StressGemm {
  std::uint64_t n = 0;
  std::uint64_t iterations = 0;
  std::optional<double> gflops;     // over the kernels' time (cuEventElapsedTime)
  std::uint64_t run_mismatches = 0; // elements differing from the first run's, bit for bit
  std::uint64_t reference_checked = 0;
  std::uint64_t reference_mismatches = 0; // sampled elements differing from the CPU's
  std::uint64_t nan = 0;
  std::string first_mismatch; // "runs: iteration 3, row 1, column 2: got …, want …"
  // The second reference, cublasSgemm_v2 on the same inputs: "compared", "skipped" or "failed"
  // (`cublas_detail` says why), the library, and the elements of the first run that differ.
  std::string cublas_status;
  std::string cublas_detail;
  std::string cublas_library;
  std::uint64_t cublas_mismatches = 0;
};

struct StressBandwidth {
  std::uint64_t device_bytes = 0;
  std::uint64_t host_bytes = 0;
  bool pinned = false;
  std::optional<double> device_to_device; // bytes per second (read + write)
  std::optional<double> host_to_device;
  std::optional<double> device_to_host;
};

// A reading of NVML's sampled during the run: its smallest and largest value.
struct StressTelemetry {
  std::string key; // as in NvmlDevice::telemetry: "temperature_c", "power_draw_mw", …
  std::uint64_t min = 0;
  std::uint64_t max = 0;
};

struct StressRun {
  // "completed" (every phase ran), "failed" (a driver call failed during the tests), "not_run"
  // (the tests could not start: no driver library, cuInit failed, no such GPU; `detail` says
  // why), "crashed", "timed_out", "no_answer" (the child ended without a readable report).
  std::string status;
  std::string detail;
  ProbeLibrary library;
  std::string loaded; // the file the child's loader mapped
  std::string level;
  std::string inject; // "none", "memtest", "gemm"
  int gpu = 0;
  std::optional<std::int64_t> driver_version; // cuDriverGetVersion
  std::vector<ProbeCall> calls;               // cuDriverGetVersion, cuInit
  std::optional<ProbeCall> failed_call;       // the call that ended the tests
  std::string failed_phase;                   // "setup", "memory", "gemm", "bandwidth"
  std::string device_name;
  std::uint64_t device_memory = 0;
  std::optional<StressMemory> memory;
  std::optional<StressGemm> gemm;
  std::optional<StressBandwidth> bandwidth;
  // Theoretical peaks from NVML: memory clock x bus width x 2 (double data rate), PCIe
  // generation and width at their maximum. Absent with `peak_note` saying why.
  std::optional<double> device_peak;
  std::optional<double> pcie_peak;
  std::string peak_note;
  std::vector<StressTelemetry> telemetry;
  std::uint64_t telemetry_samples = 0;
  std::uint64_t clock_event_reasons = 0; // every reason seen during the run, or-ed
  std::string telemetry_note;            // why there are no samples, or what limits them
  int exit_code = 0;
  int signal = 0;
  std::string stderr_tail;
  double seconds = 0; // wall time of the child
};

} // namespace doctor::facts
