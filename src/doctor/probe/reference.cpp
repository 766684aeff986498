// SPDX-License-Identifier: MIT
#include <doctor/probe/reference.hpp>

#include <cmath>

namespace doctor::probe {

namespace {

// An index computed in int (the shapes are small) as a container position.
std::size_t at(int i) {
  return static_cast<std::size_t>(i);
}

} // namespace

std::vector<float> test_values(std::size_t count, std::uint32_t seed) {
  std::vector<float> out(count);
  std::uint32_t x = seed * 2654435761U + 1U;
  for (float& v : out) {
    x = x * 1664525U + 1013904223U; // a linear congruential step: reproducible everywhere
    v = static_cast<float>(static_cast<int>((x >> 16) % 17U) - 8) / 8.0F;
  }
  return out;
}

std::vector<float>
convolution_reference(const ConvShape& sh, std::span<const float> x, std::span<const float> f) {
  std::vector<float> y(sh.output_size(), 0.0F);
  const int oh = sh.out_h();
  const int ow = sh.out_w();
  for (int n = 0; n < sh.n; ++n) {
    for (int k = 0; k < sh.k; ++k) {
      for (int p = 0; p < oh; ++p) {
        for (int q = 0; q < ow; ++q) {
          double sum = 0;
          for (int c = 0; c < sh.c; ++c) {
            for (int r = 0; r < sh.r; ++r) {
              for (int s = 0; s < sh.s; ++s) {
                const int ih = p + r - sh.pad;
                const int iw = q + s - sh.pad;
                if (ih < 0 || iw < 0 || ih >= sh.h || iw >= sh.w) {
                  continue;
                }
                const auto xi = at(((n * sh.c + c) * sh.h + ih) * sh.w + iw);
                const auto fi = at(((k * sh.c + c) * sh.r + r) * sh.s + s);
                sum += static_cast<double>(x[xi]) * f[fi];
              }
            }
          }
          y[at(((n * sh.k + k) * oh + p) * ow + q)] = static_cast<float>(sum);
        }
      }
    }
  }
  return y;
}

std::vector<float>
gemm_reference(int m, int n, int k, std::span<const float> a, std::span<const float> b) {
  std::vector<float> c(static_cast<std::size_t>(m) * n, 0.0F);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int l = 0; l < k; ++l) {
        sum += static_cast<double>(a[at(l * m + i)]) * b[at(j * k + l)];
      }
      c[at(j * m + i)] = static_cast<float>(sum);
    }
  }
  return c;
}

Comparison compare(std::span<const float> got, std::span<const float> want, double tolerance) {
  Comparison c;
  c.elements = want.size();
  for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    const bool bad = std::isnan(err) || err > tolerance;
    if (!std::isnan(err) && err > c.max_abs_error) {
      c.max_abs_error = err;
    }
    if (bad && c.mismatches++ == 0) {
      c.first_mismatch = i;
    }
  }
  return c;
}

nlohmann::ordered_json computation_report(const std::string& name,
                                          std::span<const float> got,
                                          std::span<const float> want,
                                          double tolerance) {
  const Comparison c = compare(got, want, tolerance);
  nlohmann::ordered_json out;
  out["name"] = name;
  out["status"] = c.passed() ? "passed" : "mismatch";
  out["elements"] = c.elements;
  out["mismatches"] = c.mismatches;
  out["max_abs_error"] = c.max_abs_error;
  out["tolerance"] = tolerance;
  if (!c.passed()) {
    const float g = got[c.first_mismatch];
    out["first_mismatch"] = {
        {"index", c.first_mismatch},
        {"got", std::isnan(g) ? nlohmann::ordered_json("NaN") : nlohmann::ordered_json(g)},
        {"want", want[c.first_mismatch]}};
  }
  return out;
}

nlohmann::ordered_json
computation_not_run(const std::string& name, const std::string& status, const std::string& detail) {
  nlohmann::ordered_json out;
  out["name"] = name;
  out["status"] = status;
  out["detail"] = detail;
  return out;
}

} // namespace doctor::probe
