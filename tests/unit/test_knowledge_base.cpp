// SPDX-License-Identifier: MIT
#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/check.hpp>
#include <doctor/crash/analysis.hpp>
#include <doctor/kb/finding_ids.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/kb/signatures.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace doctor {
namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

const char* k_manifest = R"({"spec": "cudnn-doctor-kb/1", "kind": "manifest", "version": "t1"})";
const char* k_sets = R"({"spec": "cudnn-doctor-kb/1", "kind": "library_sets", "cudnn": [
  {"major": 9, "os": "linux", "variant": "full", "members": ["libcudnn.so.9"], "source": "s"}]})";

std::string findings_with(const std::string& row) {
  return R"({"spec": "cudnn-doctor-kb/1", "kind": "findings", "findings": [)" + row + "]}";
}

const char* k_good_row = R"({"id": "x.y", "title": "T", "severity": "error",
  "cause_class": "other", "family": "resources", "check": "host_memory", "params": ["dir"],
  "message": "in {dir}",
  "fixes": [{"text": "fix {dir}", "command": "ls {dir}", "when": "pip"}], "source": "src"})";

TEST(knowledge_base, embedded_knowledge_base_loads) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb) << kb.error().message;
  EXPECT_FALSE(kb->version().empty());
  EXPECT_FALSE(kb->findings().empty());
  EXPECT_EQ(kb->cudnn_sets(9, "linux").front()->variant, "full");
}

// Every id a check can emit has a knowledge-base row, and every row (other than the runner's
// own) is emitted by some check, named by an error signature of `explain` or used by a crash
// incident: the registries and the knowledge base cannot drift apart.
TEST(knowledge_base, every_check_id_has_a_row_and_every_row_a_check) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb);
  std::set<std::string> emitted{std::string(kb::ids::k_internal_check_failed)};
  for (const checks::CheckDef& c : checks::all_checks()) {
    for (std::string_view id : c.emits) {
      emitted.insert(std::string(id));
      EXPECT_NE(kb->finding(id), nullptr)
          << "check " << c.name << " emits " << id << " which has no row in data/kb/findings.json";
    }
  }
  for (const kb::Signature& s : kb->signatures()) {
    emitted.insert(s.finding);
  }
  for (std::string_view id : crash::incident_finding_ids()) {
    emitted.insert(std::string(id));
  }
  for (const kb::FindingTemplate& t : kb->findings()) {
    EXPECT_EQ(emitted.count(t.id), 1U) << t.id
                                       << " is in findings.json but no check emits it, no "
                                          "signature names it and no crash incident uses it";
  }
}

TEST(knowledge_base, every_row_has_source_text_and_fixes) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb);
  for (const kb::FindingTemplate& t : kb->findings()) {
    EXPECT_FALSE(t.source.empty()) << t.id;
    EXPECT_FALSE(t.title.empty()) << t.id;
    EXPECT_FALSE(t.message.empty()) << t.id;
    EXPECT_FALSE(t.fixes.empty()) << t.id;
  }
  for (const kb::CudnnLibrarySet& s : kb->cudnn_library_sets()) {
    EXPECT_FALSE(s.source.empty()) << s.major << " " << s.os << " " << s.variant;
  }
}

TEST(knowledge_base, loads_a_valid_minimal_set) {
  auto kb = kb::KnowledgeBase::load(Files{{"kb.json", k_manifest},
                                          {"findings.json", findings_with(k_good_row)},
                                          {"sets.json", k_sets}});
  ASSERT_TRUE(kb) << kb.error().message;
  EXPECT_EQ(kb->version(), "t1");
  ASSERT_NE(kb->finding("x.y"), nullptr);
  EXPECT_EQ(kb->finding("x.y")->fixes.front().when, "pip");
  EXPECT_EQ(kb->finding("x.y")->family, kb::Family::resources);
  EXPECT_EQ(kb->finding("x.y")->check, "host_memory");
  EXPECT_EQ(kb->finding("nope"), nullptr);
}

struct BadCase {
  std::string name;
  std::string row;
  std::string expected_fragment;
};

TEST(knowledge_base, rejects_invalid_rows_with_the_place_named) {
  const std::vector<BadCase> cases = {
      {"unknown cause",
       R"({"id": "a", "title": "T", "severity": "error", "cause_class": "bogus",
        "message": "m", "fixes": [{"text": "f"}], "source": "s"})",
       "unknown cause class"},
      {"bad severity",
       R"({"id": "a", "title": "T", "severity": "fatal", "cause_class": "other", "family": "internal",
        "message": "m", "fixes": [{"text": "f"}], "source": "s"})",
       "severity"},
      {"undeclared placeholder",
       R"({"id": "a", "title": "T", "severity": "info",
        "cause_class": "other", "family": "internal", "message": "{dir}", "fixes": [{"text": "f"}], "source": "s"})",
       "not declared"},
      {"no source",
       R"({"id": "a", "title": "T", "severity": "info", "cause_class": "other", "family": "internal",
        "message": "m", "fixes": [{"text": "f"}]})",
       "source"},
      {"no fixes",
       R"({"id": "a", "title": "T", "severity": "info", "cause_class": "other", "family": "internal",
        "message": "m", "fixes": [], "source": "s"})",
       "at least one fix"},
      {"unbalanced brace",
       R"({"id": "a", "title": "T", "severity": "info", "cause_class": "other", "family": "internal",
        "message": "oops {", "fixes": [{"text": "f"}], "source": "s"})",
       "unbalanced"},
      {"unknown family",
       R"({"id": "a", "title": "T", "severity": "info", "cause_class": "other",
        "family": "luck", "message": "m", "fixes": [{"text": "f"}], "source": "s"})",
       "field \"family\": unknown family \"luck\" (one of versions, driver_conflicts"},
      {"no family",
       R"({"id": "a", "title": "T", "severity": "info", "cause_class": "other",
        "message": "m", "fixes": [{"text": "f"}], "source": "s"})",
       "findings[0] (a): missing field \"family\""},
      {"check not a string",
       R"({"id": "a", "title": "T", "severity": "info", "cause_class": "other",
        "family": "internal", "check": 3, "message": "m", "fixes": [{"text": "f"}],
        "source": "s"})",
       "field \"check\" has the wrong type"},
      {"wrong type",
       R"({"id": 7, "title": "T", "severity": "info", "cause_class": "other", "family": "internal",
        "message": "m", "fixes": [{"text": "f"}], "source": "s"})",
       "wrong type"},
  };
  for (const BadCase& c : cases) {
    auto kb = kb::KnowledgeBase::load(Files{
        {"kb.json", k_manifest}, {"findings.json", findings_with(c.row)}, {"sets.json", k_sets}});
    ASSERT_FALSE(kb) << c.name;
    EXPECT_NE(kb.error().message.find(c.expected_fragment), std::string::npos)
        << c.name << ": " << kb.error().message;
    EXPECT_NE(kb.error().message.find("findings.json"), std::string::npos) << c.name;
  }
}

TEST(knowledge_base, rejects_duplicates_junk_and_missing_files) {
  auto dup = kb::KnowledgeBase::load(
      Files{{"kb.json", k_manifest},
            {"findings.json", findings_with(std::string(k_good_row) + "," + k_good_row)},
            {"sets.json", k_sets}});
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message.find("duplicate"), std::string::npos);

  auto junk = kb::KnowledgeBase::load(Files{{"kb.json", "\x01\x02 not json"}});
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().message.find("kb.json"), std::string::npos);

  auto missing = kb::KnowledgeBase::load(Files{{"kb.json", k_manifest}});
  ASSERT_FALSE(missing);
}

TEST(knowledge_base, placeholders_are_listed_in_order) {
  auto names = kb::placeholders("a {x} b {{literal}} {y}");
  ASSERT_TRUE(names);
  EXPECT_EQ(*names, (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(kb::placeholders("{x"));
  EXPECT_FALSE(kb::placeholders("x}"));
  EXPECT_FALSE(kb::placeholders("{x:>4}"));
}

} // namespace
} // namespace doctor
