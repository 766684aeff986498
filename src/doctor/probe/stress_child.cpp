// SPDX-License-Identifier: MIT
#include <doctor/probe/library_child.hpp>
#include <doctor/probe/stress_child.hpp>
#include <doctor/probe/stress_phases.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <charconv>
#include <cstring>

namespace doctor::probe {

namespace {

using Json = nlohmann::ordered_json;

template<typename T>
void parse_number(std::string_view text, T& out) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && end == text.data() + text.size()) {
    out = v;
  }
}

// Runs the phases on the device the plan names, the context current. Each phase's report goes
// under its name; the first failed call ends the run ("failed_call", "failed_phase").
void run_phases(const CudaDriverTable& t, const StressPlan& plan, Json& out) {
  StressCalls calls(t);
  CuDevice dev = 0;
  CuContext ctx = nullptr;
  int count = 0;
  if (calls.failed("cuDeviceGetCount", t.device_get_count(&count))) {
    out["failed_call"] = *calls.first_failure();
    return;
  }
  out["device_count"] = count;
  if (plan.gpu >= count) {
    out["error"] = fmt::format("there is no GPU {} (the driver lists {})", plan.gpu, count);
    return;
  }
  Json device;
  device["index"] = plan.gpu;
  if (!calls.failed("cuDeviceGet", t.device_get(&dev, plan.gpu))) {
    char name[256] = {};
    if (t.device_get_name != nullptr
        && t.device_get_name(name, static_cast<int>(sizeof name - 1), dev) == k_cuda_success) {
      device["name"] = util::sanitize(name, 200);
    }
    std::size_t memory = 0;
    if (t.device_total_mem != nullptr && t.device_total_mem(&memory, dev) == k_cuda_success) {
      device["memory_total"] = memory;
    }
  }
  out["device"] = device;
  CuModule module = nullptr;
  StressKernels k;
  if (calls.first_failure()
      || calls.failed("cuDevicePrimaryCtxRetain", t.primary_ctx_retain(&ctx, dev))
      || calls.failed("cuCtxSetCurrent", t.ctx_set_current(ctx))
      || calls.failed("cuModuleLoadData", t.module_load_data(&module, stress_ptx().data()))
      || calls.failed("cuModuleGetFunction",
                      t.module_get_function(&k.memtest_write, module, "doctor_memtest_write"))
      || calls.failed("cuModuleGetFunction",
                      t.module_get_function(&k.memtest_verify, module, "doctor_memtest_verify"))
      || calls.failed("cuModuleGetFunction",
                      t.module_get_function(&k.sgemm, module, "doctor_sgemm"))
      || calls.failed("cuModuleGetFunction",
                      t.module_get_function(&k.copy, module, "doctor_copy"))) {
    out["failed_phase"] = "setup";
    out["failed_call"] = *calls.first_failure();
    return;
  }
  constexpr std::pair<const char*, Json (*)(StressCalls&, const StressKernels&, const StressPlan&)>
      k_phases[] = {{"memory", memory_phase}, {"gemm", gemm_phase}, {"bandwidth", bandwidth_phase}};
  Json done = Json::array();
  for (const auto& [name, phase] : k_phases) {
    out[name] = phase(calls, k, plan);
    if (calls.first_failure()) {
      out["failed_phase"] = name;
      out["failed_call"] = *calls.first_failure();
      break;
    }
    done.push_back(name);
  }
  out["phases_done"] = done;
}

Json stress_queries(const ChildInput& input) {
  Json out;
  const StressPlan plan = parse_stress_plan(input.options);
  out["plan"] = {{"level", plan.level}, {"gpu", plan.gpu}, {"inject", plan.inject}};
  auto lib = open_library(input, out);
  if (!lib) {
    return out;
  }
  CudaDriverTable t;
  Json symbols = Json::array();
  bind_cuda_driver(*lib, t, symbols);
  Json calls = Json::object();
  const std::optional<CuResult> init = start_driver(t, out, calls);
  out["calls"] = calls;
  if (init != k_cuda_success) {
    return out;
  }
  // Every entry point the phases call, checked before the first: a library without them (older
  // than CUDA 11.0, or a stand-in) is named, never called through a null pointer.
  const std::pair<const char*, bool> needed[] = {
      {"cuDeviceGetCount", t.device_get_count != nullptr},
      {"cuDeviceGet", t.device_get != nullptr},
      {"cuDevicePrimaryCtxRetain", t.primary_ctx_retain != nullptr},
      {"cuCtxSetCurrent", t.ctx_set_current != nullptr},
      {"cuCtxSynchronize", t.ctx_synchronize != nullptr},
      {"cuMemGetInfo_v2", t.mem_get_info != nullptr},
      {"cuMemAlloc_v2", t.mem_alloc != nullptr},
      {"cuMemFree_v2", t.mem_free != nullptr},
      {"cuMemcpyHtoD_v2", t.memcpy_htod != nullptr},
      {"cuMemcpyDtoH_v2", t.memcpy_dtoh != nullptr},
      {"cuModuleLoadData", t.module_load_data != nullptr},
      {"cuModuleGetFunction", t.module_get_function != nullptr},
      {"cuLaunchKernel", t.launch_kernel != nullptr},
      {"cuEventCreate", t.event_create != nullptr},
      {"cuEventRecord", t.event_record != nullptr},
      {"cuEventSynchronize", t.event_synchronize != nullptr},
      {"cuEventElapsedTime", t.event_elapsed_time != nullptr},
      {"cuEventDestroy_v2", t.event_destroy != nullptr}};
  for (const auto& [name, present] : needed) {
    if (!present) {
      out["error"] = fmt::format("the library does not export {}", name);
      return out;
    }
  }
  run_phases(t, plan, out);
  return out;
}

} // namespace

StressPlan parse_stress_plan(std::string_view text) {
  StressPlan plan;
  for (const std::string_view item : util::split(text, ';')) {
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      continue;
    }
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    if (key == "level" && (value == "quick" || value == "standard" || value == "long")) {
      plan.level = std::string(value);
    } else if (key == "inject" && (value == "none" || value == "memtest" || value == "gemm")) {
      plan.inject = std::string(value);
    } else if (key == "gpu") {
      parse_number(value, plan.gpu);
    } else if (key == "seed") {
      parse_number(value, plan.seed);
    } else if (key == "cublas") {
      plan.cublas = std::string(value);
    }
  }
  if (plan.gpu < 0) {
    plan.gpu = 0;
  }
  return plan;
}

std::string stress_plan_text(const StressPlan& plan) {
  return fmt::format("level={};gpu={};inject={};seed={};cublas={}",
                     plan.level,
                     plan.gpu,
                     plan.inject,
                     plan.seed,
                     plan.cublas.find(';') == std::string::npos ? plan.cublas : std::string());
}

int run_stress_child(const ChildInput& input) {
  return run_confined(library_child_confinement(), input, stress_queries);
}

} // namespace doctor::probe
