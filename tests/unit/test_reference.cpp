// SPDX-License-Identifier: MIT
// The CPU side of the probes' computations (probe/reference.cpp).
#include <doctor/probe/reference.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace doctor {
namespace {

TEST(reference, test_values_are_reproducible_eighths_in_range) {
  const auto a = probe::test_values(200, 7);
  EXPECT_EQ(a, probe::test_values(200, 7));
  EXPECT_NE(a, probe::test_values(200, 8));
  bool negative = false;
  for (const float v : a) {
    EXPECT_LE(std::fabs(v), 1.0F);
    EXPECT_EQ(v * 8.0F, std::round(v * 8.0F));
    negative = negative || v < 0;
  }
  EXPECT_TRUE(negative);
}

TEST(reference, convolution_with_a_centred_one_returns_the_input) {
  probe::ConvShape sh;
  sh.c = 1;
  sh.k = 1;
  const auto x = probe::test_values(sh.input_size(), 1);
  std::vector<float> f(sh.filter_size(), 0.0F);
  f[4] = 1.0F; // the centre of the 3x3 filter
  EXPECT_EQ(probe::convolution_reference(sh, x, f), x);
}

TEST(reference, convolution_pads_with_zeros) {
  probe::ConvShape sh;
  sh.c = 1;
  sh.k = 1;
  const std::vector<float> x(sh.input_size(), 1.0F);
  const std::vector<float> f(sh.filter_size(), 1.0F);
  const auto y = probe::convolution_reference(sh, x, f);
  ASSERT_EQ(y.size(), 36U);
  EXPECT_EQ(y[0], 4.0F); // a corner sees 2x2 of the input
  EXPECT_EQ(y[1], 6.0F); // an edge 2x3
  EXPECT_EQ(y[7], 9.0F); // the inside 3x3
}

TEST(reference, gemm_is_column_major) {
  // A = [[1, 2], [3, 4]] stored by columns; B = identity.
  const std::vector<float> a = {1, 3, 2, 4};
  const std::vector<float> id = {1, 0, 0, 1};
  EXPECT_EQ(probe::gemm_reference(2, 2, 2, a, id), a);
  const std::vector<float> b = {1, 1, 0, 0}; // B's first column is (1, 1), its second zero
  EXPECT_EQ(probe::gemm_reference(2, 2, 2, a, b), (std::vector<float>{3, 7, 0, 0}));
}

TEST(reference, compare_counts_differences_and_nan) {
  const std::vector<float> want = {1, 2, 3};
  EXPECT_TRUE(probe::compare(want, want, 0).passed());
  const auto c = probe::compare(
      std::vector<float>{1, 2.5F, std::numeric_limits<float>::quiet_NaN()}, want, 1e-3);
  EXPECT_EQ(c.mismatches, 2U);
  EXPECT_EQ(c.first_mismatch, 1U);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.5);
  const auto j = probe::computation_report("sgemm", std::vector<float>{1, 2, 4}, want, 1e-3);
  EXPECT_EQ(j["status"], "mismatch");
  EXPECT_EQ(j["first_mismatch"]["index"], 2);
  EXPECT_EQ(probe::computation_report("sgemm", want, want, 1e-3)["status"], "passed");
}

} // namespace
} // namespace doctor
