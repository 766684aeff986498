// SPDX-License-Identifier: MIT
#include "support/facts_fixtures.hpp"

#include <doctor/report/inventory.hpp>
#include <doctor/report/report.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace doctor {
namespace {

report::Report make_report(const facts::Facts& f) {
  report::Report r;
  r.tool_version = "0.1.0";
  r.kb_version = "kb";
  r.target_kind = "snapshot";
  r.target = "s.json";
  r.inventory = report::make_inventory(f);
  r.findings = test::run_all(f);
  return r;
}

TEST(report, json_carries_inventory_summary_and_required_finding_fields) {
  auto f = test::machine_without_gpu();
  f.cudnn.push_back(
      test::cudnn_install("/usr/local/cuda-13.0/lib", 9, {{"libcudnn.so.9", "9.19.0"}}, "9.19.0"));
  const auto j = nlohmann::json::parse(report::render_json(make_report(f)));
  EXPECT_EQ(j["schema"], "cudnn-doctor-report/1");
  EXPECT_EQ(j["inventory"]["cudnn"][0]["version"], "9.19.0");
  EXPECT_TRUE(j["inventory"]["driver"]["kernel_module"].is_null());
  EXPECT_NE(j["inventory"]["driver"]["reason"].get<std::string>().find("not loaded"),
            std::string::npos);
  EXPECT_EQ(j["summary"]["status"], "fail");
  EXPECT_EQ(j["summary"]["exit_code"], 1);
  ASSERT_FALSE(j["findings"].empty());
  for (const auto& finding : j["findings"]) {
    for (const char* key :
         {"id", "severity", "cause_class", "subject", "message", "evidence", "fixes"}) {
      EXPECT_TRUE(finding.contains(key)) << key;
    }
  }
  EXPECT_EQ(j["findings"][0]["severity"], "error");
}

TEST(report, text_without_color_has_no_escape_codes_and_with_color_has_them) {
  const auto r = make_report(test::machine_without_gpu());
  const std::string plain = report::render_text(r, false);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(plain.find("Inventory"), std::string::npos);
  EXPECT_NE(plain.find("gpu.not_found"), std::string::npos);
  EXPECT_NE(plain.find("none on the PCI bus (6 devices examined)"), std::string::npos);
  EXPECT_NE(report::render_text(r, true).find("\x1b["), std::string::npos);
}

TEST(report, markdown_has_sections_and_code_blocks) {
  const std::string md = report::render_markdown(make_report(test::machine_without_gpu()));
  EXPECT_NE(md.find("### Inventory"), std::string::npos);
  EXPECT_NE(md.find("### Findings (fail)"), std::string::npos);
  EXPECT_NE(md.find("```sh"), std::string::npos);
}

TEST(report, exit_status_follows_fail_on) {
  auto r = make_report(test::machine_without_gpu()); // one error
  r.fail_on = Severity::error;
  EXPECT_EQ(report::exit_status(r), 1);
  r.fail_on = Severity::critical;
  EXPECT_EQ(report::exit_status(r), 0);
  r.findings.clear();
  r.fail_on = Severity::info;
  EXPECT_EQ(report::exit_status(r), 0);
  EXPECT_EQ(report::overall_status(r.findings), "pass");
}

TEST(report, output_is_deterministic) {
  const auto f = test::machine_without_gpu();
  EXPECT_EQ(report::render_json(make_report(f)), report::render_json(make_report(f)));
  EXPECT_EQ(report::render_text(make_report(f), false), report::render_text(make_report(f), false));
}

TEST(report, human_bytes) {
  EXPECT_EQ(report::human_bytes(512), "512 B");
  EXPECT_EQ(report::human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(report::human_bytes(25276510208ULL), "23.5 GiB");
}

} // namespace
} // namespace doctor
