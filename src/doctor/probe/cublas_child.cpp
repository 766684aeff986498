// SPDX-License-Identifier: MIT
#include <doctor/probe/cublas_api.hpp>
#include <doctor/probe/cublas_child.hpp>
#include <doctor/probe/cuda_driver.hpp>
#include <doctor/probe/library_child.hpp>
#include <doctor/probe/reference.hpp>
#include <doctor/probe/symbols.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <cstdint>

namespace doctor::probe {

namespace {

constexpr int k_major_version = 0; // libraryPropertyType MAJOR_VERSION
constexpr int k_minor_version = 1; // MINOR_VERSION
constexpr int k_patch_level = 2;   // PATCH_LEVEL
constexpr double k_gemm_tolerance = 1e-3;
constexpr int k_m = 16; // a 16x16 by 16x8 product: small, and past a single warp's tile
constexpr int k_n = 8;
constexpr int k_k = 16;

// C = A B for column-major A (16x16) and B (16x8) through cublasSgemm_v2 on device 0, compared
// with gemm_reference.
nlohmann::ordered_json gemm(const CublasTable& t, CublasHandle handle) {
  constexpr const char* k_name = "sgemm";
  if (t.sgemm == nullptr) {
    return computation_not_run(k_name, "skipped", "the library does not export cublasSgemm_v2");
  }
  auto session = DeviceSession::open();
  if (!session) {
    return computation_not_run(k_name, "skipped", session.error());
  }
  const std::vector<float> a = test_values(static_cast<std::size_t>(k_m) * k_k, 3);
  const std::vector<float> b = test_values(static_cast<std::size_t>(k_k) * k_n, 4);
  std::vector<float> c(static_cast<std::size_t>(k_m) * k_n, -1.0F);
  const CuDevicePtr da = session->upload(a.data(), a.size() * sizeof(float));
  const CuDevicePtr db = session->upload(b.data(), b.size() * sizeof(float));
  const CuDevicePtr dc = session->upload(c.data(), c.size() * sizeof(float));
  if (da == 0 || db == 0 || dc == 0) {
    return computation_not_run(k_name, "failed", session->error());
  }
  const float alpha = 1.0F;
  const float beta = 0.0F;
  const CublasStatus rc = t.sgemm(handle,
                                  k_cublas_op_n,
                                  k_cublas_op_n,
                                  k_m,
                                  k_n,
                                  k_k,
                                  &alpha,
                                  device_pointer<float>(da),
                                  k_m,
                                  device_pointer<float>(db),
                                  k_k,
                                  &beta,
                                  device_pointer<float>(dc),
                                  k_m);
  if (rc != k_cublas_success) {
    return computation_not_run(
        k_name, "failed", fmt::format("cublasSgemm_v2 returned {}", cublas_status(t, rc).dump()));
  }
  if (!session->download(c.data(), dc, c.size() * sizeof(float))) {
    return computation_not_run(k_name, "failed", session->error());
  }
  return computation_report(k_name, c, gemm_reference(k_m, k_n, k_k, a, b), k_gemm_tolerance);
}

nlohmann::ordered_json cublas_queries(const ChildInput& input) {
  nlohmann::ordered_json out;
  auto lib = open_library(input, out);
  if (!lib) {
    return out;
  }
  CublasTable t;
  nlohmann::ordered_json symbols = nlohmann::ordered_json::array();
  bind_cublas(*lib, t, symbols);
  out["symbols"] = symbols;
  // cublasGetProperty needs no handle, hence no GPU: ask it first.
  int parts[3] = {0, 0, 0};
  if (t.get_property != nullptr && t.get_property(k_major_version, &parts[0]) == k_cublas_success
      && t.get_property(k_minor_version, &parts[1]) == k_cublas_success
      && t.get_property(k_patch_level, &parts[2]) == k_cublas_success) {
    out["version_parts"] = {parts[0], parts[1], parts[2]};
  }
  if (t.create == nullptr) {
    out["error"] = "the library does not export cublasCreate_v2";
    return out;
  }
  CublasHandle handle = nullptr;
  const CublasStatus rc = t.create(&handle);
  out["calls"] = {{"cublasCreate_v2", cublas_status(t, rc)}};
  nlohmann::ordered_json computations = nlohmann::ordered_json::array();
  if (rc == k_cublas_success) {
    int version = 0;
    if (t.get_version != nullptr && t.get_version(handle, &version) == k_cublas_success) {
      out["version"] = version;
    }
    computations.push_back(gemm(t, handle));
  } else {
    computations.push_back(
        computation_not_run("sgemm", "skipped", "cublasCreate_v2 gave no handle"));
  }
  out["computations"] = computations;
  return out;
}

} // namespace

int run_cublas_child(const ChildInput& input) {
  return run_confined(library_child_confinement(), input, cublas_queries);
}

} // namespace doctor::probe
