// SPDX-License-Identifier: MIT
// The slice of the CUDA driver API's C ABI (cuda.h) the probe children call, declared here rather
// than included: the doctor never links libcuda and builds where cuda.h is absent. Used inside
// the isolated children only.
#pragma once

#include <doctor/platform/dynlib.hpp>
#include <doctor/util/error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace doctor::probe {

using CuResult = int;                   // CUresult
using CuDevice = int;                   // CUdevice
using CuContext = void*;                // CUcontext
using CuDevicePtr = unsigned long long; // CUdeviceptr (64-bit)
using CuModule = void*;                 // CUmodule
using CuFunction = void*;               // CUfunction
using CuEvent = void*;                  // CUevent
using CuStream = void*;                 // CUstream (null: the legacy default stream)

inline constexpr CuResult k_cuda_success = 0;

// The entry points, each bound to its newest versioned name (cuda.h maps cuCtxCreate to
// cuCtxCreate_v2, cuMemAlloc to cuMemAlloc_v2, …); null where the library exports none.
struct CudaDriverTable {
  CuResult (*init)(unsigned) = nullptr;
  CuResult (*driver_get_version)(int*) = nullptr;
  CuResult (*device_get_count)(int*) = nullptr;
  CuResult (*device_get)(CuDevice*, int) = nullptr;
  CuResult (*device_get_name)(char*, int, CuDevice) = nullptr;
  CuResult (*device_total_mem)(std::size_t*, CuDevice) = nullptr;
  CuResult (*ctx_create)(CuContext*, unsigned, CuDevice) = nullptr;
  CuResult (*ctx_destroy)(CuContext) = nullptr;
  CuResult (*get_error_name)(CuResult, const char**) = nullptr;
  CuResult (*get_error_string)(CuResult, const char**) = nullptr;
  CuResult (*primary_ctx_retain)(CuContext*, CuDevice) = nullptr;
  CuResult (*ctx_set_current)(CuContext) = nullptr;
  CuResult (*ctx_synchronize)() = nullptr;
  CuResult (*mem_alloc)(CuDevicePtr*, std::size_t) = nullptr;
  CuResult (*mem_free)(CuDevicePtr) = nullptr;
  CuResult (*memcpy_htod)(CuDevicePtr, const void*, std::size_t) = nullptr;
  CuResult (*memcpy_dtoh)(void*, CuDevicePtr, std::size_t) = nullptr;
  // The stress child's (stress_child.cpp) further entry points.
  CuResult (*mem_get_info)(std::size_t*, std::size_t*) = nullptr;
  CuResult (*memcpy_dtod)(CuDevicePtr, CuDevicePtr, std::size_t) = nullptr;
  CuResult (*memset_d32)(CuDevicePtr, unsigned, std::size_t) = nullptr;
  CuResult (*mem_host_alloc)(void**, std::size_t, unsigned) = nullptr;
  CuResult (*mem_free_host)(void*) = nullptr;
  CuResult (*module_load_data)(CuModule*, const void*) = nullptr;
  CuResult (*module_get_function)(CuFunction*, CuModule, const char*) = nullptr;
  CuResult (*module_unload)(CuModule) = nullptr;
  CuResult (*launch_kernel)(CuFunction,
                            unsigned, // grid x, y, z
                            unsigned,
                            unsigned,
                            unsigned, // block x, y, z
                            unsigned,
                            unsigned,
                            unsigned, // dynamic shared memory bytes
                            CuStream,
                            void**, // kernel parameters
                            void**) = nullptr;
  CuResult (*event_create)(CuEvent*, unsigned) = nullptr;
  CuResult (*event_record)(CuEvent, CuStream) = nullptr;
  CuResult (*event_synchronize)(CuEvent) = nullptr;
  CuResult (*event_elapsed_time)(float*, CuEvent, CuEvent) = nullptr;
  CuResult (*event_destroy)(CuEvent) = nullptr;
};

// The device address `p` as the pointer type a library's C API takes for device memory.
template<typename T>
T* device_pointer(CuDevicePtr p) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(p)); // NOLINT(performance-no-int-to-ptr)
}

// Binds every entry point of `t` that `lib` exports, recording the names used in `symbols`.
void bind_cuda_driver(const platform::DynamicLibrary& lib,
                      CudaDriverTable& t,
                      nlohmann::ordered_json& symbols);

// Records the outcome of a driver call under `out`: {"result": rc} and, where the library
// names it, "name" (cuGetErrorName) and "text" (cuGetErrorString), as it gave them.
nlohmann::ordered_json cuda_call_result(const CudaDriverTable& t, CuResult rc);

// Asks cuDriverGetVersion (which needs no cuInit) and then cuInit, recording each result in
// `calls` under its name and the version in out["version"]. Returns cuInit's result, or nullopt
// (with out["error"] saying so) when the library does not export cuInit.
std::optional<CuResult>
start_driver(const CudaDriverTable& t, nlohmann::ordered_json& out, nlohmann::ordered_json& calls);

// A context on device 0 of the libcuda.so.1 the CUDA runtime would open (cuDNN and cuBLAS
// allocate through the runtime, which uses the device's primary context: made current here, the
// memory below is theirs too), with device memory for a child's small computation.
class DeviceSession {
public:
  // Opens the driver and makes device 0's primary context current. Returns why not (the loader's
  // error, or the failed call and its result) as text.
  static tl::expected<DeviceSession, std::string> open();

  // Copies `bytes` bytes from `host` into new device memory; 0 on failure (why in error()).
  CuDevicePtr upload(const void* host, std::size_t bytes);

  // Allocates `bytes` bytes of device memory; 0 on failure (why in error()).
  CuDevicePtr allocate(std::size_t bytes);

  // Waits for the device, then copies `bytes` bytes back to `host`. Returns false on failure.
  bool download(void* host, CuDevicePtr from, std::size_t bytes);

  // The first failure, "" if none.
  const std::string& error() const { return m_error; }

private:
  explicit DeviceSession(platform::DynamicLibrary lib)
      : m_lib(std::move(lib)) {}
  bool failed(const char* call, CuResult rc);

  platform::DynamicLibrary m_lib;
  CudaDriverTable m_t;
  std::string m_error;
};

} // namespace doctor::probe
