// SPDX-License-Identifier: MIT
// The parent's reading of the driver API, cuDNN and cuBLAS children (collect/probe_runs.cpp):
// each way a child can end, and every value it reports checked before it becomes a fact.
#include <doctor/collect/probe_runs.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

facts::ProbeLibrary library(const char* path) {
  facts::ProbeLibrary lib;
  lib.name = "libcudnn.so.9";
  lib.path = path;
  lib.found_via = "ld.so.cache";
  return lib;
}

platform::ProcessResult answered(std::string out) {
  platform::ProcessResult r;
  r.exited = true;
  r.answered = true;
  r.out = std::move(out);
  return r;
}

facts::ProbeRun read(std::string_view probe, std::string out) {
  return collect::probe_run_from_report(
      probe, library("/x/libcudnn.so.9"), answered(std::move(out)));
}

TEST(probe_runs, a_crash_keeps_the_signal_and_the_tail_of_standard_error) {
  platform::ProcessResult r;
  r.signaled = true;
  r.signal = 11;
  r.err_tail = "fake cudnn: about to dereference NULL\n";
  const auto run = collect::probe_run_from_report("cudnn", library("/x/libcudnn.so.9"), r);
  EXPECT_EQ(run.status, "crashed");
  EXPECT_EQ(run.signal, 11);
  EXPECT_NE(run.detail.find("SIGSEGV"), std::string::npos);
  EXPECT_NE(run.detail.find("/x/libcudnn.so.9"), std::string::npos);
  EXPECT_NE(run.stderr_tail.find("about to dereference NULL"), std::string::npos);
  EXPECT_FALSE(run.version);
  EXPECT_EQ(run.version.reason(), run.detail);
}

TEST(probe_runs, a_hang_an_exit_without_report_and_garbage_each_have_their_status) {
  platform::ProcessResult hung;
  hung.timed_out = true;
  EXPECT_EQ(collect::probe_run_from_report("cudnn", library("/l"), hung).status, "timed_out");
  platform::ProcessResult quit;
  quit.exited = true;
  quit.exit_code = 2;
  const auto run = collect::probe_run_from_report("cudnn", library("/l"), quit);
  EXPECT_EQ(run.status, "exited");
  EXPECT_EQ(run.exit_code, 2);
  for (const char* out : {"", "not json", "[1]"}) {
    EXPECT_EQ(read("cudnn", out).status, "no_answer") << out;
  }
}

TEST(probe_runs, a_library_that_does_not_load_keeps_the_loader_message) {
  const auto run = read("cudnn", R"({"library": "/x/libcudnn.so.9",
      "library_error": "libcublasLt.so.13: cannot open shared object file"})");
  EXPECT_EQ(run.status, "library_not_loaded");
  EXPECT_NE(run.detail.find("libcublasLt.so.13: cannot open shared object file"),
            std::string::npos);
}

TEST(probe_runs, cudnn_versions_are_decoded_by_their_era) {
  auto run = read("cudnn", R"({"version": 91900, "runtime_version": 13010,
      "calls": {"cudnnCreate": {"result": 1001, "name": "CUDNN_STATUS_NOT_INITIALIZED"}}})");
  EXPECT_EQ(run.status, "answered");
  EXPECT_EQ(run.version.value_or(""), "9.19.0");
  EXPECT_EQ(run.version.source(), "cudnn:cudnnGetVersion");
  EXPECT_EQ(run.runtime_version.value_or(""), "13.1");
  ASSERT_EQ(run.calls.size(), 1U);
  EXPECT_EQ(run.calls[0].function, "cudnnCreate");
  EXPECT_EQ(run.calls[0].result, 1001);
  EXPECT_EQ(run.calls[0].name, "CUDNN_STATUS_NOT_INITIALIZED");
  EXPECT_EQ(read("cudnn", R"({"version": 8902})").version.value_or(""), "8.9.2");
  const auto absurd = read("cudnn", R"({"version": 4294967295})");
  EXPECT_FALSE(absurd.version);
  EXPECT_NE(absurd.version.reason().find("out of range"), std::string::npos);
}

TEST(probe_runs, the_stubs_unnamed_result_is_named_from_cuda_h) {
  const auto run = read("cuda", R"({"calls": {"cuDriverGetVersion": {"result": 34},
      "cuInit": {"result": 34}}})");
  ASSERT_EQ(run.calls.size(), 2U);
  EXPECT_EQ(run.calls[1].function, "cuInit");
  EXPECT_EQ(run.calls[1].name, "CUDA_ERROR_STUB_LIBRARY");
  EXPECT_EQ(run.calls[1].name_source, "doctor");
  EXPECT_FALSE(run.version);
  EXPECT_FALSE(run.devices);
  EXPECT_EQ(collect::cuda_result_name(100), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(collect::cuda_result_name(12345), "");
}

TEST(probe_runs, devices_come_with_their_contexts_and_bounds) {
  const auto run = read("cuda", R"({"version": 13000, "calls": {"cuInit": {"result": 0}},
      "device_count": 2, "devices": [
        {"index": 0, "name": "NVIDIA H200", "memory_total": 150754820096,
         "context": {"result": 0, "name": "CUDA_SUCCESS"}},
        {"index": 1, "name": "NVIDIA H200", "memory_total": 18446744073709551615,
         "context": {"result": 2}}]})");
  EXPECT_EQ(run.version.value_or(""), "13.0");
  ASSERT_TRUE(run.devices);
  ASSERT_EQ(run.devices->size(), 2U);
  EXPECT_EQ((*run.devices)[0].name.value_or(""), "NVIDIA H200");
  EXPECT_EQ((*run.devices)[0].memory_total.value_or(0), 150754820096U);
  EXPECT_FALSE((*run.devices)[1].memory_total);
  ASSERT_TRUE((*run.devices)[1].context);
  EXPECT_EQ((*run.devices)[1].context->name, "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_FALSE(read("cuda", R"({"device_count": 100000})").devices);
}

TEST(probe_runs, computations_keep_their_status_and_errors) {
  const auto run = read("cublas", R"({"version_parts": [13, 1, 0], "computations": [
      {"name": "sgemm", "status": "mismatch", "elements": 128, "mismatches": 1,
       "max_abs_error": 0.5, "first_mismatch": {"index": 5, "got": 1.5, "want": 1.0}},
      {"name": "other", "status": "exploded"}]})");
  EXPECT_EQ(run.version.value_or(""), "13.1.0");
  ASSERT_EQ(run.computations.size(), 2U);
  EXPECT_EQ(run.computations[0].status, "mismatch");
  EXPECT_EQ(run.computations[0].mismatches, 1U);
  EXPECT_EQ(run.computations[0].max_abs_error, "0.5");
  EXPECT_NE(run.computations[0].detail.find("\"index\":5"), std::string::npos);
  EXPECT_EQ(run.computations[1].status, "failed");
  EXPECT_FALSE(read("cublas", R"({"version_parts": [13, -1, 0]})").version);
}

} // namespace
} // namespace doctor
