// SPDX-License-Identifier: MIT
// The output of `kb`: the summary of a knowledge base loaded from memory, and its text and JSON.
#include <doctor/kb/signatures.hpp>
#include <doctor/report/kb_report.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace doctor {
namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

const char* k_manifest = R"({"spec": "cudnn-doctor-kb/1", "kind": "manifest", "version": "t7"})";

// Three findings citing two sources, and a library set citing one of them again.
const char* k_findings = R"({"spec": "cudnn-doctor-kb/1", "kind": "findings", "findings": [
  {"id": "a.one", "title": "T", "severity": "error", "cause_class": "other",
   "family": "internal", "message": "m", "fixes": [{"text": "f"}], "source": "https://example.org/a"},
  {"id": "a.two", "title": "T", "severity": "error", "cause_class": "other",
   "family": "internal", "message": "m", "fixes": [{"text": "f"}], "source": "https://example.org/b"},
  {"id": "a.three", "title": "T", "severity": "info", "cause_class": "other",
   "family": "internal", "message": "m", "fixes": [{"text": "f"}], "source": "https://example.org/a"}]})";
const char* k_sets = R"({"spec": "cudnn-doctor-kb/1", "kind": "library_sets", "cudnn": [
  {"major": 9, "os": "linux", "variant": "full", "members": ["libcudnn.so.9"],
   "source": "https://example.org/b"}]})";

TEST(kb_report, summary_counts_rows_and_distinct_sources) {
  auto kb = kb::KnowledgeBase::load(
      Files{{"kb.json", k_manifest}, {"findings.json", k_findings}, {"sets.json", k_sets}});
  ASSERT_TRUE(kb) << kb.error().message;
  const report::KbSummary s = report::summarize_kb(*kb, "");
  EXPECT_EQ(s.version, "t7");
  EXPECT_EQ(s.rows, 4U);
  EXPECT_EQ(s.distinct_sources, 2U);
  EXPECT_EQ(s.checked, "");
  ASSERT_EQ(s.files.size(), kb->files().size());
  for (std::size_t i = 0; i < s.files.size(); ++i) {
    EXPECT_EQ(s.files[i].name, kb->files()[i].name);
    EXPECT_EQ(s.files[i].rows, kb->files()[i].rows);
  }
  EXPECT_EQ(report::summarize_kb(*kb, "/tmp/kb").checked, "/tmp/kb");
}

TEST(kb_report, embedded_summary_cites_fewer_sources_than_rows) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb) << kb.error().message;
  const report::KbSummary s = report::summarize_kb(*kb, "");
  EXPECT_EQ(s.version, kb->version());
  EXPECT_GE(s.rows, kb->findings().size() + kb->signatures().size());
  EXPECT_GT(s.distinct_sources, 0U);
  EXPECT_LT(s.distinct_sources, s.rows);
}

report::KbSummary checked_summary() {
  report::KbSummary s;
  s.version = "2026.11.29";
  s.files = {{"findings.json", "embedded", 120}, {"gpus.json", "/tmp/kb/gpus.json", 40}};
  s.rows = 160;
  s.distinct_sources = 37;
  s.checked = "/tmp/kb";
  return s;
}

TEST(kb_report, text_aligns_the_file_table_to_its_longest_name_and_origin) {
  EXPECT_EQ(report::render_kb_text(checked_summary()),
            "valid: /tmp/kb\n"
            "knowledge base 2026.11.29\n"
            "\n"
            "file           origin               rows\n"
            "findings.json  embedded              120\n"
            "gpus.json      /tmp/kb/gpus.json      40\n"
            "\n"
            "160 rows, 37 distinct sources\n");
}

TEST(kb_report, text_columns_are_never_narrower_than_their_headings) {
  report::KbSummary s;
  s.version = "t1";
  s.files = {{"a", "x", 1234567}};
  s.rows = 1;
  s.distinct_sources = 1;
  EXPECT_EQ(report::render_kb_text(s),
            "knowledge base t1\n"
            "\n"
            "file  origin    rows\n"
            "a     x       1234567\n"
            "\n"
            "1 rows, 1 distinct sources\n");
}

TEST(kb_report, json_says_valid_only_for_a_checked_directory) {
  EXPECT_EQ(report::render_kb_json(checked_summary()),
            R"({
  "version": "2026.11.29",
  "checked": "/tmp/kb",
  "valid": true,
  "files": [
    {
      "name": "findings.json",
      "origin": "embedded",
      "rows": 120
    },
    {
      "name": "gpus.json",
      "origin": "/tmp/kb/gpus.json",
      "rows": 40
    }
  ],
  "rows": 160,
  "distinct_sources": 37
}
)");
  report::KbSummary built_in = checked_summary();
  built_in.checked.clear();
  built_in.files.clear();
  const auto doc = nlohmann::json::parse(report::render_kb_json(built_in));
  EXPECT_FALSE(doc.contains("checked"));
  EXPECT_FALSE(doc.contains("valid"));
  EXPECT_TRUE(doc["files"].is_array());
  EXPECT_TRUE(doc["files"].empty());
}

} // namespace
} // namespace doctor
