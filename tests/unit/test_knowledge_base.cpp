// SPDX-License-Identifier: MIT
#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/check.hpp>
#include <doctor/crash/analysis.hpp>
#include <doctor/explain/analysis.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/finding_ids.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/kb/signatures.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
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
// own) is emitted by some check, named by an error signature or a refinement of `explain`, or
// used by a crash incident: the registries and the knowledge base cannot drift apart.
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
    if (s.likely) {
      emitted.insert(s.likely->finding); // explain names a likely cause or an alternative too
    }
    for (const auto& a : s.alternatives) {
      emitted.insert(a.finding);
    }
  }
  for (std::string_view id : explain::refinement_finding_ids()) {
    emitted.insert(std::string(id));
  }
  for (const std::string& id : crash::incident_finding_ids(*kb)) {
    emitted.insert(id);
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

// The embedded knowledge base is read from the build's compiled form and parses the signatures and
// crash catalogues on first use; --kb-dir parses JSON text, all at once. On the shipped files
// both give the same knowledge base, field for field.
TEST(knowledge_base, the_compiled_form_and_the_json_text_give_the_same_knowledge_base) {
  const auto compiled = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(compiled) << compiled.error().message;
  ASSERT_TRUE(compiled->load_signatures());
  ASSERT_TRUE(compiled->load_crash());
  Files texts;
  for (const kb::EmbeddedFile& f : kb::embedded_files()) {
    texts.emplace_back(f.name, std::string(f.contents));
  }
  const auto parsed = kb::KnowledgeBase::load(texts);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(compiled->version(), parsed->version());
  EXPECT_TRUE(compiled->files() == parsed->files());
  EXPECT_TRUE(compiled->findings() == parsed->findings());
  EXPECT_TRUE(compiled->cudnn_library_sets() == parsed->cudnn_library_sets());
  EXPECT_TRUE(compiled->windows_loading() == parsed->windows_loading());
  EXPECT_TRUE(compiled->compat() == parsed->compat());
  EXPECT_TRUE(compiled->crash() == parsed->crash());
  ASSERT_EQ(compiled->signatures().size(), parsed->signatures().size());
  EXPECT_GT(compiled->signatures().size(), 100U);
  for (std::size_t i = 0; i < parsed->signatures().size(); ++i) {
    const kb::Signature& a = compiled->signatures()[i];
    const kb::Signature& b = parsed->signatures()[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.finding, b.finding);
    EXPECT_EQ(a.role, b.role);
    EXPECT_EQ(a.confidence, b.confidence);
    EXPECT_EQ(a.platform, b.platform);
    EXPECT_EQ(a.values, b.values);
    EXPECT_EQ(a.explained_by, b.explained_by);
    EXPECT_EQ(a.examples, b.examples);
    EXPECT_EQ(a.source, b.source);
    ASSERT_EQ(a.patterns.size(), b.patterns.size()) << a.id;
    for (std::size_t k = 0; k < a.patterns.size(); ++k) {
      EXPECT_EQ(a.patterns[k].pattern(), b.patterns[k].pattern()) << a.id;
      EXPECT_EQ(a.patterns[k].program_size(), b.patterns[k].program_size()) << a.id;
    }
  }
  // Row counts of the deferred files are their parsed sizes, as the text path's.
  std::size_t signature_rows = 0;
  for (const kb::KbFileInfo& f : compiled->files()) {
    if (f.name == "signatures.json") {
      signature_rows = f.rows;
    }
  }
  EXPECT_EQ(signature_rows, compiled->signatures().size());
}

// A copy made before the deferred parts are parsed shares them: each is parsed once, and both
// copies see it.
TEST(knowledge_base, copies_share_the_deferred_parts) {
  const auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb);
  const kb::KnowledgeBase copy = *kb;
  EXPECT_EQ(&copy.signatures(), &kb->signatures());
  EXPECT_EQ(&copy.crash(), &kb->crash());
  EXPECT_FALSE(copy.crash().xids().empty());
}

// The embedded files with `edit` applied to the one named `name`.
Files embedded_with(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  Files files;
  bool found = false;
  for (const kb::EmbeddedFile& f : kb::embedded_files()) {
    std::string text(f.contents);
    if (f.name == name) {
      nlohmann::json doc = nlohmann::json::parse(text);
      edit(doc);
      text = doc.dump();
      found = true;
    }
    files.emplace_back(f.name, std::move(text));
  }
  EXPECT_TRUE(found) << name;
  return files;
}

// One reader (kb/json_rows) reads every file, so every file has the same rules; these go
// through each file's parser.
TEST(knowledge_base, every_table_of_every_file_needs_object_rows) {
  const std::vector<std::pair<std::string, std::string>> tables = {
      {"findings.json", "findings"},
      {"library_sets.json", "cudnn"},
      {"windows_loading.json", "rules"},
      {"signatures.json", "signatures"},
      {"cuda_drivers.json", "toolkits"},
      {"cuda_drivers.json", "minor_compat"},
      {"cuda_drivers.json", "branches"},
      {"cudnn_releases.json", "releases"},
      {"cudnn_releases.json", "packages"},
      {"frameworks.json", "builds"},
      {"gpus.json", "architectures"},
      {"gpus.json", "pci_ids"},
      {"xid.json", "xids"},
      {"bugchecks.json", "bugchecks"},
      {"bugchecks.json", "exceptions"},
      {"bugchecks.json", "modules"},
  };
  for (const auto& [file, table] : tables) {
    const auto kb = kb::KnowledgeBase::load(
        embedded_with(file, [&table = table](nlohmann::json& d) { d[table][1] = "a row"; }));
    ASSERT_FALSE(kb) << file << " " << table;
    EXPECT_EQ(kb.error().message, file + ": " + table + "[1]: not a JSON object");
  }
}

TEST(knowledge_base, an_optional_text_that_is_present_must_not_be_empty_in_any_file) {
  struct Case {
    std::string file;
    std::function<void(nlohmann::json&)> edit;
    std::string expected; // the end of the message
  };
  const std::vector<Case> cases = {
      {"findings.json",
       [](nlohmann::json& d) { d["findings"][0]["fixes"][0]["command"] = ""; },
       "fixes[0]: field \"command\" is empty"},
      {"windows_loading.json",
       [](nlohmann::json& d) { d["rules"][0]["note"] = ""; },
       "field \"note\" is empty"},
      {"cuda_drivers.json",
       [](nlohmann::json& d) { d["toolkits"][0]["note"] = ""; },
       "field \"note\" is empty"},
      {"frameworks.json",
       [](nlohmann::json& d) { d["builds"][0]["install"] = ""; },
       "field \"install\" is empty"},
      {"xid.json",
       [](nlohmann::json& d) { d["xids"][0]["immediate_action"] = ""; },
       "field \"immediate_action\" is empty"},
      {"bugchecks.json",
       [](nlohmann::json& d) { d["modules"][0]["note"] = ""; },
       "field \"note\" is empty"},
  };
  for (const Case& c : cases) {
    const auto kb = kb::KnowledgeBase::load(embedded_with(c.file, c.edit));
    ASSERT_FALSE(kb) << c.file;
    const std::string& m = kb.error().message;
    EXPECT_EQ(m.rfind(c.file + ": ", 0), 0U) << m;
    ASSERT_GE(m.size(), c.expected.size()) << m;
    EXPECT_EQ(m.substr(m.size() - c.expected.size()), c.expected) << m;
  }
}

TEST(knowledge_base, unsigned_fields_reject_negative_and_fractional_numbers_in_any_file) {
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> cases = {
      {"library_sets.json", [](nlohmann::json& d) { d["cudnn"][0]["major"] = -9; }},
      {"library_sets.json", [](nlohmann::json& d) { d["cudnn"][0]["major"] = 9.5; }},
      {"windows_loading.json", [](nlohmann::json& d) { d["rules"][0]["flags"] = 0.5; }},
      {"cuda_drivers.json", [](nlohmann::json& d) { d["branches"][0]["branch"] = -535; }},
      {"gpus.json", [](nlohmann::json& d) { d["architectures"][0]["last_branch"] = 470.5; }},
      {"xid.json", [](nlohmann::json& d) { d["xids"][0]["code"] = -13; }},
      {"bugchecks.json", [](nlohmann::json& d) { d["bugchecks"][0]["address_param"] = -1; }},
      {"signatures.json", [](nlohmann::json& d) { d["signatures"][0]["confidence"] = 50.5; }},
  };
  for (const auto& [file, edit] : cases) {
    const auto kb = kb::KnowledgeBase::load(embedded_with(file, edit));
    ASSERT_FALSE(kb) << file;
    EXPECT_NE(kb.error().message.find("has the wrong type"), std::string::npos)
        << kb.error().message;
    EXPECT_EQ(kb.error().message.rfind(file + ": ", 0), 0U) << kb.error().message;
  }
}

TEST(knowledge_base, a_cudnn_major_that_does_not_fit_is_out_of_range) {
  const auto kb = kb::KnowledgeBase::load(embedded_with(
      "library_sets.json", [](nlohmann::json& d) { d["cudnn"][0]["major"] = 4294967305ULL; }));
  ASSERT_FALSE(kb);
  EXPECT_EQ(kb.error().message, "library_sets.json: cudnn[0]: field \"major\" is out of range");
}

TEST(knowledge_base, a_cudnn_since_must_be_a_release_of_the_rows_major) {
  auto with_since = [](const char* since, bool keep_major) {
    return kb::KnowledgeBase::load(embedded_with("signatures.json", [&](nlohmann::json& d) {
      for (auto& row : d["loader_rules"]) {
        if (row["id"] == "loader.cudnn8.cnn_adv.windows") {
          row["cudnn_since"] = since;
          if (!keep_major) {
            row.erase("cudnn_major");
          }
        }
      }
    }));
  };
  // load() parses every part at once: an invalid row fails the whole load, naming the field.
  for (const auto& [since, keep_major] : {std::pair{"9.1", true}, {"8.x", true}, {"8.3", false}}) {
    const auto kb = with_since(since, keep_major);
    ASSERT_FALSE(kb) << since;
    EXPECT_NE(kb.error().message.find("cudnn_since"), std::string::npos) << kb.error().message;
  }
  const auto good = with_since("8.3", true);
  ASSERT_TRUE(good) << good.error().message;
  ASSERT_TRUE(good->load_signatures());
}

TEST(knowledge_base, prefers_is_for_context_rows_and_findings_without_params) {
  auto edited = [](const char* id, const char* finding) {
    return kb::KnowledgeBase::load(embedded_with("signatures.json", [&](nlohmann::json& d) {
      for (auto& row : d["signatures"]) {
        if (row["id"] == id) {
          row["prefers"] = nlohmann::json::array(
              {{{"finding", finding}, {"over", "log.driver_too_old"}, {"tell", "how"}}});
        }
      }
    }));
  };
  const auto on_cause = edited("cuda.status.insufficient_driver", "log.driver_not_loaded");
  ASSERT_FALSE(on_cause);
  EXPECT_NE(on_cause.error().message.find("context rows"), std::string::npos);
  const auto with_params = edited("context.container", "log.cudnn_not_found");
  ASSERT_FALSE(with_params);
  EXPECT_NE(with_params.error().message.find("takes params"), std::string::npos);
  ASSERT_TRUE(edited("context.container", "log.driver_not_loaded"));
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
