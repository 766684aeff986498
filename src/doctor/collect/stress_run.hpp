// SPDX-License-Identifier: MIT
// The parent's side of `cudnn-doctor stress`: chooses the libcuda the loader model names, runs the
// stress child on it while an NVML child samples the GPU's telemetry, and reads both into a
// facts::StressRun. A crash, hang or unreadable report of the child becomes its status.
#pragma once

#include <doctor/collect/collect.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/stress.hpp>
#include <doctor/platform/process.hpp>
#include <doctor/platform/sysroot.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace doctor::collect {

struct StressRequest {
  std::string level = "quick"; // quick | standard | long
  int gpu = 0;
  std::string inject = "none"; // none | memtest | gemm
  std::uint32_t seed = 1;
  std::string library_override; // --lib cuda=PATH
  std::string cublas_override;  // --lib cublas=PATH: the GEMM's second reference
  std::chrono::milliseconds timeout{300000};
  std::chrono::milliseconds sample_every{1000};
};

// Called after each telemetry sample, from the calling thread: seconds since the start and the
// GPU's temperature then, if NVML gave one.
using StressProgress = std::function<void(double seconds, std::optional<std::uint64_t> temp_c)>;

// Runs the stress child (and, in parallel, the NVML child once per request.sample_every until it
// ends) on the live machine and returns what they observed. Never throws for what the children
// do: a missing library, a crash or a hang is the run's status.
facts::StressRun run_stress(const platform::SysRoot& root,
                            const CollectOptions& options,
                            const kb::KnowledgeBase& kb,
                            const facts::Facts& facts,
                            const StressRequest& request,
                            const StressProgress& progress);

// Reads the stress child's report (or how it ended) into a run. Every value is checked (types,
// ranges, text sanitized and bounded): garbage gives status "no_answer", never an exception.
facts::StressRun stress_run_from_report(const facts::ProbeLibrary& library,
                                        const platform::ProcessResult& result);

// Adds what NVML said during the run for GPU `gpu` to `run`: each reading's min and max, the
// clock-event reasons seen, and the theoretical peaks (memory clock x bus width x 2; PCIe
// generation x width at their maximum). Samples where NVML failed count for nothing; with none,
// telemetry_note and peak_note say why.
void add_stress_telemetry(facts::StressRun& run,
                          const std::vector<facts::NvmlInfo>& samples,
                          int gpu);

// Bytes per second one direction of a PCIe link carries at generation `gen` (1..6) and `width`
// lanes, after line coding; nullopt for a generation the table lacks.
std::optional<double> pcie_peak_bytes_per_s(std::uint64_t gen, std::uint64_t width);

} // namespace doctor::collect
