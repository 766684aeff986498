// SPDX-License-Identifier: MIT
// The check of family 5 (resources.cpp): host memory (RAM and swap, or the Windows page file)
// against the GPUs' memory.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <optional>

namespace doctor {
namespace {

using test::find_id;
using test::has_fix_command;
using test::has_id;
using test::run_all;
using test::ids::k_resources_host_memory_below_gpu_memory;

constexpr auto k_npos = std::string::npos;
constexpr std::uint64_t k_gib = std::uint64_t{1} << 30U;

facts::NvmlDevice gpu(unsigned index, const char* name, std::uint64_t memory) {
  facts::NvmlDevice d;
  d.index = index;
  d.name = test::known(name, "nvml:nvmlDeviceGetName");
  d.memory_total = facts::Fact<std::uint64_t>::known(memory, "nvml:nvmlDeviceGetMemoryInfo");
  return d;
}

// A Linux machine with `ram` and `swap` bytes (from /proc/meminfo) and the GPUs NVML lists.
facts::Facts machine(std::uint64_t ram, std::uint64_t swap, std::vector<facts::NvmlDevice> gpus) {
  auto f = test::machine_without_gpu();
  f.os.memory_total = facts::Fact<std::uint64_t>::known(ram, "file:/proc/meminfo");
  f.os.swap_total = facts::Fact<std::uint64_t>::known(swap, "file:/proc/meminfo");
  f.driver.nvml.status = "ok";
  f.driver.nvml.detail.clear();
  f.driver.nvml.devices = facts::Fact<std::vector<facts::NvmlDevice>>::known(
      std::move(gpus), "nvml:nvmlDeviceGetCount_v2");
  return f;
}

const std::uint64_t k_h100 = 85520809984; // NVML's memory total of an H100 80GB HBM3: 79.6 GiB

TEST(check_host_memory, less_ram_and_swap_than_gpu_memory_is_a_warning_with_the_numbers) {
  const auto findings =
      run_all(machine(16 * k_gib, 2 * k_gib, {gpu(0, "NVIDIA H100 80GB HBM3", k_h100)}));
  const Finding* d = find_id(findings, k_resources_host_memory_below_gpu_memory);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_EQ(d->cause_class, CauseClass::host_out_of_memory);
  EXPECT_EQ(d->subject, "host memory");
  EXPECT_NE(d->message.find("This machine has 16.0 GiB of RAM and 2.0 GiB of swap, 18.0 GiB "
                            "together: less than the 79.6 GiB of memory on its GPU (NVIDIA H100 "
                            "80GB HBM3)"),
            k_npos)
      << d->message;
  EXPECT_NE(d->message.find("62 GiB more swap closes the gap"), k_npos) << d->message;
  EXPECT_NE(d->message.find("WinError 1455"), k_npos);
  // Evidence: each fact with its source, and the reason for the line.
  ASSERT_EQ(d->evidence.size(), 4U);
  EXPECT_EQ(d->evidence[0].source, "file:/proc/meminfo");
  EXPECT_EQ(d->evidence[0].value, "RAM: 16.0 GiB (17179869184 bytes)");
  EXPECT_EQ(d->evidence[1].value, "swap: 2.0 GiB (2147483648 bytes)");
  EXPECT_EQ(d->evidence[2].source, "nvml:nvmlDeviceGetMemoryInfo");
  EXPECT_EQ(d->evidence[2].value,
            "GPU 0 NVIDIA H100 80GB HBM3: 79.6 GiB of memory (85520809984 bytes)");
  EXPECT_EQ(d->evidence[3].source, "kb");
  // Linux fixes with the size, no Windows ones.
  EXPECT_TRUE(has_fix_command(*d,
                              "sudo fallocate -l 62G /swapfile-gpu && sudo chmod 600 /swapfile-gpu "
                              "&& sudo mkswap /swapfile-gpu && sudo swapon /swapfile-gpu"));
  EXPECT_TRUE(has_fix_command(*d, "/swapfile-gpu none swap sw 0 0"));
  EXPECT_FALSE(has_fix_command(*d, "SystemPropertiesPerformance"));
  EXPECT_FALSE(has_fix_command(*d, "Set-CimInstance"));
  const bool lighter_loading = std::any_of(d->fixes.begin(), d->fixes.end(), [](const Fix& x) {
    return x.text.find("low_cpu_mem_usage=True") != std::string::npos && x.command.empty();
  });
  EXPECT_TRUE(lighter_loading);
}

TEST(check_host_memory, the_memory_a_gpu_holds_now_is_in_the_evidence) {
  auto g = gpu(0, "NVIDIA H100 80GB HBM3", k_h100);
  g.memory_used = facts::Fact<std::uint64_t>::known(12 * k_gib, "nvml:nvmlDeviceGetMemoryInfo");
  const auto findings = run_all(machine(16 * k_gib, 2 * k_gib, {g}));
  const Finding* d = find_id(findings, k_resources_host_memory_below_gpu_memory);
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->evidence.size(), 4U);
  EXPECT_EQ(d->evidence[2].value,
            "GPU 0 NVIDIA H100 80GB HBM3: 79.6 GiB of memory (85520809984 bytes), 12.0 GiB in use "
            "now");
}

TEST(check_host_memory, on_windows_it_is_the_page_file_with_its_size_in_mb) {
  auto f = machine(32 * k_gib, 4 * k_gib, {gpu(0, "NVIDIA RTX A6000", 48 * k_gib)});
  f.collection.os_family = "windows";
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, k_resources_host_memory_below_gpu_memory);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("32.0 GiB of RAM and 4.0 GiB of page file, 36.0 GiB together"), k_npos)
      << d->message;
  EXPECT_NE(d->message.find("12 GiB more page file closes the gap"), k_npos) << d->message;
  EXPECT_EQ(d->evidence[1].value, "page file: 4.0 GiB (4294967296 bytes)");
  // The page file alone must cover what the RAM does not: 16 GiB = 16384 MB.
  const bool sized = std::any_of(d->fixes.begin(), d->fixes.end(), [](const Fix& x) {
    return x.text.find("at least 16384 MB") != std::string::npos
           && x.command == "SystemPropertiesPerformance.exe";
  });
  EXPECT_TRUE(sized);
  // The PowerShell hash table keeps its braces after rendering.
  EXPECT_TRUE(has_fix_command(*d,
                              "Get-CimInstance Win32_ComputerSystem | Set-CimInstance -Property "
                              "@{AutomaticManagedPagefile=$true}"));
  EXPECT_FALSE(has_fix_command(*d, "fallocate"));
}

TEST(check_host_memory, every_gpu_counts_and_each_kind_is_named_once) {
  const auto findings = run_all(machine(64 * k_gib,
                                        0,
                                        {gpu(0, "NVIDIA A100-SXM4-40GB", 40 * k_gib),
                                         gpu(1, "NVIDIA A100-SXM4-40GB", 40 * k_gib),
                                         gpu(2, "Tesla T4", 15 * k_gib)}));
  const Finding* d = find_id(findings, k_resources_host_memory_below_gpu_memory);
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("less than the 95.0 GiB of memory on its 3 GPUs (2 NVIDIA "
                            "A100-SXM4-40GB, 1 Tesla T4)"),
            k_npos)
      << d->message;
  EXPECT_EQ(d->evidence.size(), 6U) << "RAM, swap, three GPUs and the reason";
  EXPECT_TRUE(has_fix_command(*d, "sudo fallocate -l 31G"));
}

TEST(check_host_memory, enough_host_memory_counting_swap_gives_no_finding) {
  // RAM alone, RAM and swap together, and exactly as much as the GPUs have.
  EXPECT_FALSE(has_id(run_all(machine(128 * k_gib, 0, {gpu(0, "NVIDIA H100 80GB HBM3", k_h100)})),
                      k_resources_host_memory_below_gpu_memory));
  EXPECT_FALSE(
      has_id(run_all(machine(64 * k_gib, 16 * k_gib, {gpu(0, "NVIDIA H100 80GB HBM3", k_h100)})),
             k_resources_host_memory_below_gpu_memory));
  EXPECT_FALSE(
      has_id(run_all(machine(16 * k_gib, 8 * k_gib, {gpu(0, "NVIDIA RTX A5000", 24 * k_gib)})),
             k_resources_host_memory_below_gpu_memory));
}

TEST(check_host_memory, unknown_sizes_give_no_finding) {
  const auto small = [] {
    return machine(8 * k_gib, 0, {gpu(0, "NVIDIA GeForce RTX 4090", 24 * k_gib)});
  };
  ASSERT_TRUE(has_id(run_all(small()), k_resources_host_memory_below_gpu_memory));

  auto no_ram = small();
  no_ram.os.memory_total = facts::Fact<std::uint64_t>::unknown("cannot read /proc/meminfo");
  EXPECT_FALSE(has_id(run_all(no_ram), k_resources_host_memory_below_gpu_memory));

  auto no_swap = small();
  no_swap.os.swap_total = facts::Fact<std::uint64_t>::unknown("/proc/meminfo has no SwapTotal");
  EXPECT_FALSE(has_id(run_all(no_swap), k_resources_host_memory_below_gpu_memory));

  auto no_nvml = small();
  no_nvml.driver.nvml.devices =
      facts::Fact<std::vector<facts::NvmlDevice>>::unknown("nvmlInit_v2 returned 9");
  EXPECT_FALSE(has_id(run_all(no_nvml), k_resources_host_memory_below_gpu_memory));

  EXPECT_FALSE(
      has_id(run_all(machine(8 * k_gib, 0, {})), k_resources_host_memory_below_gpu_memory));

  // One GPU's memory unknown: the total is unknown too.
  auto unknown_memory = gpu(1, "NVIDIA GeForce RTX 4090", 0);
  unknown_memory.memory_total =
      facts::Fact<std::uint64_t>::unknown("nvmlDeviceGetMemoryInfo returned 3");
  EXPECT_FALSE(
      has_id(run_all(machine(
                 8 * k_gib, 0, {gpu(0, "NVIDIA GeForce RTX 4090", 24 * k_gib), unknown_memory})),
             k_resources_host_memory_below_gpu_memory));
}

TEST(check_host_memory, sizes_from_a_hostile_snapshot_do_not_wrap_around) {
  constexpr std::uint64_t k_max = std::numeric_limits<std::uint64_t>::max();
  // RAM plus swap past 2^64 is not a small number (wrapped, it would be 2 GiB - 1).
  EXPECT_FALSE(has_id(run_all(machine(k_max, 2 * k_gib, {gpu(0, "NVIDIA H100 80GB HBM3", k_h100)})),
                      k_resources_host_memory_below_gpu_memory));
  // Nor are GPU sizes that add up past it (wrapped, below the 16 GiB of RAM).
  const auto findings =
      run_all(machine(16 * k_gib, 0, {gpu(0, "A", k_max), gpu(1, "B", 2 * k_gib)}));
  EXPECT_TRUE(has_id(findings, k_resources_host_memory_below_gpu_memory));
}

facts::GpuProcess process(std::uint32_t pid, const char* name, std::optional<std::uint64_t> used) {
  facts::GpuProcess p;
  p.pid = pid;
  p.kind = "compute";
  p.name = name != nullptr ? test::known(name, "file:/proc/comm")
                           : facts::Fact<std::string>::unknown("/proc/1/comm cannot be read");
  p.used_memory = used ? facts::Fact<std::uint64_t>::known(*used, "nvml:running_processes")
                       : facts::Fact<std::uint64_t>::unknown("NVML_VALUE_NOT_AVAILABLE");
  return p;
}

facts::Facts busy_gpu(std::uint64_t free, std::vector<facts::GpuProcess> procs) {
  auto dev = gpu(0, "NVIDIA H100 80GB HBM3", k_h100);
  dev.memory_free = facts::Fact<std::uint64_t>::known(free, "nvml:nvmlDeviceGetMemoryInfo");
  dev.processes = facts::Fact<std::vector<facts::GpuProcess>>::known(std::move(procs), "nvml");
  return machine(256 * k_gib, 0, {dev});
}

TEST(check_gpu_memory_held, a_nearly_full_gpu_names_the_processes_largest_first) {
  const auto findings = run_all(busy_gpu(
      4 * k_gib, {process(7, "jupyter", 5 * k_gib), process(4242, "python3", 70 * k_gib)}));
  const Finding* f = find_id(findings, test::ids::k_resources_gpu_memory_held);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_EQ(f->cause_class, CauseClass::gpu_out_of_memory);
  EXPECT_NE(f->message.find("only 4.0 GiB of its 79.6 GiB"), k_npos) << f->message;
  EXPECT_NE(f->message.find("2 processes hold 75.0 GiB: pid 4242 (python3) 70.0 GiB, pid 7 "
                            "(jupyter) 5.0 GiB"),
            k_npos)
      << f->message;
  EXPECT_EQ(f->evidence.size(), 3U);
}

TEST(check_gpu_memory_held, unknown_names_and_amounts_and_no_listed_process_are_said) {
  const auto unnamed = run_all(busy_gpu(k_gib, {process(9, nullptr, std::nullopt)}));
  auto f = find_id(unnamed, test::ids::k_resources_gpu_memory_held);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("pid 9 (name unknown) amount unknown"), k_npos) << f->message;
  const auto unlisted = run_all(busy_gpu(k_gib, {}));
  f = find_id(unlisted, test::ids::k_resources_gpu_memory_held);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("NVML lists no process"), k_npos) << f->message;
}

TEST(check_gpu_memory_held, a_gpu_with_a_tenth_free_or_unknown_memory_gives_nothing) {
  EXPECT_FALSE(has_id(run_all(busy_gpu(k_h100 / 10 + 1, {process(1, "x", 70 * k_gib)})),
                      test::ids::k_resources_gpu_memory_held));
  auto unknown = busy_gpu(k_gib, {});
  unknown.driver.nvml.devices.value()[0].memory_free =
      facts::Fact<std::uint64_t>::unknown("NVML did not answer");
  EXPECT_FALSE(has_id(run_all(unknown), test::ids::k_resources_gpu_memory_held));
}

} // namespace
} // namespace doctor
