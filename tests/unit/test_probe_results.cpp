// SPDX-License-Identifier: MIT
// The checks over the isolated probes' facts (checks/probe_results.cpp).
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::find_id;
using test::has_id;
using test::run_all;
namespace ids = test::ids;

facts::ProbeCall call(const char* function, std::int64_t result, const char* name = "") {
  facts::ProbeCall c;
  c.function = function;
  c.result = result;
  c.name = name;
  return c;
}

facts::ProbeRun answered(const char* probe, const char* path) {
  facts::ProbeRun r;
  r.probe = probe;
  r.status = "answered";
  r.library.name = path;
  r.library.path = path;
  r.library.found_via = "LD_LIBRARY_PATH";
  r.library.context = "a program without RPATH or RUNPATH";
  return r;
}

facts::Facts with_runs(std::vector<facts::ProbeRun> runs) {
  facts::Facts f = test::machine_without_gpu();
  f.probe.ran = true;
  f.probe.runs = std::move(runs);
  return f;
}

TEST(check_probe_cuda, the_stub_is_an_error_naming_where_it_came_from) {
  auto cuda = answered("cuda", "/opt/stubs/libcuda.so.1");
  cuda.library.real_path = "/usr/local/cuda/lib64/stubs/libcuda.so";
  cuda.calls = {call("cuInit", 34, "CUDA_ERROR_STUB_LIBRARY")};
  const auto findings = run_all(with_runs({cuda}));
  const Finding* f = find_id(findings, ids::k_probe_cuda_stub_library);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->message.find("/opt/stubs/libcuda.so.1"), std::string::npos);
  EXPECT_NE(f->message.find("LD_LIBRARY_PATH; the file is /usr/local/cuda/lib64/stubs/libcuda.so"),
            std::string::npos);
  EXPECT_FALSE(has_id(findings, ids::k_probe_cuda_init_failed));
}

TEST(check_probe_cuda, each_init_result_names_its_cause) {
  const std::pair<std::int64_t, std::string_view> cases[] = {{100, ids::k_probe_cuda_no_device},
                                                             {35, ids::k_probe_cuda_driver_too_old},
                                                             {999, ids::k_probe_cuda_init_failed}};
  for (const auto& [result, id] : cases) {
    auto cuda = answered("cuda", "/usr/lib/libcuda.so.1");
    cuda.calls = {call("cuInit", result)};
    EXPECT_TRUE(has_id(run_all(with_runs({cuda})), id)) << result;
  }
  auto ok = answered("cuda", "/usr/lib/libcuda.so.1");
  ok.calls = {call("cuInit", 0)};
  facts::ProbeDevice dev;
  dev.context = facts::Fact<facts::ProbeCall>::known(
      call("cuCtxCreate_v2", 2, "CUDA_ERROR_OUT_OF_MEMORY"), "cuda:cuCtxCreate_v2");
  ok.devices = facts::Fact<std::vector<facts::ProbeDevice>>::known({dev}, "cuda");
  const auto findings = run_all(with_runs({ok}));
  const Finding* f = find_id(findings, ids::k_probe_cuda_context_failed);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos);
}

TEST(check_probe_cudnn, a_handle_failure_is_an_error_only_when_the_driver_works) {
  auto cudnn = answered("cudnn", "/usr/lib/libcudnn.so.9");
  cudnn.version = facts::Fact<std::string>::known("9.19.0", "cudnn:cudnnGetVersion");
  cudnn.calls = {call("cudnnCreate", 1001, "CUDNN_STATUS_NOT_INITIALIZED")};
  auto cuda = answered("cuda", "/usr/lib/libcuda.so.1");
  cuda.calls = {call("cuInit", 100)};
  const Finding* f = nullptr;
  auto findings = run_all(with_runs({cuda, cudnn}));
  f = find_id(findings, ids::k_probe_cudnn_handle_failed);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->message.find("cuDNN 9.19.0"), std::string::npos);
  EXPECT_NE(f->message.find("failed first"), std::string::npos);
  cuda.calls = {call("cuInit", 0)};
  findings = run_all(with_runs({cuda, cudnn}));
  f = find_id(findings, ids::k_probe_cudnn_handle_failed);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  cudnn.calls = {call("cudnnCreate", 0)};
  EXPECT_FALSE(has_id(run_all(with_runs({cuda, cudnn})), ids::k_probe_cudnn_handle_failed));
}

TEST(check_probe_cublas, a_handle_failure_names_the_status) {
  auto cublas = answered("cublas", "/usr/lib/libcublas.so.13");
  cublas.calls = {call("cublasCreate_v2", 1, "CUBLAS_STATUS_NOT_INITIALIZED")};
  const auto findings = run_all(with_runs({cublas}));
  const Finding* f = find_id(findings, ids::k_probe_cublas_handle_failed);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("CUBLAS_STATUS_NOT_INITIALIZED"), std::string::npos);
  EXPECT_NE(f->message.find("driver API was not probed"), std::string::npos);
}

TEST(check_probe_children, a_windows_exception_is_named_by_its_code) {
  facts::ProbeRun crashed = answered("cuda", "C:\\Windows\\System32\\nvcuda.dll");
  crashed.status = "crashed";
  crashed.signal = static_cast<std::int32_t>(0xC0000005U); // as GetExitCodeProcess reads it
  crashed.detail = "the cuda probe was killed by exception 0xC0000005 (access violation)";
  const auto findings = run_all(with_runs({crashed}));
  const Finding* f = find_id(findings, ids::k_probe_child_failed);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(test::has_evidence(*f, "crashed: exception 0xC0000005 (access violation)"));
}

TEST(check_probe_children, a_crash_a_bad_load_and_a_probe_not_run_each_say_so) {
  facts::ProbeRun crashed = answered("cudnn", "/x/libcudnn.so.9");
  crashed.status = "crashed";
  crashed.signal = 11;
  crashed.detail = "the cudnn probe was killed by SIGSEGV inside /x/libcudnn.so.9";
  crashed.stderr_tail = "about to dereference NULL";
  facts::ProbeRun unloadable = answered("cublas", "/x/libcublas.so.13");
  unloadable.status = "library_not_loaded";
  unloadable.detail = "libcublasLt.so.13: cannot open shared object file";
  facts::ProbeRun missing;
  missing.probe = "cuda";
  missing.status = "library_not_found";
  missing.detail = "the loader finds no libcuda.so.1";
  missing.library.searched = {"/usr/lib/libcuda.so.1 (default): absent"};
  const auto findings = run_all(with_runs({crashed, unloadable, missing}));
  const Finding* f = find_id(findings, ids::k_probe_child_failed);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("SIGSEGV"), std::string::npos);
  EXPECT_TRUE(test::has_evidence(*f, "about to dereference NULL"));
  EXPECT_TRUE(test::has_evidence(*f, "crashed: SIGSEGV"));
  f = find_id(findings, ids::k_probe_library_not_loaded);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("cannot open shared object file"), std::string::npos);
  f = find_id(findings, ids::k_probe_not_run);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::info);
  EXPECT_TRUE(test::has_evidence(*f, "/usr/lib/libcuda.so.1 (default): absent"));
}

TEST(check_probe_children, a_snapshot_without_probes_says_nothing) {
  const auto findings = run_all(test::machine_without_gpu());
  for (const Finding& f : findings) {
    EXPECT_FALSE(f.id.starts_with("probe.")) << f.id;
  }
}

} // namespace
} // namespace doctor
