// SPDX-License-Identifier: MIT
#include <doctor/probe/cuda_driver.hpp>
#include <doctor/probe/cudnn_child.hpp>
#include <doctor/probe/library_child.hpp>
#include <doctor/probe/reference.hpp>
#include <doctor/probe/symbols.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <cstdint>

namespace doctor::probe {

namespace {

// The slice of cuDNN's C ABI (cudnn_ops.h, cudnn_cnn.h, cudnn_graph.h of cuDNN 8 and 9) the
// probe calls, declared here rather than included: the doctor never links cuDNN. Enumerations
// are C enums, passed as int.
using CudnnStatus = int;
using CudnnHandle = void*;
using CudnnDescriptor = void*; // tensor, filter and convolution descriptors alike

constexpr CudnnStatus k_cudnn_success = 0;
constexpr int k_tensor_nchw = 0;        // CUDNN_TENSOR_NCHW
constexpr int k_data_float = 0;         // CUDNN_DATA_FLOAT
constexpr int k_cross_correlation = 1;  // CUDNN_CROSS_CORRELATION
constexpr int k_algo_implicit_gemm = 0; // CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: no workspace
constexpr double k_convolution_tolerance =
    1e-3; // the inputs are exact in float: any real error is big

struct CudnnTable {
  std::size_t (*get_version)() = nullptr;
  std::size_t (*get_cudart_version)() = nullptr;
  const char* (*get_error_string)(CudnnStatus) = nullptr;
  CudnnStatus (*create)(CudnnHandle*) = nullptr;
  CudnnStatus (*create_tensor)(CudnnDescriptor*) = nullptr;
  CudnnStatus (*set_tensor_4d)(CudnnDescriptor, int, int, int, int, int, int) = nullptr;
  CudnnStatus (*create_filter)(CudnnDescriptor*) = nullptr;
  CudnnStatus (*set_filter_4d)(CudnnDescriptor, int, int, int, int, int, int) = nullptr;
  CudnnStatus (*create_convolution)(CudnnDescriptor*) = nullptr;
  CudnnStatus (*set_convolution_2d)(CudnnDescriptor, int, int, int, int, int, int, int, int) =
      nullptr;
  CudnnStatus (*convolution_forward)(CudnnHandle,
                                     const void*,
                                     CudnnDescriptor,
                                     const void*,
                                     CudnnDescriptor,
                                     const void*,
                                     CudnnDescriptor,
                                     int,
                                     void*,
                                     std::size_t,
                                     const void*,
                                     CudnnDescriptor,
                                     void*) = nullptr;
};

nlohmann::ordered_json cudnn_status(const CudnnTable& t, CudnnStatus rc) {
  nlohmann::ordered_json out;
  out["result"] = rc;
  const char* s = t.get_error_string != nullptr ? t.get_error_string(rc) : nullptr;
  if (s != nullptr) {
    out["name"] = util::sanitize(s, 200);
  }
  return out;
}

// One small convolution (ConvShape's default: 2 channels of 6x6, three 3x3 filters, padding 1)
// through cudnnConvolutionForward on device 0, compared with convolution_reference.
nlohmann::ordered_json convolution(const CudnnTable& t, CudnnHandle handle) {
  constexpr const char* k_name = "convolution_forward";
  if (t.create_tensor == nullptr || t.set_tensor_4d == nullptr || t.create_filter == nullptr
      || t.set_filter_4d == nullptr || t.create_convolution == nullptr
      || t.set_convolution_2d == nullptr || t.convolution_forward == nullptr) {
    return computation_not_run(
        k_name, "skipped", "the library lacks the legacy convolution entry points");
  }
  auto session = DeviceSession::open();
  if (!session) {
    return computation_not_run(k_name, "skipped", session.error());
  }
  const ConvShape sh;
  const std::vector<float> x = test_values(sh.input_size(), 1);
  const std::vector<float> f = test_values(sh.filter_size(), 2);
  std::vector<float> y(sh.output_size(), -1.0F);
  const CuDevicePtr dx = session->upload(x.data(), x.size() * sizeof(float));
  const CuDevicePtr df = session->upload(f.data(), f.size() * sizeof(float));
  const CuDevicePtr dy = session->upload(y.data(), y.size() * sizeof(float));
  if (dx == 0 || df == 0 || dy == 0) {
    return computation_not_run(k_name, "failed", session->error());
  }
  CudnnDescriptor xd = nullptr;
  CudnnDescriptor yd = nullptr;
  CudnnDescriptor fd = nullptr;
  CudnnDescriptor cd = nullptr;
  const float alpha = 1.0F;
  const float beta = 0.0F;
  std::string failure;
  const auto ok = [&](const char* call, CudnnStatus rc) {
    if (rc != k_cudnn_success && failure.empty()) {
      failure = fmt::format("{} returned {}", call, cudnn_status(t, rc).dump());
    }
    return rc == k_cudnn_success;
  };
  // Each call only after the one before succeeded: a descriptor that was not made is never used.
  if (!(ok("cudnnCreateTensorDescriptor", t.create_tensor(&xd))
        && ok("cudnnSetTensor4dDescriptor",
              t.set_tensor_4d(xd, k_tensor_nchw, k_data_float, sh.n, sh.c, sh.h, sh.w))
        && ok("cudnnCreateTensorDescriptor", t.create_tensor(&yd))
        && ok("cudnnSetTensor4dDescriptor",
              t.set_tensor_4d(yd, k_tensor_nchw, k_data_float, sh.n, sh.k, sh.out_h(), sh.out_w()))
        && ok("cudnnCreateFilterDescriptor", t.create_filter(&fd))
        && ok("cudnnSetFilter4dDescriptor",
              t.set_filter_4d(fd, k_data_float, k_tensor_nchw, sh.k, sh.c, sh.r, sh.s))
        && ok("cudnnCreateConvolutionDescriptor", t.create_convolution(&cd))
        && ok("cudnnSetConvolution2dDescriptor",
              t.set_convolution_2d(
                  cd, sh.pad, sh.pad, 1, 1, 1, 1, k_cross_correlation, k_data_float)))) {
    return computation_not_run(k_name, "failed", failure);
  }
  const CudnnStatus rc = t.convolution_forward(handle,
                                               &alpha,
                                               xd,
                                               device_pointer<void>(dx),
                                               fd,
                                               device_pointer<void>(df),
                                               cd,
                                               k_algo_implicit_gemm,
                                               nullptr,
                                               0,
                                               &beta,
                                               yd,
                                               device_pointer<void>(dy));
  if (rc != k_cudnn_success) {
    return computation_not_run(
        k_name,
        "failed",
        fmt::format("cudnnConvolutionForward returned {}", cudnn_status(t, rc).dump()));
  }
  if (!session->download(y.data(), dy, y.size() * sizeof(float))) {
    return computation_not_run(k_name, "failed", session->error());
  }
  return computation_report(k_name, y, convolution_reference(sh, x, f), k_convolution_tolerance);
}

nlohmann::ordered_json cudnn_queries(const ChildInput& input) {
  nlohmann::ordered_json out;
  auto lib = open_library(input, out);
  if (!lib) {
    return out;
  }
  CudnnTable t;
  nlohmann::ordered_json symbols = nlohmann::ordered_json::array();
  bind(*lib, t.get_version, {"cudnnGetVersion"}, symbols);
  bind(*lib, t.get_cudart_version, {"cudnnGetCudartVersion"}, symbols);
  bind(*lib, t.get_error_string, {"cudnnGetErrorString"}, symbols);
  bind(*lib, t.create, {"cudnnCreate"}, symbols);
  bind(*lib, t.create_tensor, {"cudnnCreateTensorDescriptor"}, symbols);
  bind(*lib, t.set_tensor_4d, {"cudnnSetTensor4dDescriptor"}, symbols);
  bind(*lib, t.create_filter, {"cudnnCreateFilterDescriptor"}, symbols);
  bind(*lib, t.set_filter_4d, {"cudnnSetFilter4dDescriptor"}, symbols);
  bind(*lib, t.create_convolution, {"cudnnCreateConvolutionDescriptor"}, symbols);
  bind(*lib, t.set_convolution_2d, {"cudnnSetConvolution2dDescriptor"}, symbols);
  bind(*lib, t.convolution_forward, {"cudnnConvolutionForward"}, symbols);
  out["symbols"] = symbols;
  // The version queries need neither a GPU nor a driver: ask them first.
  if (t.get_version != nullptr) {
    out["version"] = t.get_version();
  }
  if (t.get_cudart_version != nullptr) {
    out["runtime_version"] = t.get_cudart_version();
  }
  if (t.create == nullptr) {
    out["error"] = "the library does not export cudnnCreate";
    return out;
  }
  CudnnHandle handle = nullptr;
  const CudnnStatus rc = t.create(&handle);
  out["calls"] = {{"cudnnCreate", cudnn_status(t, rc)}};
  nlohmann::ordered_json computations = nlohmann::ordered_json::array();
  computations.push_back(
      rc == k_cudnn_success
          ? convolution(t, handle)
          : computation_not_run("convolution_forward", "skipped", "cudnnCreate gave no handle"));
  out["computations"] = computations;
  return out;
}

} // namespace

int run_cudnn_child(const ChildInput& input) {
  return run_confined(library_child_confinement(), input, cudnn_queries);
}

} // namespace doctor::probe
