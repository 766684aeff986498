// SPDX-License-Identifier: MIT
#include <doctor/platform/host.hpp>
#include <doctor/probe/cuda_driver.hpp>
#include <doctor/probe/symbols.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::probe {

void bind_cuda_driver(const platform::DynamicLibrary& lib,
                      CudaDriverTable& t,
                      nlohmann::ordered_json& symbols) {
  bind(lib, t.init, {"cuInit"}, symbols);
  bind(lib, t.driver_get_version, {"cuDriverGetVersion"}, symbols);
  bind(lib, t.device_get_count, {"cuDeviceGetCount"}, symbols);
  bind(lib, t.device_get, {"cuDeviceGet"}, symbols);
  bind(lib, t.device_get_name, {"cuDeviceGetName"}, symbols);
  bind(lib, t.device_total_mem, {"cuDeviceTotalMem_v2", "cuDeviceTotalMem"}, symbols);
  bind(lib, t.ctx_create, {"cuCtxCreate_v2", "cuCtxCreate"}, symbols);
  bind(lib, t.ctx_destroy, {"cuCtxDestroy_v2", "cuCtxDestroy"}, symbols);
  bind(lib, t.get_error_name, {"cuGetErrorName"}, symbols);
  bind(lib, t.get_error_string, {"cuGetErrorString"}, symbols);
  bind(lib, t.primary_ctx_retain, {"cuDevicePrimaryCtxRetain"}, symbols);
  bind(lib, t.ctx_set_current, {"cuCtxSetCurrent"}, symbols);
  bind(lib, t.ctx_synchronize, {"cuCtxSynchronize"}, symbols);
  bind(lib, t.mem_alloc, {"cuMemAlloc_v2", "cuMemAlloc"}, symbols);
  bind(lib, t.mem_free, {"cuMemFree_v2", "cuMemFree"}, symbols);
  bind(lib, t.memcpy_htod, {"cuMemcpyHtoD_v2", "cuMemcpyHtoD"}, symbols);
  bind(lib, t.memcpy_dtoh, {"cuMemcpyDtoH_v2", "cuMemcpyDtoH"}, symbols);
  bind(lib, t.mem_get_info, {"cuMemGetInfo_v2", "cuMemGetInfo"}, symbols);
  bind(lib, t.memcpy_dtod, {"cuMemcpyDtoD_v2", "cuMemcpyDtoD"}, symbols);
  bind(lib, t.memset_d32, {"cuMemsetD32_v2", "cuMemsetD32"}, symbols);
  bind(lib, t.mem_host_alloc, {"cuMemHostAlloc"}, symbols);
  bind(lib, t.mem_free_host, {"cuMemFreeHost"}, symbols);
  bind(lib, t.module_load_data, {"cuModuleLoadData"}, symbols);
  bind(lib, t.module_get_function, {"cuModuleGetFunction"}, symbols);
  bind(lib, t.module_unload, {"cuModuleUnload"}, symbols);
  bind(lib, t.launch_kernel, {"cuLaunchKernel"}, symbols);
  bind(lib, t.event_create, {"cuEventCreate"}, symbols);
  bind(lib, t.event_record, {"cuEventRecord"}, symbols);
  bind(lib, t.event_synchronize, {"cuEventSynchronize"}, symbols);
  bind(lib, t.event_elapsed_time, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, symbols);
  bind(lib, t.event_destroy, {"cuEventDestroy_v2", "cuEventDestroy"}, symbols);
}

nlohmann::ordered_json cuda_call_result(const CudaDriverTable& t, CuResult rc) {
  nlohmann::ordered_json out;
  out["result"] = rc;
  const char* s = nullptr;
  if (t.get_error_name != nullptr && t.get_error_name(rc, &s) == k_cuda_success && s != nullptr) {
    out["name"] = util::sanitize(s, 100);
  }
  s = nullptr;
  if (t.get_error_string != nullptr && t.get_error_string(rc, &s) == k_cuda_success
      && s != nullptr) {
    out["text"] = util::sanitize(s, 300);
  }
  return out;
}

std::optional<CuResult>
start_driver(const CudaDriverTable& t, nlohmann::ordered_json& out, nlohmann::ordered_json& calls) {
  if (t.driver_get_version != nullptr) {
    int version = 0;
    const CuResult rc = t.driver_get_version(&version);
    calls["cuDriverGetVersion"] = cuda_call_result(t, rc);
    if (rc == k_cuda_success) {
      out["version"] = version;
    }
  }
  if (t.init == nullptr) {
    out["error"] = "the library does not export cuInit";
    return std::nullopt;
  }
  const CuResult init = t.init(0);
  calls["cuInit"] = cuda_call_result(t, init);
  return init;
}

tl::expected<DeviceSession, std::string> DeviceSession::open() {
  // The name the CUDA runtime itself opens: the libcuda.so.1 (nvcuda.dll, in System32) the
  // process's search finds.
  auto lib = platform::DynamicLibrary::open(
      platform::host_os() == platform::OsFamily::windows ? "nvcuda.dll" : "libcuda.so.1");
  if (!lib) {
    return tl::make_unexpected(fmt::format("the CUDA driver cannot be loaded: {}",
                                           util::sanitize(lib.error().message, 300)));
  }
  DeviceSession s(std::move(*lib));
  nlohmann::ordered_json ignored = nlohmann::ordered_json::array();
  bind_cuda_driver(s.m_lib, s.m_t, ignored);
  const CudaDriverTable& t = s.m_t;
  if (t.init == nullptr || t.device_get == nullptr || t.primary_ctx_retain == nullptr
      || t.ctx_set_current == nullptr || t.mem_alloc == nullptr || t.memcpy_htod == nullptr
      || t.memcpy_dtoh == nullptr || t.ctx_synchronize == nullptr) {
    return tl::make_unexpected(std::string("libcuda.so.1 lacks the memory entry points"));
  }
  CuDevice dev = 0;
  CuContext ctx = nullptr;
  if (s.failed("cuInit", t.init(0)) || s.failed("cuDeviceGet", t.device_get(&dev, 0))
      || s.failed("cuDevicePrimaryCtxRetain", t.primary_ctx_retain(&ctx, dev))
      || s.failed("cuCtxSetCurrent", t.ctx_set_current(ctx))) {
    return tl::make_unexpected(s.m_error);
  }
  return s;
}

bool DeviceSession::failed(const char* call, CuResult rc) {
  if (rc == k_cuda_success) {
    return false;
  }
  if (m_error.empty()) {
    const nlohmann::ordered_json r = cuda_call_result(m_t, rc);
    m_error = fmt::format("{} returned {}{}",
                          call,
                          rc,
                          r.contains("name") ? fmt::format(" ({})", r["name"].get<std::string>())
                                             : std::string());
  }
  return true;
}

CuDevicePtr DeviceSession::allocate(std::size_t bytes) {
  CuDevicePtr p = 0;
  return failed("cuMemAlloc_v2", m_t.mem_alloc(&p, bytes)) ? 0 : p;
}

CuDevicePtr DeviceSession::upload(const void* host, std::size_t bytes) {
  const CuDevicePtr p = allocate(bytes);
  if (p == 0 || failed("cuMemcpyHtoD_v2", m_t.memcpy_htod(p, host, bytes))) {
    return 0;
  }
  return p;
}

bool DeviceSession::download(void* host, CuDevicePtr from, std::size_t bytes) {
  return !failed("cuCtxSynchronize", m_t.ctx_synchronize())
         && !failed("cuMemcpyDtoH_v2", m_t.memcpy_dtoh(host, from, bytes));
}

} // namespace doctor::probe
