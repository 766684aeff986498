// SPDX-License-Identifier: MIT
#include <doctor/kb/render.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

kb::KnowledgeBase test_kb() {
  const std::string manifest =
      R"({"spec": "cudnn-doctor-kb/1", "kind": "manifest", "version": "t"})";
  const std::string sets = R"({"spec": "cudnn-doctor-kb/1", "kind": "library_sets", "cudnn": []})";
  const std::string findings = R"({"spec": "cudnn-doctor-kb/1", "kind": "findings", "findings": [
    {"id": "t.one", "title": "One", "severity": "warning", "cause_class": "file.corrupt",
     "family": "damaged_files", "params": ["dir", "spec"], "message": "bad {dir} {{not a param}}",
     "fixes": [{"text": "always"},
               {"text": "pip fix", "command": "pip install {spec}", "when": "pip"},
               {"text": "conda fix", "when": "conda"}],
     "source": "test"}]})";
  return *kb::KnowledgeBase::load(
      {{"kb.json", manifest}, {"findings.json", findings}, {"sets.json", sets}});
}

TEST(render, fills_templates_and_picks_fixes_by_tag) {
  const auto kb = test_kb();
  FindingDraft d;
  d.id = "t.one";
  d.subject = "S";
  d.params = {{"dir", "/x"}, {"spec", "nvidia-cudnn-cu12==9.1.0.70"}};
  d.tags = {"pip"};
  auto f = kb::render(kb, d);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->message, "bad /x {not a param}");
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_EQ(f->cause_class, CauseClass::file_corrupt);
  ASSERT_EQ(f->fixes.size(), 2U);
  EXPECT_EQ(f->fixes[0].text, "always");
  EXPECT_EQ(f->fixes[1].command, "pip install nvidia-cudnn-cu12==9.1.0.70");
}

TEST(render, severity_can_be_raised_but_not_lowered) {
  const auto kb = test_kb();
  FindingDraft d;
  d.id = "t.one";
  d.params = {{"dir", "/x"}, {"spec", "s"}};
  d.severity = Severity::critical;
  EXPECT_EQ(kb::render(kb, d)->severity, Severity::critical);
  d.severity = Severity::info;
  EXPECT_EQ(kb::render(kb, d)->severity, Severity::warning);
}

TEST(render, missing_parameter_or_unknown_id_is_an_error) {
  const auto kb = test_kb();
  FindingDraft d;
  d.id = "t.one";
  d.params = {{"dir", "/x"}};
  d.tags = {"pip"};
  auto f = kb::render(kb, d);
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("{spec}"), std::string::npos);
  d.id = "t.none";
  EXPECT_FALSE(kb::render(kb, d));
}

TEST(render, fixes_for_each_platform_say_so_and_quote_for_their_shell) {
  const std::string manifest =
      R"({"spec": "cudnn-doctor-kb/1", "kind": "manifest", "version": "t"})";
  const std::string sets = R"({"spec": "cudnn-doctor-kb/1", "kind": "library_sets", "cudnn": []})";
  const std::string findings = R"({"spec": "cudnn-doctor-kb/1", "kind": "findings", "findings": [
    {"id": "t.two", "title": "Two", "severity": "error", "cause_class": "file.corrupt",
     "family": "damaged_files", "params": ["dir"], "message": "m",
     "fixes": [{"text": "List the folder.", "command": "dir {dir}", "when": "windows"},
               {"text": "List it.", "command": "ls {dir}", "when": "linux"},
               {"text": "On Windows, look again.", "when": "windows"},
               {"text": "Everywhere."}],
     "source": "test"}]})";
  const auto kb = *kb::KnowledgeBase::load(
      {{"kb.json", manifest}, {"findings.json", findings}, {"sets.json", sets}});
  FindingDraft d;
  d.id = "t.two";
  d.params = {{"dir", "C:\\Program Files\\a b"}};
  d.tags = {"windows", "linux"}; // a log whose platform is unknown
  auto f = kb::render(kb, d);
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->fixes.size(), 4U);
  EXPECT_EQ(f->fixes[0].text, "On Windows: List the folder.");
  EXPECT_EQ(f->fixes[0].command, "dir \"C:\\Program Files\\a b\"");
  EXPECT_EQ(f->fixes[1].text, "On Linux: List it.");
  EXPECT_EQ(f->fixes[1].command, "ls 'C:\\Program Files\\a b'");
  EXPECT_EQ(f->fixes[2].text, "On Windows, look again.");
  EXPECT_EQ(f->fixes[3].text, "Everywhere.");
  d.tags = {"linux"};
  f = kb::render(kb, d);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->fixes.size(), 2U);
  EXPECT_EQ(f->fixes[0].text, "List it.");
}

TEST(render, parameter_values_are_not_templates) {
  auto out = kb::fill("x {a}", {{"a", "{b} }{"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "x {b} }{");
}

} // namespace
} // namespace doctor
