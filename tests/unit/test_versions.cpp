// SPDX-License-Identifier: MIT
// The checks of family 1 on the library side (versions.cpp): framework builds against the cuDNN
// they load and the GPU they run on, TensorFlow on native Windows, one cuDNN directory of several
// releases, over in-memory facts and the embedded knowledge base.
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

TEST(check_gpu_arch, gtx_1080_with_cu128_torch_has_no_kernel_image) {
  auto f = machine_with(0x1b80, "570.172.08");
  add_env(f, framework("torch", "2.8.0+cu128", "12.8", "9.10.2.21"));
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_compat_gpu_arch_not_in_build);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cause_class, CauseClass::gpu_arch_unsupported);
  EXPECT_NE(d->message.find("6.1"), std::string::npos);
  EXPECT_TRUE(has_fix_command(*d, "cu126")) << "the cu126 builds still carry sm_60";
}

TEST(check_gpu_arch, the_build_s_own_arch_list_wins_over_the_table) {
  auto f = machine_with(0x1b80, "570.172.08");
  auto fw = framework("torch", "2.8.0+cu128", "12.8", "9.10.2.21");
  fw.cuda_archs = facts::Fact<std::vector<std::string>>::known({"sm_61", "sm_86"}, "fatbin:x");
  add_env(f, fw);
  EXPECT_FALSE(has_id(run_all(f), ids::k_compat_gpu_arch_not_in_build));
}

TEST(check_gpu_arch, cudnn_9_11_and_newer_on_pascal_is_below_the_minimum) {
  auto f = machine_with(0x1b80, "570.172.08");
  auto inst =
      test::cudnn_install("/venv/lib/python3.11/site-packages/nvidia/cudnn/lib", 9, {}, "9.19.0");
  inst.package = known("pip nvidia-cudnn-cu12 9.19.0.56");
  f.cudnn.push_back(inst);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_compat_gpu_below_cudnn_minimum);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("7.5"), std::string::npos) << d->message;
  EXPECT_TRUE(has_fix_command(*d, "nvidia-cudnn-cu12==9.10")) << "9.10 is the last for Pascal";
}

TEST(check_cudnn_for_framework, older_runtime_minor_than_compiled_is_an_error) {
  auto f = machine_with(0x2206, "535.183.01");
  add_env(f, framework("tensorflow", "2.10.1", "11.2", "8"));
  auto inst = test::cudnn_install("/venv/cudnn", 8, {}, "8.0.5");
  f.cudnn.push_back(inst);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_compat_cudnn_older_than_build);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cause_class, CauseClass::version_mismatch_cudnn);
  EXPECT_NE(d->message.find("8.1"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("8.0.5"), std::string::npos);
}

TEST(check_cudnn_for_framework, another_major_and_another_cuda_build) {
  auto f = machine_with(0x2684, "550.54.15");
  add_env(f, framework("torch", "2.1.2+cu121", "12.1", "8.9.2.26"));
  auto inst = test::cudnn_install("/venv/lib/nvidia/cudnn/lib", 9, {}, "9.1.0");
  inst.package = known("pip nvidia-cudnn-cu12 9.1.0.70");
  f.cudnn.push_back(inst);
  const auto findings1 = run_all(f);
  const Finding* d = find_id(findings1, ids::k_compat_cudnn_major_mismatch);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(has_fix_command(*d, "nvidia-cudnn-cu12==8.9.2.26"));

  f.cudnn.back() = test::cudnn_install("/venv/lib/nvidia/cudnn/lib", 8, {}, "8.9.2");
  f.cudnn.back().package = known("pip nvidia-cudnn-cu11 8.9.2.26");
  EXPECT_TRUE(has_id(run_all(f), ids::k_compat_cudnn_cuda_mismatch));
}

TEST(check_tensorflow_windows, tf_2_15_on_windows_with_a_gpu_has_no_gpu_support) {
  auto f = machine_with(0x2786, "560.94");
  f.collection.os_family = "windows";
  auto fw = framework("tensorflow", "2.15.0", "12.2", "8");
  fw.cuda_build = facts::Fact<bool>::known(false, "build_info");
  add_env(f, fw);
  const auto findings2 = run_all(f);
  const Finding* d = find_id(findings2, ids::k_compat_tensorflow_windows_no_gpu);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->cause_class, CauseClass::framework_no_gpu_support);
  EXPECT_TRUE(has_fix_command(*d, "wsl"));
  EXPECT_TRUE(has_fix_command(*d, "tensorflow<2.11"));
  // TF 2.10 is the last native GPU build: no finding.
  f.python_envs.front().frameworks.front().version = known("2.10.1");
  EXPECT_FALSE(has_id(run_all(f), ids::k_compat_tensorflow_windows_no_gpu));
}

TEST(check_cudnn_mixed_releases, mixed_releases_in_one_directory) {
  auto facts = test::machine_without_gpu();
  facts.cudnn.push_back(test::cudnn_install("/usr/lib/x86_64-linux-gnu",
                                            8,
                                            {{"libcudnn.so.8", "8.9.7"},
                                             {"libcudnn_ops_infer.so.8", "8.9.7"},
                                             {"libcudnn_ops_train.so.8", "8.9.7"},
                                             {"libcudnn_cnn_infer.so.8", "8.2.4"},
                                             {"libcudnn_cnn_train.so.8", "8.9.7"},
                                             {"libcudnn_adv_infer.so.8", "8.9.7"},
                                             {"libcudnn_adv_train.so.8", "8.9.7"}}));
  const auto findings = run_all(facts);
  const Finding* f = find_id(findings, ids::k_cudnn_sublibrary_version_mixed);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause_class, CauseClass::version_mismatch_cudnn);
  EXPECT_NE(f->message.find("libcudnn_cnn_infer.so.8 from 8.2.4"), std::string::npos);
  EXPECT_FALSE(has_id(findings, ids::k_cudnn_library_set_incomplete));
}

} // namespace
} // namespace doctor
