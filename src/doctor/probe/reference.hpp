// SPDX-License-Identifier: MIT
// The CPU side of the probes' small computations: the inputs, the reference results a GPU's
// answer is compared with, and the comparison. Pure; used in the cuDNN and cuBLAS children.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace doctor::probe {

// `count` small values (multiples of 1/8 in [-1, 1]) from `seed`: exact in float, so that the
// products and sums of the small problems below are exact too, whatever order a GPU sums in.
std::vector<float> test_values(std::size_t count, std::uint32_t seed);

// The shape of a 2-D convolution in NCHW layout, cross-correlation (cuDNN's
// CUDNN_CROSS_CORRELATION), with zero padding `pad` and stride 1 on both axes.
struct ConvShape {
  int n = 1, c = 2, h = 6, w = 6; // input
  int k = 3, r = 3, s = 3;        // filters: k outputs, r x s taps
  int pad = 1;
  int out_h() const { return h + 2 * pad - r + 1; }
  int out_w() const { return w + 2 * pad - s + 1; }
  std::size_t input_size() const { return static_cast<std::size_t>(n) * c * h * w; }
  std::size_t filter_size() const { return static_cast<std::size_t>(k) * c * r * s; }
  std::size_t output_size() const { return static_cast<std::size_t>(n) * k * out_h() * out_w(); }
};

// y = x (*) f, on the CPU. Precondition: x and f hold input_size() and filter_size() values.
std::vector<float>
convolution_reference(const ConvShape& shape, std::span<const float> x, std::span<const float> f);

// C = A B with column-major A (m x k), B (k x n), C (m x n), as cublasSgemm with no transposes,
// alpha 1 and beta 0 computes it.
std::vector<float>
gemm_reference(int m, int n, int k, std::span<const float> a, std::span<const float> b);

// How a GPU's result compares with the reference.
struct Comparison {
  std::size_t elements = 0;
  std::size_t mismatches = 0; // elements further than `tolerance` from the reference, or NaN
  double max_abs_error = 0;   // over the elements that are numbers
  std::size_t first_mismatch = 0;
  bool passed() const { return mismatches == 0; }
};

// Compares `got` with `want` element by element. Precondition: equal sizes.
Comparison compare(std::span<const float> got, std::span<const float> want, double tolerance);

// The report of a computation the child ran: {"name", "status": "passed" | "mismatch",
// "elements", "mismatches", "max_abs_error", "tolerance", "first_mismatch": {index, got, want}}.
nlohmann::ordered_json computation_report(const std::string& name,
                                          std::span<const float> got,
                                          std::span<const float> want,
                                          double tolerance);

// The report of a computation that did not run: {"name", "status": "skipped" or "failed",
// "detail": why}.
nlohmann::ordered_json
computation_not_run(const std::string& name, const std::string& status, const std::string& detail);

} // namespace doctor::probe
