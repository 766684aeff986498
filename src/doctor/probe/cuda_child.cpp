// SPDX-License-Identifier: MIT
#include <doctor/platform/dynlib.hpp>
#include <doctor/probe/cuda_child.hpp>
#include <doctor/probe/cuda_driver.hpp>
#include <doctor/probe/library_child.hpp>

#include <cstring>

namespace doctor::probe {

namespace {

constexpr int k_max_cuda_devices = 64; // devices asked about; the parent rejects a larger count

nlohmann::ordered_json device_report(const CudaDriverTable& t, int index) {
  nlohmann::ordered_json d;
  d["index"] = index;
  CuDevice dev = 0;
  const CuResult got = t.device_get != nullptr ? t.device_get(&dev, index) : -1;
  if (got != k_cuda_success) {
    d["device_get"] = cuda_call_result(t, got);
    return d;
  }
  if (t.device_get_name != nullptr) {
    char name[256];
    std::memset(name, 0, sizeof name);
    if (t.device_get_name(name, static_cast<int>(sizeof name - 1), dev) == k_cuda_success) {
      d["name"] = std::string(name);
    }
  }
  std::size_t memory = 0;
  if (t.device_total_mem != nullptr && t.device_total_mem(&memory, dev) == k_cuda_success) {
    d["memory_total"] = memory;
  }
  if (t.ctx_create != nullptr) {
    CuContext ctx = nullptr;
    const CuResult rc = t.ctx_create(&ctx, 0, dev);
    d["context"] = cuda_call_result(t, rc);
    if (rc == k_cuda_success && t.ctx_destroy != nullptr) {
      t.ctx_destroy(ctx);
    }
  }
  return d;
}

nlohmann::ordered_json cuda_queries(const ChildInput& input) {
  nlohmann::ordered_json out;
  auto lib = open_library(input, out);
  if (!lib) {
    return out;
  }
  CudaDriverTable t;
  nlohmann::ordered_json symbols = nlohmann::ordered_json::array();
  bind_cuda_driver(*lib, t, symbols);
  out["symbols"] = symbols;
  nlohmann::ordered_json calls = nlohmann::ordered_json::object();
  const std::optional<CuResult> init = start_driver(t, out, calls);
  if (init != k_cuda_success || t.device_get_count == nullptr) {
    out["calls"] = calls;
    return out;
  }
  int count = 0;
  const CuResult crc = t.device_get_count(&count);
  calls["cuDeviceGetCount"] = cuda_call_result(t, crc);
  out["calls"] = calls;
  if (crc != k_cuda_success) {
    return out;
  }
  out["device_count"] = count;
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (int i = 0; i < count && i < k_max_cuda_devices; ++i) {
    devices.push_back(device_report(t, i));
  }
  out["devices"] = devices;
  return out;
}

} // namespace

int run_cuda_child(const ChildInput& input) {
  return run_confined(library_child_confinement(), input, cuda_queries);
}

} // namespace doctor::probe
