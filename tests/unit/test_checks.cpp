// SPDX-License-Identifier: MIT
#include "support/facts_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::find_id;
using test::has_id;
using test::run_all;

const std::vector<std::pair<std::string, std::string>> k_cudnn9_full = {
    {"libcudnn.so.9", "9.19.0"},
    {"libcudnn_adv.so.9", "9.19.0"},
    {"libcudnn_cnn.so.9", "9.19.0"},
    {"libcudnn_engines_precompiled.so.9", "9.19.0"},
    {"libcudnn_engines_runtime_compiled.so.9", "9.19.0"},
    {"libcudnn_graph.so.9", "9.19.0"},
    {"libcudnn_heuristic.so.9", "9.19.0"},
    {"libcudnn_ops.so.9", "9.19.0"}};

TEST(check_gpu_presence, no_nvidia_device_on_the_bus_is_an_error_with_evidence) {
  const auto findings = run_all(test::machine_without_gpu());
  const Finding* f = find_id(findings, "gpu.not_found");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->message.find("6 PCI devices"), std::string::npos);
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_EQ(f->evidence.front().source, "dir:/sys/bus/pci/devices");
  EXPECT_FALSE(has_id(findings, "driver.not_loaded"));
}

TEST(check_gpu_presence, unknown_pci_scan_is_not_called_absent) {
  auto facts = test::machine_without_gpu();
  facts.pci = facts::Fact<facts::PciScan>::unknown(
      "/sys/bus/pci/devices does not exist in the examined system");
  const auto findings = run_all(facts);
  EXPECT_FALSE(has_id(findings, "gpu.not_found"));
  const Finding* f = find_id(findings, "gpu.presence_unknown");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("/sys/bus/pci/devices does not exist"), std::string::npos);
}

TEST(check_gpu_presence, a_gpu_seen_by_nvml_counts_even_without_a_pci_scan) {
  auto facts = test::machine_without_gpu();
  facts.pci = facts::Fact<facts::PciScan>::unknown("no /sys");
  facts::NvmlDevice dev;
  facts.driver.nvml.devices = facts::Fact<std::vector<facts::NvmlDevice>>::known({dev}, "nvml");
  const auto findings = run_all(facts);
  EXPECT_FALSE(has_id(findings, "gpu.not_found"));
  EXPECT_FALSE(has_id(findings, "gpu.presence_unknown"));
}

TEST(check_driver_loaded, gpu_without_kernel_module_names_the_gpu_and_the_reason) {
  auto facts = test::machine_without_gpu();
  facts::PciScan scan;
  scan.devices_scanned = 7;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x2330, nullptr));
  facts.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  const auto findings = run_all(facts);
  EXPECT_FALSE(has_id(findings, "gpu.not_found"));
  const Finding* f = find_id(findings, "driver.not_loaded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause_class, CauseClass::driver_not_loaded);
  EXPECT_EQ(f->subject, "0000:01:00.0");
  EXPECT_NE(f->message.find("10de:2330"), std::string::npos);
  EXPECT_NE(f->message.find("not loaded"), std::string::npos);
  // Debian gets the Debian install command, not Ubuntu's.
  bool debian_fix = false;
  for (const Fix& x : f->fixes) {
    EXPECT_EQ(x.command.find("ubuntu-drivers"), std::string::npos);
    debian_fix = debian_fix || x.command == "sudo apt install nvidia-driver";
  }
  EXPECT_TRUE(debian_fix);
}

TEST(check_nouveau, nouveau_bound_is_the_root_cause_not_a_missing_driver) {
  auto facts = test::machine_without_gpu();
  facts::PciScan scan;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x1b80, "nouveau"));
  facts.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  facts.driver.nouveau_loaded = facts::Fact<bool>::known(true, "file:/proc/modules");
  const auto findings = run_all(facts);
  const Finding* f = find_id(findings, "driver.nouveau_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause_class, CauseClass::driver_conflict);
  EXPECT_NE(f->message.find("is bound to the GPU"), std::string::npos);
  EXPECT_FALSE(has_id(findings, "driver.not_loaded"));
}

TEST(check_nouveau, loaded_nouveau_with_gpu_on_nvidia_is_harmless) {
  auto facts = test::machine_without_gpu();
  facts::PciScan scan;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x2330, "nvidia"));
  facts.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  facts.driver.nouveau_loaded = facts::Fact<bool>::known(true, "file:/proc/modules");
  facts.driver.kernel_module_version = test::known("535.104.05");
  EXPECT_FALSE(has_id(run_all(facts), "driver.nouveau_bound"));
}

TEST(check_device_nodes, module_without_gpu_nodes_is_reported_and_nvidiactl_alone_proves_nothing) {
  auto facts = test::machine_without_gpu();
  facts.driver.kernel_module_version = test::known("535.104.05");
  facts::DeviceNode ctl{"/dev/nvidiactl", "character_device", "0666", 0, 0, 195, 255};
  facts.driver.device_nodes = facts::Fact<std::vector<facts::DeviceNode>>::known({ctl}, "dir:/dev");
  const auto results = run_all(facts);
  const Finding* f = find_id(results, "driver.device_nodes_missing");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("/dev/nvidiactl"), std::string::npos);

  facts::DeviceNode gpu0{"/dev/nvidia0", "character_device", "0666", 0, 0, 195, 0};
  facts.driver.device_nodes =
      facts::Fact<std::vector<facts::DeviceNode>>::known({ctl, gpu0}, "dir:/dev");
  EXPECT_FALSE(has_id(run_all(facts), "driver.device_nodes_missing"));
}

TEST(check_nvml_probe, crashed_probe_is_a_warning_with_detail) {
  auto facts = test::machine_without_gpu();
  facts.driver.nvml.status = "probe_failed";
  facts.driver.nvml.detail = "the NVML probe crashed (signal or exception 0xb)";
  const auto results = run_all(facts);
  const Finding* f = find_id(results, "driver.nvml_probe_failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->message.find("crashed"), std::string::npos);
}

TEST(check_cudnn_sets, complete_cudnn9_set_gives_no_finding) {
  auto facts = test::machine_without_gpu();
  facts.cudnn.push_back(
      test::cudnn_install("/usr/local/cuda-13.0/lib", 9, k_cudnn9_full, "9.19.0"));
  const auto findings = run_all(facts);
  EXPECT_FALSE(has_id(findings, "cudnn.library_set_incomplete"));
  EXPECT_FALSE(has_id(findings, "cudnn.sublibrary_version_mixed"));
}

TEST(check_cudnn_sets, missing_sublibrary_is_named) {
  auto members = k_cudnn9_full;
  members.erase(members.begin() + 2); // libcudnn_cnn.so.9
  auto facts = test::machine_without_gpu();
  facts.cudnn.push_back(test::cudnn_install("/opt/cudnn/lib", 9, members, "9.19.0"));
  const auto results = run_all(facts);
  const Finding* f = find_id(results, "cudnn.library_set_incomplete");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause_class, CauseClass::library_missing_cudnn_sublibrary);
  EXPECT_NE(f->message.find("lacks libcudnn_cnn.so.9"), std::string::npos);
  EXPECT_EQ(f->subject, "/opt/cudnn/lib");
}

TEST(check_cudnn_sets, jit_variant_counts_as_complete) {
  auto facts = test::machine_without_gpu();
  facts.cudnn.push_back(test::cudnn_install("/opt/conda/lib",
                                            9,
                                            {{"libcudnn.so.9", "9.5.0"},
                                             {"libcudnn_graph.so.9", "9.5.0"},
                                             {"libcudnn_engines_runtime_compiled.so.9", "9.5.0"}},
                                            "9.5.0"));
  EXPECT_FALSE(has_id(run_all(facts), "cudnn.library_set_incomplete"));
}

TEST(check_cudnn_sets, tensor_ir_engine_is_required_from_9_21) {
  auto facts = test::machine_without_gpu();
  auto members = k_cudnn9_full;
  for (auto& m : members) {
    m.second = "9.21.0";
  }
  facts.cudnn.push_back(test::cudnn_install("/opt/cudnn/lib", 9, members, "9.21.0"));
  const auto results = run_all(facts);
  const Finding* f = find_id(results, "cudnn.library_set_incomplete");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("libcudnn_engines_tensor_ir.so.9"), std::string::npos);
}

TEST(check_cudnn_sets, pip_owned_copy_gets_a_pinned_reinstall_command) {
  auto members = k_cudnn9_full;
  members.pop_back();
  auto facts = test::machine_without_gpu();
  auto inst = test::cudnn_install(
      "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib", 9, members, "9.1.0");
  inst.package = test::known("pip nvidia-cudnn-cu12 9.1.0.70", "record:/venv/RECORD");
  facts.cudnn.push_back(inst);
  const auto results = run_all(facts);
  const Finding* f = find_id(results, "cudnn.library_set_incomplete");
  ASSERT_NE(f, nullptr);
  const bool pinned = std::any_of(f->fixes.begin(), f->fixes.end(), [](const Fix& x) {
    return x.command == "pip install --force-reinstall --no-deps nvidia-cudnn-cu12==9.1.0.70";
  });
  EXPECT_TRUE(pinned);
  for (const Fix& x : f->fixes) {
    EXPECT_EQ(x.command.find("apt"), std::string::npos) << "a pip copy gets no apt command";
  }
}

TEST(check_cudnn_sets, mixed_releases_in_one_directory) {
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
  const Finding* f = find_id(findings, "cudnn.sublibrary_version_mixed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause_class, CauseClass::version_mismatch_cudnn);
  EXPECT_NE(f->message.find("libcudnn_cnn_infer.so.8 from 8.2.4"), std::string::npos);
  EXPECT_FALSE(has_id(findings, "cudnn.library_set_incomplete"));
}

TEST(check_environment, several_toolkits_and_copies_are_listed) {
  auto facts = test::machine_without_gpu();
  facts::CudaToolkit a;
  a.path = "/usr/local/cuda-12.4";
  a.version = test::known_version("12.4");
  facts::CudaToolkit b;
  b.path = "/usr/local/cuda-13.0";
  b.version = test::known_version("13.0");
  facts.cuda_toolkits = {a, b};
  facts.cudnn.push_back(test::cudnn_install("/a", 9, k_cudnn9_full, "9.19.0"));
  facts.cudnn.push_back(test::cudnn_install("/b", 9, k_cudnn9_full, "9.19.0"));
  const auto findings = run_all(facts);
  const Finding* tk = find_id(findings, "cuda.multiple_toolkits");
  ASSERT_NE(tk, nullptr);
  EXPECT_EQ(tk->severity, Severity::info);
  EXPECT_NE(tk->message.find("12.4 at /usr/local/cuda-12.4; 13.0 at /usr/local/cuda-13.0"),
            std::string::npos);
  ASSERT_TRUE(has_id(findings, "cudnn.multiple_copies"));

  facts.cuda_toolkits.pop_back();
  facts.cudnn.pop_back();
  EXPECT_FALSE(has_id(run_all(facts), "cuda.multiple_toolkits"));
  EXPECT_FALSE(has_id(run_all(facts), "cudnn.multiple_copies"));
}

TEST(check_collector_errors, each_failed_collector_is_a_finding) {
  auto facts = test::machine_without_gpu();
  facts.collection.errors.push_back({"cudnn", "boom"});
  const auto results = run_all(facts);
  const Finding* f = find_id(results, "internal.collector_failed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject, "cudnn");
  EXPECT_NE(f->message.find("boom"), std::string::npos);
}

} // namespace
} // namespace doctor
