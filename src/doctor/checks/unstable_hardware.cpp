// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>

// Family 6 of the troubleshooting guide (overclocking and unstable hardware): a GPU that computes
// wrong numbers. Today from the probes' small convolution and SGEMM, whose exact inputs give the
// CPU reference to the last bit; the clocks, temperatures and error counters of NVML come next.
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

} // namespace

// A computation whose result differs from the reference, or that failed after its library made
// a handle. One that was skipped (no GPU, no handle) says nothing here: probe_results.cpp reports
// why the handle or the driver failed.
void check_probe_computations(const facts::Facts& facts,
                              const kb::KnowledgeBase&,
                              FindingSink& out) {
  for (const facts::ProbeRun& run : facts.probe.runs) {
    for (const facts::ProbeComputation& c : run.computations) {
      FindingDraft d;
      d.subject = fmt::format("{} on GPU 0", c.name);
      if (c.status == "mismatch") {
        d.id = ids::k_hardware_compute_mismatch;
        d.params = {{"computation", c.name},
                    {"library", run.library.path},
                    {"mismatches", std::to_string(c.mismatches)},
                    {"elements", std::to_string(c.elements)},
                    {"max_error", c.max_abs_error.empty() ? "not a number" : c.max_abs_error},
                    {"detail", c.detail}};
      } else if (c.status == "failed") {
        d.id = ids::k_probe_computation_failed;
        d.params = {{"computation", c.name}, {"library", run.library.path}, {"detail", c.detail}};
      } else {
        continue;
      }
      d.evidence.push_back(Evidence{fmt::format("probe:{}", run.probe),
                                    fmt::format("{}: {} ({})", c.name, c.status, c.detail)});
      out.add(std::move(d));
    }
  }
}

} // namespace doctor::checks
