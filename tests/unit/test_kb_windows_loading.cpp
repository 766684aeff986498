// SPDX-License-Identifier: MIT
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>

namespace doctor {
namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

const char* k_manifest = R"({"spec": "cudnn-doctor-kb/1", "kind": "manifest", "version": "t1"})";
const char* k_sets = R"({"spec": "cudnn-doctor-kb/1", "kind": "library_sets", "cudnn": [
  {"major": 9, "os": "linux", "variant": "full", "members": ["libcudnn.so.9"], "source": "s"}]})";
const char* k_findings = R"({"spec": "cudnn-doctor-kb/1", "kind": "findings", "findings": [
  {"id": "x.y", "title": "T", "severity": "error", "cause_class": "other", "family": "internal",
   "message": "m",
   "fixes": [{"text": "f"}], "source": "src"}]})";

std::string windows_with(const std::string& row) {
  return R"({"spec": "cudnn-doctor-kb/1", "kind": "windows_loading", "rules": [)" + row + "]}";
}

Expected<kb::KnowledgeBase> load_with(const std::string& windows_file) {
  return kb::KnowledgeBase::load(Files{{"kb.json", k_manifest},
                                       {"findings.json", k_findings},
                                       {"library_sets.json", k_sets},
                                       {"windows_loading.json", windows_file}});
}

const char* k_good_rule = R"({"id": "cudnn.8.zlibwapi", "subject": "cudnn", "versions": "8.3-8.9",
  "action": "loads", "caller": "cudnn_ops_infer64_8.dll", "flags": 0,
  "dlls": ["zlibwapi.dll", "cublas64_{cuda_major}.dll"], "source": "src"})";

TEST(kb_windows_loading, embedded_file_loads_and_every_rule_names_its_source) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb) << kb.error().message;
  ASSERT_FALSE(kb->windows_loading().empty());
  std::set<std::string> subjects;
  for (const kb::WindowsLoadingRule& r : kb->windows_loading()) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    subjects.insert(r.subject);
  }
  for (const char* s :
       {"windows", "python", "torch", "tensorflow", "paddle", "onnxruntime", "cudnn"}) {
    EXPECT_EQ(subjects.count(s), 1U) << "no rule for " << s;
  }
  bool listed = false;
  for (const kb::KbFileInfo& f : kb->files()) {
    listed = listed || (f.name == "windows_loading.json" && f.rows == kb->windows_loading().size());
  }
  EXPECT_TRUE(listed);
}

TEST(kb_windows_loading, embedded_rules_answer_the_loader_model_questions) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb);
  const auto zlib = kb->windows_rules("cudnn", "loads", Version::parse("8.9.4.19"));
  bool has_zlib = false;
  for (const auto* r : zlib) {
    for (const std::string& d : r->dlls) {
      has_zlib = has_zlib || d == "zlibwapi.dll";
    }
  }
  EXPECT_TRUE(has_zlib);
  for (const auto* r : kb->windows_rules("cudnn", "loads", Version::parse("8.2.4"))) {
    for (const std::string& d : r->dlls) {
      EXPECT_NE(d, "zlibwapi.dll") << "cuDNN 8.2 does not use zlibwapi";
    }
  }
  for (const auto* r : kb->windows_rules("cudnn", "loads", Version::parse("9.2.0"))) {
    for (const std::string& d : r->dlls) {
      EXPECT_NE(d, "zlibwapi.dll") << "cuDNN 9.2 links zlib statically";
    }
  }
  const auto tf = kb->windows_rules("tensorflow", "loads", Version::parse("2.10.1"));
  ASSERT_EQ(tf.size(), 1U);
  EXPECT_EQ(tf[0]->flags, 8U);
  EXPECT_TRUE(kb->windows_rules("tensorflow", "loads", Version::parse("2.11.0")).empty());
}

TEST(kb_windows_loading, knowledge_base_loads_without_the_optional_file) {
  auto kb = kb::KnowledgeBase::load(
      Files{{"kb.json", k_manifest}, {"findings.json", k_findings}, {"library_sets.json", k_sets}});
  ASSERT_TRUE(kb) << kb.error().message;
  EXPECT_TRUE(kb->windows_loading().empty());
  EXPECT_TRUE(kb->windows_rules("cudnn", "loads", std::nullopt).empty());
}

TEST(kb_windows_loading, a_valid_rule_is_read_field_by_field) {
  auto kb = load_with(windows_with(k_good_rule));
  ASSERT_TRUE(kb) << kb.error().message;
  ASSERT_EQ(kb->windows_loading().size(), 1U);
  const kb::WindowsLoadingRule& r = kb->windows_loading()[0];
  EXPECT_EQ(r.caller, "cudnn_ops_infer64_8.dll");
  EXPECT_EQ(r.dlls.size(), 2U);
  EXPECT_EQ(kb->windows_rules("cudnn", "loads", std::nullopt).size(), 1U);
  EXPECT_TRUE(kb->windows_rules("cudnn", "imports", std::nullopt).empty());
}

TEST(kb_windows_loading, version_ranges_cover_their_whole_last_component) {
  kb::WindowsLoadingRule r;
  const auto v = [](const char* s) { return *Version::parse(s); };
  r.versions = "8.3-8.9";
  EXPECT_TRUE(r.applies_to(v("8.3.0")));
  EXPECT_TRUE(r.applies_to(v("8.9.7.29")));
  EXPECT_FALSE(r.applies_to(v("8.2.4")));
  EXPECT_FALSE(r.applies_to(v("9.0.0")));
  r.versions = "8";
  EXPECT_TRUE(r.applies_to(v("8.1.0")));
  EXPECT_FALSE(r.applies_to(v("9.1")));
  r.versions = ">=3.8";
  EXPECT_TRUE(r.applies_to(v("3.12")));
  EXPECT_FALSE(r.applies_to(v("3.7.9")));
  r.versions = "<=2.10";
  EXPECT_TRUE(r.applies_to(v("2.10.1")));
  EXPECT_FALSE(r.applies_to(v("2.11.0")));
  r.versions = "";
  EXPECT_TRUE(r.applies_to(v("1")));
  EXPECT_TRUE(kb::valid_version_range("2.5-2.10"));
  EXPECT_FALSE(kb::valid_version_range("2.10-2.5"));
  EXPECT_FALSE(kb::valid_version_range("~2.5"));
  EXPECT_FALSE(kb::valid_version_range("2.x"));
}

struct BadRule {
  std::string name;
  std::string row;
  std::string expect; // part of the error message
};

// Names the case in test listings (ctest shows GetParam() through this, not as raw bytes).
void PrintTo(const BadRule& rule, std::ostream* os) {
  *os << rule.name;
}

class kb_windows_loading_rejects : public ::testing::TestWithParam<BadRule> {};

TEST_P(kb_windows_loading_rejects, invalid_rule) {
  auto kb = load_with(windows_with(GetParam().row));
  ASSERT_FALSE(kb) << GetParam().name;
  EXPECT_NE(kb.error().message.find(GetParam().expect), std::string::npos) << kb.error().message;
  EXPECT_NE(kb.error().message.find("windows_loading.json"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    cases,
    kb_windows_loading_rejects,
    ::testing::Values(
        BadRule{"no_source",
                R"({"id": "a", "subject": "torch", "action": "documents"})",
                "missing field \"source\""},
        BadRule{"empty_source",
                R"({"id": "a", "subject": "torch", "action": "documents", "source": ""})",
                "is empty"},
        BadRule{"unknown_subject",
                R"({"id": "a", "subject": "jax", "action": "documents", "source": "s"})",
                "unknown subject"},
        BadRule{"bad_action",
                R"({"id": "a", "subject": "torch", "action": "uses", "source": "s"})",
                "action must be"},
        BadRule{"bad_versions",
                R"({"id": "a", "subject": "torch", "versions": "2.x", "action": "documents",
                    "source": "s"})",
                "\"versions\""},
        BadRule{
            "loads_without_dlls",
            R"({"id": "a", "subject": "cudnn", "action": "loads", "caller": "c", "source": "s"})",
            "needs \"caller\" and \"dlls\""},
        BadRule{"unknown_placeholder",
                R"({"id": "a", "subject": "cudnn", "action": "loads", "caller": "c",
                    "dlls": ["cublas64_{cublas}.dll"], "source": "s"})",
                "placeholder {cublas}"},
        BadRule{"negative_flags",
                R"({"id": "a", "subject": "cudnn", "action": "documents", "flags": -1,
                    "source": "s"})",
                "wrong type"},
        BadRule{"duplicate_id",
                R"({"id": "a", "subject": "torch", "action": "documents", "source": "s"},
                   {"id": "a", "subject": "torch", "action": "documents", "source": "s"})",
                "duplicate id"}),
    [](const ::testing::TestParamInfo<BadRule>& p) { return p.param.name; });

} // namespace
} // namespace doctor
