// SPDX-License-Identifier: MIT
// Family 6 (checks/unstable_hardware.cpp): a GPU that computes wrong results.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace doctor {
namespace {

using test::find_id;
using test::has_id;
using test::run_all;
namespace ids = test::ids;

facts::Facts with_computation(const char* status, const char* detail) {
  facts::Facts f = test::machine_without_gpu();
  facts::ProbeRun run;
  run.probe = "cudnn";
  run.status = "answered";
  run.library.path = "/usr/lib/libcudnn.so.9";
  facts::ProbeComputation c;
  c.name = "convolution_forward";
  c.status = status;
  c.detail = detail;
  c.elements = 108;
  c.mismatches = 1;
  c.max_abs_error = "0.5";
  run.computations = {c};
  f.probe.ran = true;
  f.probe.runs = {run};
  return f;
}

TEST(check_probe_computations, a_wrong_result_is_critical_hardware_instability) {
  const auto findings =
      run_all(with_computation("mismatch", R"(first difference {"index":5,"got":1.5,"want":1.0})"));
  const Finding* f = find_id(findings, ids::k_hardware_compute_mismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::critical);
  EXPECT_EQ(f->cause_class, CauseClass::hardware_unstable);
  EXPECT_NE(f->message.find("1 of 108 values"), std::string::npos);
  EXPECT_NE(f->message.find("0.5"), std::string::npos);
}

TEST(check_probe_computations, a_failed_run_is_an_error_and_a_skipped_one_nothing) {
  EXPECT_TRUE(has_id(run_all(with_computation("failed", "cudnnConvolutionForward returned 8")),
                     ids::k_probe_computation_failed));
  const auto skipped = run_all(with_computation("skipped", "cudnnCreate gave no handle"));
  EXPECT_FALSE(has_id(skipped, ids::k_probe_computation_failed));
  EXPECT_FALSE(has_id(skipped, ids::k_hardware_compute_mismatch));
  EXPECT_FALSE(has_id(run_all(with_computation("passed", "")), ids::k_hardware_compute_mismatch));
}

// A machine whose NVML lists one GPU with `telemetry`: healthy values, changed by `changes`.
facts::Facts gpu_with(std::map<std::string, std::uint64_t> changes) {
  std::map<std::string, std::uint64_t> t = {{"app_clock_graphics_mhz", 1755},
                                            {"app_clock_graphics_default_mhz", 1755},
                                            {"app_clock_memory_mhz", 2619},
                                            {"app_clock_memory_default_mhz", 2619},
                                            {"power_limit_mw", 700000},
                                            {"power_limit_default_mw", 700000},
                                            {"temperature_c", 34},
                                            {"temperature_slowdown_c", 87},
                                            {"clock_event_reasons", 0x1},
                                            {"pcie_width", 16},
                                            {"pcie_width_max", 16},
                                            {"pcie_replay_count", 0},
                                            {"ecc_uncorrected_volatile", 0},
                                            {"remapped_rows_pending", 0},
                                            {"remapped_rows_failure", 0}};
  for (const auto& [k, v] : changes) {
    t[k] = v;
  }
  facts::Facts f = test::machine_without_gpu();
  facts::NvmlDevice dev;
  dev.name = facts::Fact<std::string>::known("NVIDIA H200", "nvml");
  dev.telemetry = facts::Fact<std::map<std::string, std::uint64_t>>::known(t, "nvml:telemetry");
  f.driver.nvml.devices = facts::Fact<std::vector<facts::NvmlDevice>>::known({dev}, "nvml");
  return f;
}

std::vector<std::string> hardware_ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) {
    if (f.id.starts_with("hardware.")) {
      out.push_back(f.id);
    }
  }
  return out;
}

TEST(check_gpu_state, a_healthy_gpu_at_rest_gives_nothing) {
  EXPECT_TRUE(hardware_ids(run_all(gpu_with({}))).empty());
  // Working within its power cap (0x4) is not a slowdown for heat or power trouble.
  EXPECT_TRUE(hardware_ids(run_all(gpu_with({{"clock_event_reasons", 0x4}}))).empty());
}

TEST(check_gpu_state, clocks_or_power_limit_above_the_defaults_are_an_overclock) {
  const auto findings =
      run_all(gpu_with({{"app_clock_graphics_mhz", 2100}, {"power_limit_mw", 800000}}));
  const Finding* f = find_id(findings, ids::k_hardware_gpu_overclocked);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("app_clock_graphics_mhz 2100 MHz, default 1755 MHz"),
            std::string::npos);
  EXPECT_NE(f->message.find("power limit 800 W, default 700 W"), std::string::npos);
  EXPECT_EQ(hardware_ids(findings).size(), 1U);
}

TEST(check_gpu_state, thermal_slowdown_names_its_reasons_and_temperature) {
  const auto findings = run_all(gpu_with({{"clock_event_reasons", 0x60}, {"temperature_c", 92}}));
  const Finding* f = find_id(findings, ids::k_hardware_gpu_throttling);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("software thermal slowdown, hardware thermal slowdown"),
            std::string::npos);
  EXPECT_NE(f->message.find("92 C, slowdown at 87 C"), std::string::npos);
}

TEST(check_gpu_state, memory_errors_and_repairs_are_errors_and_a_failed_remap_critical) {
  auto findings =
      run_all(gpu_with({{"remapped_rows_pending", 1}, {"ecc_uncorrected_volatile", 3}}));
  const Finding* f = find_id(findings, ids::k_hardware_gpu_memory_errors);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->message.find("3 uncorrectable ECC errors"), std::string::npos);
  EXPECT_NE(f->message.find("a row remap is pending"), std::string::npos);
  findings = run_all(gpu_with({{"remapped_rows_failure", 1}}));
  f = find_id(findings, ids::k_hardware_gpu_memory_errors);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::critical);
}

TEST(check_gpu_state, a_narrow_link_is_reported_but_an_unknown_width_is_not) {
  auto findings = run_all(gpu_with({{"pcie_width", 8}, {"pcie_replay_count", 1234}}));
  const Finding* f = find_id(findings, ids::k_hardware_pcie_link_degraded);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("x8 of its x16"), std::string::npos);
  EXPECT_NE(f->message.find("1234 PCIe replays"), std::string::npos);
  auto facts = gpu_with({{"pcie_width", 8}});
  facts.driver.nvml.devices.value()[0].telemetry.value().erase("pcie_width_max");
  EXPECT_FALSE(has_id(run_all(facts), ids::k_hardware_pcie_link_degraded));
}

TEST(check_gpu_state, a_replay_counter_that_rises_between_readings_is_reported) {
  auto findings = run_all(gpu_with({{"pcie_replay_count", 40},
                                    {"pcie_replay_count_later", 47},
                                    {"pcie_replay_interval_ms", 100}}));
  const Finding* f = find_id(findings, ids::k_hardware_pcie_replays_rising);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("rose from 40 to 47 within 100 ms"), std::string::npos);
  // A count that stays, or a single reading, says nothing about now.
  EXPECT_TRUE(hardware_ids(run_all(gpu_with({{"pcie_replay_count", 1234},
                                             {"pcie_replay_count_later", 1234},
                                             {"pcie_replay_interval_ms", 100}})))
                  .empty());
  EXPECT_TRUE(hardware_ids(run_all(gpu_with({{"pcie_replay_count", 1234}}))).empty());
}

facts::Facts named_gpus(std::vector<const char*> names, std::uint64_t persistence) {
  facts::Facts f = gpu_with({{"persistence_mode", persistence}});
  auto& devs = f.driver.nvml.devices.value();
  const facts::NvmlDevice first = devs[0];
  devs.clear();
  for (const char* n : names) {
    facts::NvmlDevice d = first;
    d.index = static_cast<unsigned>(devs.size());
    d.name = facts::Fact<std::string>::known(n, "nvml");
    devs.push_back(d);
  }
  return f;
}

TEST(check_gpu_state, persistence_mode_off_is_info_on_a_linux_server_only) {
  auto findings = run_all(named_gpus({"NVIDIA A100-SXM4-40GB"}, 0));
  const Finding* f = find_id(findings, ids::k_hardware_persistence_mode_off);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::info);
  EXPECT_NE(f->message.find("NVIDIA A100-SXM4-40GB is a data-center GPU"), std::string::npos);
  EXPECT_TRUE(has_id(run_all(named_gpus({"Tesla T4"}, 0)), ids::k_hardware_persistence_mode_off));
  // Four workstation cards make a server too; one or two do not.
  const char* rtx = "NVIDIA GeForce RTX 4090";
  const auto four = run_all(named_gpus({rtx, rtx, rtx, rtx}, 0));
  EXPECT_EQ(
      std::count_if(four.begin(),
                    four.end(),
                    [](const Finding& x) { return x.id == ids::k_hardware_persistence_mode_off; }),
      4);
  EXPECT_FALSE(has_id(run_all(named_gpus({rtx, rtx}, 0)), ids::k_hardware_persistence_mode_off));
  EXPECT_FALSE(
      has_id(run_all(named_gpus({"NVIDIA RTX A6000"}, 0)), ids::k_hardware_persistence_mode_off));
  EXPECT_FALSE(has_id(run_all(named_gpus({"NVIDIA H100 80GB HBM3"}, 1)),
                      ids::k_hardware_persistence_mode_off));
  auto windows = named_gpus({"NVIDIA H100 80GB HBM3"}, 0);
  windows.collection.os_family = "windows";
  EXPECT_FALSE(has_id(run_all(windows), ids::k_hardware_persistence_mode_off));
}

} // namespace
} // namespace doctor
