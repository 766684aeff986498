// SPDX-License-Identifier: MIT
// The checks of family 1 on the driver side (versions_driver.cpp): the driver against the CUDA of
// each framework build, cuDNN and toolkit, and the GPU against the driver branch and the toolkits,
// over in-memory facts and the embedded knowledge base.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::add_env;
using test::find_id;
using test::framework;
using test::has_fix_command;
using test::has_id;
using test::known;
using test::machine_with;
using test::run_all;
namespace ids = test::ids;

TEST(check_driver_for_cuda, driver_470_with_a_cu121_torch_is_an_error_with_the_cu118_way_out) {
  auto f = machine_with(0x2204, "470.223.02");
  add_env(f, framework("torch", "2.1.2+cu121", "12.1", "8.9.2.26"));
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_compat_driver_too_old);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::error);
  EXPECT_EQ(d->cause_class, CauseClass::driver_too_old);
  EXPECT_NE(d->message.find("525.60.13"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("470.223.02"), std::string::npos);
  EXPECT_TRUE(has_fix_command(*d, "cu118")) << "the cu118 build runs on driver 470";
}

TEST(check_driver_for_cuda, minor_version_compatibility_is_applied) {
  // CUDA 12.4 was released with 550.54.14, but any 12.x runs on 525.60.13 and newer.
  auto f = machine_with(0x2684, "535.183.01");
  add_env(f, framework("torch", "2.4.1+cu124", "12.4", "9.1.0.70"));
  const auto findings = run_all(f);
  EXPECT_FALSE(has_id(findings, ids::k_compat_driver_too_old));
  const Finding* d = find_id(findings, ids::k_compat_driver_minor_compat_only);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::info);
  EXPECT_NE(d->message.find("PTX"), std::string::npos);
}

TEST(check_driver_for_cuda, a_toolkit_too_new_for_the_driver_is_a_warning) {
  auto f = machine_with(0x2684, "535.183.01");
  facts::CudaToolkit tk;
  tk.path = "/usr/local/cuda-13.0";
  tk.version = test::known_version("13.0.2");
  f.cuda_toolkits.push_back(tk);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_compat_driver_too_old);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_NE(d->message.find("580.65.06"), std::string::npos) << d->message;
}

TEST(check_driver_for_cuda, a_cudnn_built_for_cuda_12_needs_the_12_x_driver_floor) {
  auto f = machine_with(0x2204, "470.223.02");
  auto inst = test::cudnn_install("/opt/cudnn/lib", 9, {}, "9.1.0");
  inst.package = known("pip nvidia-cudnn-cu12 9.1.0.70");
  f.cudnn.push_back(inst);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_compat_driver_too_old);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->subject, "/opt/cudnn/lib");
  EXPECT_NE(d->message.find("CUDA 12"), std::string::npos) << d->message;
  // Inside an environment whose framework is judged, the framework's finding covers it.
  add_env(f, framework("torch", "2.4.1+cu121", "12.1", "9.1.0.70"));
  f.cudnn.back().dir = "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib";
  const auto again = run_all(f);
  EXPECT_EQ(std::count_if(again.begin(),
                          again.end(),
                          [](const Finding& x) { return x.id == ids::k_compat_driver_too_old; }),
            1);
}

TEST(check_gpu_driver_support, pascal_on_a_595_driver_is_dropped) {
  auto f = machine_with(0x1b80, "595.45.04");
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_compat_gpu_dropped_by_driver);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("580"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("6.1"), std::string::npos);
  EXPECT_FALSE(
      has_id(run_all(machine_with(0x1b80, "580.95.05")), ids::k_compat_gpu_dropped_by_driver));
}

TEST(check_gpu_driver_support, blackwell_needs_570_and_the_open_module) {
  const auto old = run_all(machine_with(0x2b85, "560.35.03"));
  EXPECT_TRUE(has_id(old, ids::k_compat_gpu_needs_newer_driver));
  const auto proprietary = run_all(machine_with(0x2b85, "575.57.08"));
  EXPECT_TRUE(has_id(proprietary, ids::k_compat_gpu_needs_open_module));
  auto open = machine_with(0x2b85, "575.57.08");
  open.driver.kernel_module_type = known("open");
  EXPECT_FALSE(has_id(run_all(open), ids::k_compat_gpu_needs_open_module));
}

TEST(check_gpu_toolkit_support, a_toolkit_past_the_gpu_s_architecture_cannot_build_for_it) {
  auto f = machine_with(0x102d, "470.256.02"); // Tesla K80, compute capability 3.7
  facts::CudaToolkit tk;
  tk.path = "/usr/local/cuda-12.2";
  tk.version = test::known_version("12.2.2", "file:/usr/local/cuda-12.2/version.json");
  f.cuda_toolkits.push_back(tk);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_compat_gpu_unsupported_by_toolkit);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_EQ(d->cause_class, CauseClass::gpu_arch_unsupported);
  EXPECT_EQ(d->subject, "/usr/local/cuda-12.2");
  EXPECT_NE(d->message.find("The CUDA toolkit 12.2.2 in /usr/local/cuda-12.2 cannot compile for"),
            std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("supported by CUDA 6.5 up to the release before 12.0"),
            std::string::npos);

  f.cuda_toolkits.front().version = test::known_version("11.8");
  EXPECT_FALSE(has_id(run_all(f), ids::k_compat_gpu_unsupported_by_toolkit));
}

} // namespace
} // namespace doctor
