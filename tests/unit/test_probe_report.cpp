// SPDX-License-Identifier: MIT
// The probe command's report (report/probe_report.cpp).
#include <doctor/report/probe_report.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace doctor {
namespace {

report::ProbeReport sample() {
  report::ProbeReport rep;
  rep.tool_version = "0.1.0";
  rep.kb_version = "kb";
  rep.nvml.status = "init_failed";
  rep.nvml.detail = "nvmlInit_v2 returned 9 (Driver Not Loaded)";
  facts::ProbeRun cudnn;
  cudnn.probe = "cudnn";
  cudnn.status = "answered";
  cudnn.library.path = "/usr/lib/libcudnn.so.9";
  cudnn.library.found_via = "ld.so.cache";
  cudnn.library.context = "a program";
  cudnn.version = facts::Fact<std::string>::known("9.19.0", "cudnn:cudnnGetVersion");
  cudnn.runtime_version = facts::Fact<std::string>::known("13.1", "probe:cudnnGetCudartVersion");
  facts::ProbeCall create;
  create.function = "cudnnCreate";
  create.result = 1001;
  create.name = "CUDNN_STATUS_NOT_INITIALIZED";
  cudnn.calls = {create};
  facts::ProbeRun crashed;
  crashed.probe = "cublas";
  crashed.status = "crashed";
  crashed.detail = "the cublas probe was killed by SIGSEGV";
  crashed.stderr_tail = "boom\x1b[2J";
  rep.probe.ran = true;
  rep.probe.runs = {cudnn, crashed};
  Finding f;
  f.id = "probe.child_failed";
  f.severity = Severity::error;
  f.title = "A vendor library crashed";
  rep.findings = {f};
  return rep;
}

TEST(probe_report, text_lists_each_probe_with_library_versions_and_calls) {
  const std::string text = report::render_probe_text(sample(), false);
  EXPECT_NE(text.find("nvml    init_failed: nvmlInit_v2 returned 9 (Driver Not Loaded)"),
            std::string::npos);
  EXPECT_NE(text.find("/usr/lib/libcudnn.so.9 via ld.so.cache (a program)"), std::string::npos);
  EXPECT_NE(text.find("version 9.19.0 (CUDA runtime 13.1)"), std::string::npos);
  EXPECT_NE(text.find("cudnnCreate → 1001 CUDNN_STATUS_NOT_INITIALIZED"), std::string::npos);
  EXPECT_NE(text.find("crashed: the cublas probe was killed by SIGSEGV"), std::string::npos);
  // What a vendor library wrote is escaped: it cannot clear the screen.
  EXPECT_EQ(text.find("\x1b[2J"), std::string::npos);
  EXPECT_NE(text.find("boom\\x1b[2J"), std::string::npos);
  EXPECT_NE(text.find("probe.child_failed"), std::string::npos);
}

TEST(probe_report, json_has_the_schema_the_runs_and_the_exit_code) {
  const report::ProbeReport rep = sample();
  const auto j = nlohmann::json::parse(report::render_probe_json(rep));
  EXPECT_EQ(j["schema"], "cudnn-doctor-probe/1");
  EXPECT_EQ(j["nvml"]["status"], "init_failed");
  ASSERT_EQ(j["probes"].size(), 2U);
  EXPECT_EQ(j["probes"][0]["version"]["value"], "9.19.0");
  EXPECT_EQ(j["probes"][1]["status"], "crashed");
  EXPECT_EQ(j["summary"]["exit_code"], 1);
  EXPECT_EQ(j["findings"][0]["id"], "probe.child_failed");
  EXPECT_EQ(report::probe_exit_status(rep), 1);
  report::ProbeReport quiet = rep;
  quiet.fail_on = Severity::critical;
  EXPECT_EQ(report::probe_exit_status(quiet), 0);
}

} // namespace
} // namespace doctor
