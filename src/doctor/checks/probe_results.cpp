// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/model/termination.hpp>

// What the isolated probes (`cudnn-doctor probe`, `snapshot --probe`) found when they ran the
// vendor libraries themselves: a child that crashed, hung or could not load its library, the
// driver API's cuInit and contexts, and cuDNN's and cuBLAS's handles. The findings belong to the
// families of their causes (findings.json); they share this file because they judge one set of
// facts, `probe`. Wrong results of the probes' computations are family 6 (unstable_hardware.cpp).
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

constexpr std::int64_t k_stub_library = 34; // CUDA_ERROR_STUB_LIBRARY

const facts::ProbeRun* run_of(const facts::Facts& facts, std::string_view probe) {
  for (const facts::ProbeRun& r : facts.probe.runs) {
    if (r.probe == probe) {
      return &r;
    }
  }
  return nullptr;
}

// "34 (CUDA_ERROR_STUB_LIBRARY: CUDA driver is a stub library)".
std::string describe_result(const facts::ProbeCall& c) {
  std::string out = std::to_string(c.result);
  if (!c.name.empty() || !c.text.empty()) {
    out += fmt::format(" ({}{}{})", c.name, !c.name.empty() && !c.text.empty() ? ": " : "", c.text);
  }
  return out;
}

const facts::ProbeCall* call_of(const facts::ProbeRun& run, std::string_view function) {
  for (const facts::ProbeCall& c : run.calls) {
    if (c.function == function) {
      return &c;
    }
  }
  return nullptr;
}

Evidence call_evidence(const facts::ProbeRun& run, const facts::ProbeCall& c) {
  return Evidence{
      fmt::format("probe:{}:{}", run.probe, c.function),
      fmt::format("{} returned {}{}",
                  c.function,
                  describe_result(c),
                  c.name_source == "doctor" ? " (name from cuda.h; the library gave none)" : "")};
}

void add_library_evidence(const facts::ProbeRun& run, FindingDraft& d) {
  const facts::ProbeLibrary& lib = run.library;
  if (!lib.path.empty()) {
    d.evidence.push_back(Evidence{
        fmt::format("loader:{}", lib.found_via),
        fmt::format("{} loads {} (found through {})", lib.context, lib.path, lib.found_via)});
  }
  if (!lib.real_path.empty()) {
    d.evidence.push_back(
        Evidence{"loader:real_path", fmt::format("{} is {}", lib.path, lib.real_path)});
  }
  if (!run.loaded.empty() && run.loaded != lib.path) {
    d.evidence.push_back(Evidence{"probe:dlopen", fmt::format("the child mapped {}", run.loaded)});
  }
}

// "the driver API probe answered: cuInit returned 0." or why it says nothing.
std::string driver_state(const facts::Facts& facts) {
  const facts::ProbeRun* cuda = run_of(facts, "cuda");
  const facts::ProbeCall* init = cuda != nullptr ? call_of(*cuda, "cuInit") : nullptr;
  if (init == nullptr) {
    return cuda != nullptr ? fmt::format("The driver API probe gave no cuInit result ({}).",
                                         cuda->detail.empty() ? cuda->status : cuda->detail)
                           : std::string("The driver API was not probed.");
  }
  return init->result == 0
             ? std::string(
                 "cuInit succeeded in the driver API probe, so the driver works: the "
                 "failure is cuDNN's or cuBLAS's own.")
             : fmt::format(
                 "The driver API probe failed first (cuInit returned {}), which alone "
                 "explains this.",
                 describe_result(*init));
}

bool driver_works(const facts::Facts& facts) {
  const facts::ProbeRun* cuda = run_of(facts, "cuda");
  const facts::ProbeCall* init = cuda != nullptr ? call_of(*cuda, "cuInit") : nullptr;
  return init != nullptr && init->result == 0;
}

// cudnnCreate or cublasCreate_v2 failed: a warning while the driver is at fault too, an error
// when the driver works and the library fails on its own.
void check_handle(const facts::Facts& facts,
                  std::string_view probe,
                  std::string_view function,
                  const std::string& id,
                  FindingSink& out) {
  const facts::ProbeRun* run = run_of(facts, probe);
  const facts::ProbeCall* create = run != nullptr ? call_of(*run, function) : nullptr;
  if (create == nullptr || create->result == 0) {
    return;
  }
  FindingDraft d;
  d.id = id;
  d.subject = run->library.path;
  d.params = {{"library", run->library.path},
              {"version", run->version.value_or("of unknown version")},
              {"status", describe_result(*create)},
              {"driver", driver_state(facts)}};
  add_library_evidence(*run, d);
  d.evidence.push_back(evidence_of(run->version, "version"));
  d.evidence.push_back(call_evidence(*run, *create));
  if (driver_works(facts)) {
    d.severity = Severity::error;
  }
  out.add(std::move(d));
}

} // namespace

// A child that crashed, hung or exited without a report.
void check_probe_children(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  for (const facts::ProbeRun& run : facts.probe.runs) {
    if (run.status != "crashed" && run.status != "timed_out" && run.status != "exited"
        && run.status != "no_answer") {
      continue;
    }
    FindingDraft d;
    d.id = ids::k_probe_child_failed;
    d.subject = run.library.path.empty() ? run.probe : run.library.path;
    d.params = {{"probe", run.probe}, {"library", run.library.path}, {"detail", run.detail}};
    add_library_evidence(run, d);
    d.evidence.push_back(
        Evidence{"probe:child",
                 run.status == "crashed"
                     ? fmt::format("{}: {}", run.status, facts::termination_name(run.signal))
                     : fmt::format("{}: exit status {}", run.status, run.exit_code)});
    if (!run.stderr_tail.empty()) {
      d.evidence.push_back(Evidence{"probe:stderr", run.stderr_tail});
    }
    out.add(std::move(d));
  }
}

// A library the loader finds but dlopen cannot load, and a probe that could not run at all (no
// copy found: every place the search looked is the evidence).
void check_probe_loading(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  for (const facts::ProbeRun& run : facts.probe.runs) {
    FindingDraft d;
    d.subject = run.library.path.empty() ? run.probe : run.library.path;
    if (run.status == "library_not_loaded") {
      d.id = ids::k_probe_library_not_loaded;
      d.params = {{"library", run.library.path}, {"detail", run.detail}};
      add_library_evidence(run, d);
    } else if (run.status == "library_not_found" || run.status == "not_run") {
      d.id = ids::k_probe_not_run;
      d.params = {{"probe", run.probe}, {"detail", run.detail}};
      for (const std::string& s : run.library.searched) {
        d.evidence.push_back(Evidence{"loader:search", s});
      }
    } else {
      continue;
    }
    out.add(std::move(d));
  }
}

// The stub libcuda: cuInit returned CUDA_ERROR_STUB_LIBRARY, with where the file came from.
void check_probe_cuda_stub(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const facts::ProbeRun* run = run_of(facts, "cuda");
  const facts::ProbeCall* init = run != nullptr ? call_of(*run, "cuInit") : nullptr;
  if (init == nullptr || init->result != k_stub_library) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_probe_cuda_stub_library;
  d.subject = run->library.path;
  d.params = {
      {"library", run->library.path},
      {"via",
       run->library.real_path.empty()
           ? run->library.found_via
           : fmt::format("{}; the file is {}", run->library.found_via, run->library.real_path)},
      {"context", run->library.context},
      {"result", describe_result(*init)}};
  add_library_evidence(*run, d);
  d.evidence.push_back(call_evidence(*run, *init));
  out.add(std::move(d));
}

// The driver API's other failures: no device, a driver too old, another cuInit failure, and a
// device on which no context can be created.
void check_probe_cuda(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const facts::ProbeRun* run = run_of(facts, "cuda");
  const facts::ProbeCall* init = run != nullptr ? call_of(*run, "cuInit") : nullptr;
  if (init == nullptr || init->result == k_stub_library) {
    return; // the stub: check_probe_cuda_stub
  }
  constexpr std::int64_t k_insufficient_driver = 35; // CUDA_ERROR_INSUFFICIENT_DRIVER
  constexpr std::int64_t k_newer_driver = 36;        // CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER
  constexpr std::int64_t k_no_device = 100;          // CUDA_ERROR_NO_DEVICE
  if (init->result != 0) {
    FindingDraft d;
    d.subject = run->library.path;
    d.params = {{"library", run->library.path}, {"result", describe_result(*init)}};
    if (init->result == k_no_device) {
      d.id = ids::k_probe_cuda_no_device;
    } else if (init->result == k_insufficient_driver || init->result == k_newer_driver) {
      d.id = ids::k_probe_cuda_driver_too_old;
    } else {
      d.id = ids::k_probe_cuda_init_failed;
    }
    add_library_evidence(*run, d);
    d.evidence.push_back(call_evidence(*run, *init));
    out.add(std::move(d));
    return;
  }
  if (!run->devices) {
    return;
  }
  for (const facts::ProbeDevice& dev : *run->devices) {
    if (!dev.context || dev.context->result == 0) {
      continue;
    }
    FindingDraft d;
    d.id = ids::k_probe_cuda_context_failed;
    const std::string device =
        fmt::format("GPU {}{}", dev.index, dev.name ? fmt::format(" ({})", *dev.name) : "");
    d.subject = device;
    d.params = {{"device", device}, {"result", describe_result(*dev.context)}};
    d.evidence.push_back(call_evidence(*run, *dev.context));
    out.add(std::move(d));
  }
}

void check_probe_cudnn(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  check_handle(facts, "cudnn", "cudnnCreate", std::string(ids::k_probe_cudnn_handle_failed), out);
}

void check_probe_cublas(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  check_handle(
      facts, "cublas", "cublasCreate_v2", std::string(ids::k_probe_cublas_handle_failed), out);
}

} // namespace doctor::checks
