// SPDX-License-Identifier: MIT
#include <doctor/platform/host_path.hpp>
#include <doctor/probe/children.hpp>
#include <doctor/probe/cublas_child.hpp>
#include <doctor/probe/cuda_child.hpp>
#include <doctor/probe/cudnn_child.hpp>
#include <doctor/probe/nvml_child.hpp>
#include <doctor/probe/stress_child.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace doctor::probe {

namespace {

// The one list of children. Adding one is a row here and its function in a file of its own.
constexpr ChildProbe k_children[] = {
    {"nvml",
     "__probe-nvml",
     "NVML (libnvidia-ml.so.1, nvml.dll): driver and device queries",
     false,
     false,
     run_nvml_child},
    {"cuda",
     "__probe-cuda",
     "the CUDA driver API (libcuda.so.1): cuInit, driver version, devices, a context per device",
     true,
     false,
     run_cuda_child},
    {"cudnn",
     "__probe-cudnn",
     "cuDNN (libcudnn.so.N): versions, a handle, a small convolution checked on the CPU",
     true,
     false,
     run_cudnn_child},
    {"cublas",
     "__probe-cublas",
     "cuBLAS (libcublas.so.N): version, a handle, a small SGEMM checked on the CPU",
     true,
     false,
     run_cublas_child},
    {"stress",
     "__stress-cuda",
     "the CUDA driver API with the doctor's PTX kernels: memory test, GEMM, bandwidth (stress)",
     true,
     true,
     run_stress_child},
};

const ChildProbe* child_named(std::string_view name) {
  for (const ChildProbe& c : k_children) {
    if (c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

} // namespace

std::span<const ChildProbe> all_children() {
  return k_children;
}

const ChildProbe* child_for_argument(std::string_view argument) {
  for (const ChildProbe& c : k_children) {
    if (c.argument == argument) {
      return &c;
    }
  }
  return nullptr;
}

int run_child_main(const ChildProbe& child, std::span<const std::string_view> rest) {
  if (rest.size() != (child.takes_library ? 1U : 0U) + (child.takes_options ? 1U : 0U)) {
    return 2;
  }
  ChildInput input;
  if (child.takes_library) {
    input.library = std::string(rest.front());
  }
  if (child.takes_options) {
    input.options = std::string(rest.back());
  }
  return child.run(input);
}

int run_confined(const platform::ConfinementRequest& request,
                 const ChildInput& input,
                 nlohmann::ordered_json (*queries)(const ChildInput&)) {
  auto confined = platform::confine_child(request);
  if (!confined) {
    return 1; // the parent is gone: nobody would read the answer
  }
  nlohmann::ordered_json report = queries(input);
  nlohmann::ordered_json child;
  child["uid"] = confined->uid;
  child["gid"] = confined->gid;
  child["capabilities_dropped"] = confined->capabilities_dropped;
  child["no_new_privs"] = confined->no_new_privs;
  child["address_space_limit"] = confined->address_space_limit;
  child["notes"] = confined->notes;
  report["child"] = std::move(child);
  std::string text = report.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  text += k_end_of_report;
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  // The answer is in: nothing after it may change the outcome. Ending here skips the vendor
  // library's atexit handlers and destructors (which can hang or crash like any vendor code) and,
  // in a sanitized build, the leak checker, which would judge the vendor library's memory.
  std::_Exit(0);
}

Expected<platform::ProcessResult> run_child(std::string_view name,
                                            const std::filesystem::path& self,
                                            const std::string& library,
                                            std::chrono::milliseconds timeout,
                                            std::size_t max_output,
                                            const std::string& child_options) {
  const ChildProbe* c = child_named(name);
  if (c == nullptr) {
    return make_error(ErrorCode::not_found, fmt::format("no isolated child named {}", name));
  }
  if (c->takes_library == library.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      fmt::format("the {} child {} a library path",
                                  name,
                                  c->takes_library ? "needs" : "takes no"));
  }
  platform::ProcessOptions options;
  options.timeout = timeout;
  options.max_output = max_output;
  options.end_of_answer = k_end_of_report;
  options.max_error_tail = k_max_error_tail;
  std::vector<std::string> argv{platform::utf8(self), std::string(c->argument)};
  if (c->takes_library) {
    argv.push_back(library);
  }
  if (c->takes_options) {
    argv.push_back(child_options);
  }
  return platform::run_process(argv, options);
}

} // namespace doctor::probe
