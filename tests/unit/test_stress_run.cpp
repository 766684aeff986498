// SPDX-License-Identifier: MIT
// The parent's reading of the stress child (collect/stress_run.cpp): each way the child can end,
// every value checked, garbage tolerated; the telemetry's summary and the theoretical peaks.
#include <doctor/collect/stress_run.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

facts::ProbeLibrary library() {
  facts::ProbeLibrary lib;
  lib.name = "libcuda.so.1";
  lib.path = "/x/libcuda.so.1";
  lib.found_via = "--lib";
  return lib;
}

facts::StressRun read(std::string out) {
  platform::ProcessResult r;
  r.exited = true;
  r.answered = true;
  r.out = std::move(out);
  return collect::stress_run_from_report(library(), r);
}

constexpr const char* k_started =
    R"("plan":{"level":"quick","gpu":0,"inject":"none"},"library":"/x/libcuda.so.1",)"
    R"("loaded":"/x/libcuda.so.1","version":13000,"calls":{"cuInit":{"result":0}},)"
    R"("device":{"index":0,"name":"NVIDIA H200","memory_total":150754820096},)";

TEST(stress_run, a_crash_and_a_hang_keep_their_evidence) {
  platform::ProcessResult r;
  r.signaled = true;
  r.signal = 11;
  r.err_tail = "segfault in cuLaunchKernel\n";
  auto run = collect::stress_run_from_report(library(), r);
  EXPECT_EQ(run.status, "crashed");
  EXPECT_NE(run.detail.find("SIGSEGV"), std::string::npos);
  EXPECT_NE(run.stderr_tail.find("cuLaunchKernel"), std::string::npos);
  r = {};
  r.timed_out = true;
  EXPECT_EQ(collect::stress_run_from_report(library(), r).status, "timed_out");
}

TEST(stress_run, garbage_is_no_answer_never_an_exception) {
  for (const char* out : {"", "not json", "[1,2]", "{\"calls\":", "\x01\xff\xfe", "null"}) {
    EXPECT_EQ(read(out).status, "no_answer") << out;
  }
  // Wrong types everywhere: no exception, nothing taken.
  const auto run = read(std::string("{") + k_started
                        + R"("memory":{"errors":"many","error_log":[1,{"address":-1}],)"
                          R"("patterns":[]},"gemm":{"n":1e300,"gflops":"fast"},)"
                          R"("bandwidth":{"device_to_device_bytes_per_s":-5}})");
  EXPECT_EQ(run.status, "completed");
  ASSERT_TRUE(run.memory);
  EXPECT_EQ(run.memory->errors, 0U);
  EXPECT_TRUE(run.memory->error_log.empty());
  ASSERT_TRUE(run.gemm);
  EXPECT_EQ(run.gemm->n, 0U);
  EXPECT_FALSE(run.gemm->gflops);
  ASSERT_TRUE(run.bandwidth);
  EXPECT_FALSE(run.bandwidth->device_to_device);
}

TEST(stress_run, the_stub_library_is_named_by_the_doctor) {
  const auto run = read(R"({"library":"/x/libcuda.so.1","calls":{"cuInit":{"result":34}}})");
  EXPECT_EQ(run.status, "not_run");
  EXPECT_NE(run.detail.find("CUDA_ERROR_STUB_LIBRARY"), std::string::npos);
  EXPECT_NE(run.detail.find("link-time stub"), std::string::npos);
  ASSERT_EQ(run.calls.size(), 1U);
  EXPECT_EQ(run.calls[0].name_source, "doctor");
}

TEST(stress_run, a_library_that_cannot_be_loaded_or_a_missing_gpu_is_not_run) {
  EXPECT_EQ(read(R"({"library_error":"cannot open shared object file"})").status, "not_run");
  const auto run = read(std::string("{") + k_started + R"("error":"there is no GPU 3"})");
  EXPECT_EQ(run.status, "not_run");
  EXPECT_EQ(run.detail, "there is no GPU 3");
}

TEST(stress_run, memory_errors_are_read_with_address_and_values_and_bounded) {
  std::string log;
  for (int i = 0; i < 40; ++i) {
    log += std::string(i ? "," : "")
           + R"({"address":137438953472,"pattern":"random","expected":1,"actual":33})";
  }
  const auto run = read(std::string("{") + k_started
                        + R"("memory":{"free_before":100,"bytes_covered":95,"errors":40,)"
                          R"("patterns":{"random":40},"error_log":[)"
                        + log + R"(]},"phases_done":["memory"]})");
  ASSERT_TRUE(run.memory);
  EXPECT_EQ(run.memory->errors, 40U);
  ASSERT_EQ(run.memory->error_log.size(), 16U);
  EXPECT_EQ(run.memory->error_log[0].address, 137438953472U);
  EXPECT_EQ(run.memory->error_log[0].actual, 33U);
  EXPECT_EQ(run.device_name, "NVIDIA H200");
  // A value beyond 32 bits is not a word the test wrote: the entry is dropped.
  const auto bad =
      read(std::string("{") + k_started
           + R"("memory":{"error_log":[{"address":1,"expected":4294967296,"actual":0}]}})");
  EXPECT_TRUE(bad.memory->error_log.empty());
}

TEST(stress_run, a_call_that_fails_during_a_phase_is_a_failed_run) {
  const auto run = read(std::string("{") + k_started
                        + R"("failed_phase":"gemm","failed_call":{"function":"cuLaunchKernel",)"
                          R"("result":700,"name":"CUDA_ERROR_ILLEGAL_ADDRESS"}})");
  EXPECT_EQ(run.status, "failed");
  EXPECT_NE(run.detail.find("gemm phase cuLaunchKernel returned 700"), std::string::npos);
  const auto setup =
      read(std::string("{") + k_started
           + R"("failed_phase":"setup","failed_call":{"function":"cuModuleLoadData",)"
             R"("result":218}})");
  EXPECT_EQ(setup.status, "not_run");
}

TEST(stress_run, the_cublas_comparison_is_read_and_bounded) {
  const auto run = read(std::string("{") + k_started
                        + R"("gemm":{"n":256,"cublas":{"status":"compared","library":"/x/cublas",)"
                          R"("mismatches":2,"first_mismatch":{"row":0,"column":7,"got":1.5,)"
                          R"("want":1.25}}}})");
  ASSERT_TRUE(run.gemm);
  EXPECT_EQ(run.gemm->cublas_status, "compared");
  EXPECT_EQ(run.gemm->cublas_mismatches, 2U);
  EXPECT_NE(run.gemm->cublas_detail.find("column 7: got 1.5, cuBLAS 1.25"), std::string::npos);
  const auto odd = read(std::string("{") + k_started + R"("gemm":{"cublas":{"status":"hmm"}}})");
  EXPECT_EQ(odd.gemm->cublas_status, "failed");
}

TEST(stress_run, pcie_peaks_follow_the_generations_line_coding) {
  EXPECT_NEAR(*collect::pcie_peak_bytes_per_s(5, 16), 63.0e9, 0.1e9);
  EXPECT_NEAR(*collect::pcie_peak_bytes_per_s(3, 16), 15.75e9, 0.1e9);
  EXPECT_NEAR(*collect::pcie_peak_bytes_per_s(1, 1), 0.25e9, 0.01e9);
  EXPECT_FALSE(collect::pcie_peak_bytes_per_s(7, 16));
  EXPECT_FALSE(collect::pcie_peak_bytes_per_s(4, 0));
}

facts::NvmlInfo sample(std::uint64_t temp, std::uint64_t reasons) {
  facts::NvmlInfo n;
  n.status = "ok";
  facts::NvmlDevice d;
  d.index = 0;
  d.telemetry =
      facts::Fact<std::map<std::string, std::uint64_t>>::known({{"temperature_c", temp},
                                                                {"clock_event_reasons", reasons},
                                                                {"clock_memory_max_mhz", 3201},
                                                                {"memory_bus_width_bits", 6144},
                                                                {"pcie_generation_max", 5},
                                                                {"pcie_width_max", 16}},
                                                               "test");
  n.devices = facts::Fact<std::vector<facts::NvmlDevice>>::known({d}, "test");
  return n;
}

TEST(stress_run, telemetry_keeps_ranges_reasons_and_the_peaks) {
  facts::StressRun run;
  facts::NvmlInfo failed;
  failed.status = "probe_failed";
  failed.detail = "the NVML child crashed";
  collect::add_stress_telemetry(run, {sample(40, 0x1), failed, sample(85, 0x20)}, 0);
  EXPECT_EQ(run.telemetry_samples, 2U);
  ASSERT_FALSE(run.telemetry.empty());
  EXPECT_EQ(run.telemetry[0].key, "temperature_c");
  EXPECT_EQ(run.telemetry[0].min, 40U);
  EXPECT_EQ(run.telemetry[0].max, 85U);
  EXPECT_EQ(run.clock_event_reasons, 0x21U);
  ASSERT_TRUE(run.device_peak);
  EXPECT_NEAR(*run.device_peak, 4.917e12, 0.001e12); // H200: 3201 MHz x 6144 bits x 2 / 8
  ASSERT_TRUE(run.pcie_peak);
}

TEST(stress_run, without_nvml_the_figures_are_absolute_and_say_why) {
  facts::StressRun run;
  facts::NvmlInfo none;
  none.status = "init_failed";
  none.detail = "nvmlInit_v2 returned 9 (Driver Not Loaded)";
  collect::add_stress_telemetry(run, {none}, 0);
  EXPECT_EQ(run.telemetry_samples, 0U);
  EXPECT_FALSE(run.device_peak);
  EXPECT_NE(run.peak_note.find("Driver Not Loaded"), std::string::npos);
  // A GPU NVML does not list gives no sample either.
  facts::StressRun other;
  collect::add_stress_telemetry(other, {sample(40, 0)}, 2);
  EXPECT_EQ(other.telemetry_samples, 0U);
  EXPECT_NE(other.telemetry_note.find("NVML lists no GPU 2"), std::string::npos);
}

} // namespace
} // namespace doctor
