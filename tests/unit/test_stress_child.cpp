// SPDX-License-Identifier: MIT
// The stress child's side that needs no GPU (probe/stress_child.cpp): its options argument, parsed
// without failing, and the embedded PTX module.
#include <doctor/probe/stress_child.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

TEST(stress_child, the_options_round_trip) {
  probe::StressPlan plan;
  plan.level = "long";
  plan.gpu = 3;
  plan.inject = "gemm";
  plan.seed = 42;
  plan.cublas = "/usr/local/cuda/lib64/libcublas.so.13";
  const probe::StressPlan back = probe::parse_stress_plan(probe::stress_plan_text(plan));
  EXPECT_EQ(back.level, "long");
  EXPECT_EQ(back.gpu, 3);
  EXPECT_EQ(back.inject, "gemm");
  EXPECT_EQ(back.seed, 42U);
  EXPECT_EQ(back.cublas, plan.cublas);
  // A path that would break the options argument is left out, not passed half.
  plan.cublas = "/odd;dir/libcublas.so.13";
  EXPECT_EQ(probe::parse_stress_plan(probe::stress_plan_text(plan)).cublas, "");
}

TEST(stress_child, bad_options_keep_the_defaults) {
  const probe::StressPlan p =
      probe::parse_stress_plan("level=forever;gpu=-2;gpu=x;inject=everything;seed=;junk;=;x=y");
  EXPECT_EQ(p.level, "quick");
  EXPECT_EQ(p.gpu, 0);
  EXPECT_EQ(p.inject, "none");
  EXPECT_EQ(p.seed, 1U);
}

TEST(stress_child, the_ptx_is_embedded_nul_terminated_with_every_kernel) {
  const std::string_view ptx = probe::stress_ptx();
  ASSERT_FALSE(ptx.empty());
  EXPECT_EQ(ptx.back(), '\0');
  EXPECT_NE(ptx.find("\n.version 7.0\n"), std::string_view::npos);
  EXPECT_NE(ptx.find("\n.target sm_52\n"), std::string_view::npos);
  for (const char* k :
       {"doctor_memtest_write(", "doctor_memtest_verify(", "doctor_sgemm(", "doctor_copy("}) {
    EXPECT_NE(ptx.find(std::string(".visible .entry ") + k), std::string_view::npos) << k;
  }
}

} // namespace
} // namespace doctor
