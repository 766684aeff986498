// SPDX-License-Identifier: MIT
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace doctor {
namespace {

using Json = nlohmann::json;

std::string embedded_text(std::string_view name) {
  for (const kb::EmbeddedFile& f : kb::embedded_files()) {
    if (f.name == name) {
      return std::string(f.contents);
    }
  }
  return {};
}

const kb::CrashCatalog& catalog() {
  static const kb::KnowledgeBase k_kb = [] {
    auto kb = kb::KnowledgeBase::load_embedded();
    EXPECT_TRUE(kb) << kb.error().message;
    return std::move(*kb);
  }();
  return k_kb.crash();
}

TEST(crash_catalog, embedded_knowledge_base_has_both_files) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb) << kb.error().message;
  const kb::CrashCatalog& c = kb->crash();
  EXPECT_FALSE(c.xids().empty());
  EXPECT_FALSE(c.bugchecks().empty());
  EXPECT_FALSE(c.exceptions().empty());
  EXPECT_FALSE(c.modules().empty());
  std::size_t listed = 0;
  for (const kb::KbFileInfo& f : kb->files()) {
    if (f.name == "xid.json") {
      EXPECT_EQ(f.rows, c.xids().size());
      ++listed;
    }
    if (f.name == "bugchecks.json") {
      EXPECT_EQ(f.rows, c.bugchecks().size() + c.exceptions().size() + c.modules().size());
      ++listed;
    }
  }
  EXPECT_EQ(listed, 2U);
}

TEST(crash_catalog, bugcheck_lookups) {
  const kb::BugCheckEntry* tdr = catalog().bugcheck(0x116);
  ASSERT_NE(tdr, nullptr);
  EXPECT_EQ(tdr->name, "VIDEO_TDR_FAILURE");
  EXPECT_EQ(tdr->address_param, 2U);
  EXPECT_EQ(tdr->points_at, "gpu_driver");
  EXPECT_EQ(tdr->cause_class, CauseClass::os_tdr_or_bugcheck);
  EXPECT_EQ(tdr->params.size(), 4U);

  // The extended-parameter flag is masked for the lookup; 0xDEADDEAD is its own code.
  const kb::BugCheckEntry* ext = catalog().bugcheck(0x1000007E);
  ASSERT_NE(ext, nullptr);
  EXPECT_EQ(ext->name, "SYSTEM_THREAD_EXCEPTION_NOT_HANDLED");
  EXPECT_EQ(ext->address_param, 2U);
  EXPECT_EQ(kb::mask_bugcheck_code(0x1000007E), 0x7EU);
  EXPECT_EQ(kb::mask_bugcheck_code(0xDEADDEAD), 0xDEADDEADU);
  ASSERT_NE(catalog().bugcheck(0xDEADDEAD), nullptr);
  EXPECT_EQ(catalog().bugcheck(0xDEADDEAD)->points_at, "manual");

  EXPECT_EQ(catalog().bugcheck(0x50)->address_param, 3U);
  EXPECT_EQ(catalog().bugcheck(0xD1)->address_param, 4U);
  EXPECT_EQ(catalog().bugcheck(0x117)->points_at, "live_dump");
  EXPECT_EQ(catalog().bugcheck(0x124)->points_at, "hardware");
  EXPECT_EQ(catalog().bugcheck(0x124)->cause_class, CauseClass::hardware_fault);
  EXPECT_EQ(catalog().bugcheck(0x12345), nullptr);
}

TEST(crash_catalog, every_stop_code_of_the_research_table_is_catalogued) {
  for (std::uint32_t code :
       {0x116U, 0x117U, 0x141U, 0x119U, 0x10EU, 0x113U, 0x1B8U,      0x1A8U, 0x193U,
        0xEAU,  0x3BU,  0x7EU,  0x1EU,  0x8EU,  0x50U,  0xD1U,       0x0AU,  0x133U,
        0x9FU,  0x124U, 0x101U, 0x1AU,  0x4EU,  0x12BU, 0xC2U,       0x19U,  0x13AU,
        0x139U, 0xFCU,  0x7FU,  0xEFU,  0x9CU,  0xE2U,  0xDEADDEADU, 0x1C8U}) {
    EXPECT_NE(catalog().bugcheck(code), nullptr) << std::hex << code;
  }
}

TEST(crash_catalog, xid_lookups) {
  const kb::XidEntry* bus = catalog().xid(79);
  ASSERT_NE(bus, nullptr);
  EXPECT_EQ(bus->name, "GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_EQ(bus->category, "bus_power");
  EXPECT_EQ(bus->cause_class, CauseClass::hardware_unstable);
  EXPECT_EQ(bus->immediate_action, "RESTART_BM");
  EXPECT_EQ(bus->legacy_causes, (std::vector<std::string>{"HW", "DRV", "SYSMEM", "BUS", "THERM"}));
  EXPECT_GE(bus->fixes.size(), 3U);

  for (unsigned code : {13U, 31U, 43U, 45U, 68U}) {
    ASSERT_NE(catalog().xid(code), nullptr) << code;
    EXPECT_EQ(catalog().xid(code)->cause_class, CauseClass::application_error) << code;
  }
  for (unsigned code : {48U, 63U, 64U, 92U, 94U, 95U}) {
    EXPECT_EQ(catalog().xid(code)->category, "memory") << code;
    EXPECT_EQ(catalog().xid(code)->cause_class, CauseClass::hardware_fault) << code;
  }
  EXPECT_TRUE(catalog().xid(43)->secondary);
  EXPECT_TRUE(catalog().xid(45)->secondary);
  EXPECT_FALSE(catalog().xid(13)->secondary);
  EXPECT_EQ(catalog().xid(13)->investigatory_action, "WORKFLOW_XID_13");
  EXPECT_EQ(catalog().xid(119)->category, "gsp");
  EXPECT_EQ(catalog().xid(120)->category, "gsp");
  EXPECT_EQ(catalog().xid(74)->category, "nvlink");
  for (unsigned code = 144; code <= 150; ++code) {
    EXPECT_EQ(catalog().xid(code)->category, "nvlink") << code;
  }
  EXPECT_EQ(catalog().xid(154)->category, "informational");
  EXPECT_NE(catalog().xid(154)->fixes.front().find("recovery action"), std::string::npos);
  EXPECT_EQ(catalog().xid(999), nullptr);
}

TEST(crash_catalog, every_xid_of_the_research_table_is_catalogued) {
  std::vector<unsigned> codes = {
      8,  11,  13,  14,  25,  31,  32,  37,  38,  39,  40,  41,  43,  44,  45, 46, 48, 54,
      56, 57,  58,  59,  60,  61,  62,  63,  64,  65,  66,  67,  68,  69,  70, 71, 72, 73,
      74, 75,  76,  77,  78,  79,  80,  81,  82,  83,  84,  85,  86,  88,  89, 92, 93, 94,
      95, 106, 107, 109, 110, 119, 120, 121, 136, 137, 139, 140, 141, 142, 143};
  for (unsigned c = 96; c <= 105; ++c) {
    codes.push_back(c);
  }
  for (unsigned c = 126; c <= 135; ++c) {
    codes.push_back(c);
  }
  for (unsigned c = 144; c <= 172; ++c) {
    if (c != 152 && c != 153) {
      codes.push_back(c);
    }
  }
  for (unsigned code : codes) {
    EXPECT_NE(catalog().xid(code), nullptr) << code;
  }
}

TEST(crash_catalog, exception_lookups) {
  const kb::ExceptionCodeEntry* av = catalog().exception(0xC0000005);
  ASSERT_NE(av, nullptr);
  EXPECT_EQ(av->name, "STATUS_ACCESS_VIOLATION");
  EXPECT_EQ(av->cause_class, CauseClass::application_error);
  for (std::uint32_t code : {0xC0000409U,
                             0xC000001DU,
                             0xC00000FDU,
                             0xC0000374U,
                             0xE06D7363U,
                             0x80000003U,
                             0xC000000DU}) {
    EXPECT_NE(catalog().exception(code), nullptr) << std::hex << code;
  }
  EXPECT_EQ(catalog().exception(0x1), nullptr);
}

TEST(crash_catalog, module_lookups_are_case_insensitive_and_first_match_wins) {
  const kb::CrashModuleEntry* cudnn = catalog().module("cudnn_cnn_infer64_8.dll");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_EQ(cudnn->component, "cuDNN");
  EXPECT_EQ(cudnn->kind, "user");
  EXPECT_TRUE(cudnn->gpu);
  EXPECT_EQ(catalog().module("cudnn64_9.dll")->component, "cuDNN");
  EXPECT_EQ(catalog().module("cudnn_engines_precompiled64_9.dll")->component, "cuDNN");

  const kb::CrashModuleEntry* kmd = catalog().module("NVLDDMKM.SYS");
  ASSERT_NE(kmd, nullptr);
  EXPECT_EQ(kmd->component, "NVIDIA display driver (kernel)");
  EXPECT_EQ(kmd->kind, "kernel");
  EXPECT_EQ(catalog().module(R"(C:\Windows\System32\DriverStore\nvlddmkm.sys)"), kmd);

  // cuBLASLt is listed before cuBLAS, so the more specific row answers.
  EXPECT_EQ(catalog().module("cublasLt64_12.dll")->component, "cuBLASLt");
  EXPECT_EQ(catalog().module("cublas64_12.dll")->component, "cuBLAS");
  EXPECT_EQ(catalog().module("ucrtbase.dll")->gpu, false);
  EXPECT_EQ(catalog().module("notepad.exe"), nullptr);
  EXPECT_EQ(catalog().module(""), nullptr);
  EXPECT_EQ(catalog().module("dir/"), nullptr);
}

TEST(crash_catalog, xid_findings_by_category_and_row) {
  EXPECT_EQ(catalog().xid(13)->finding, "log.gpu_app_fault");
  EXPECT_EQ(catalog().xid(48)->finding, "log.gpu_memory_error");
  EXPECT_EQ(catalog().xid(119)->finding, "log.gsp_error");
  EXPECT_EQ(catalog().xid(62)->finding, "crash.gpu_driver_error");
  EXPECT_EQ(catalog().xid(79)->finding, "log.gpu_fallen_off_bus") << "the row's own finding";
  EXPECT_EQ(catalog().xid(54)->finding, "crash.gpu_driver_error") << "79's category, not its row";
  ASSERT_NE(catalog().xid_with_finding("log.gpu_fallen_off_bus"), nullptr);
  EXPECT_EQ(catalog().xid_with_finding("log.gpu_fallen_off_bus")->code, 79U);
  EXPECT_EQ(catalog().xid_with_finding("no.such_finding"), nullptr);
  ASSERT_NE(catalog().xid_for_nvlddmkm_event(13), nullptr);
  EXPECT_EQ(catalog().xid_for_nvlddmkm_event(13)->code, 13U);
  EXPECT_EQ(catalog().xid_for_nvlddmkm_event(14), nullptr);
  EXPECT_EQ(catalog().xid_for_nvlddmkm_event(0), nullptr);
  EXPECT_EQ(catalog().xid_categories().size(), 10U);
  for (const kb::XidCategoryFinding& c : catalog().xid_categories()) {
    EXPECT_FALSE(c.finding.empty()) << c.category;
    EXPECT_FALSE(c.source.empty()) << c.category;
  }
  for (const kb::XidEntry& x : catalog().xids()) {
    EXPECT_FALSE(x.finding.empty()) << x.code;
  }
}

TEST(crash_catalog, every_row_has_a_source_and_fixes) {
  for (const kb::XidEntry& x : catalog().xids()) {
    EXPECT_FALSE(x.source.empty()) << x.code;
    EXPECT_FALSE(x.fixes.empty()) << x.code;
    EXPECT_FALSE(x.meaning.empty()) << x.code;
  }
  for (const kb::BugCheckEntry& b : catalog().bugchecks()) {
    EXPECT_FALSE(b.source.empty()) << b.name;
    EXPECT_FALSE(b.fixes.empty()) << b.name;
    EXPECT_LE(b.address_param, b.params.size()) << b.name;
  }
  for (const kb::CrashModuleEntry& m : catalog().modules()) {
    EXPECT_FALSE(m.source.empty()) << m.pattern;
  }
}

struct BadEdit {
  std::string name;
  bool xid_file; // which file the edit applies to
  std::function<void(Json&)> edit;
  std::vector<std::string> fragments; // the error must name each
};

TEST(crash_catalog, rejects_bad_edits_naming_file_row_and_field) {
  const std::vector<BadEdit> cases = {
      {"missing source",
       true,
       [](Json& d) { d["xids"][3].erase("source"); },
       {"xid.json: xids[3]", "\"source\""}},
      {"unknown field",
       false,
       [](Json& d) { d["bugchecks"][0]["bogus"] = 1; },
       {"bugchecks.json: bugchecks[0]", "unknown field \"bogus\""}},
      {"unknown top-level field",
       true,
       [](Json& d) { d["extra"] = Json::array(); },
       {"xid.json", "unknown field \"extra\""}},
      {"duplicate xid",
       true,
       [](Json& d) { d["xids"][1]["code"] = d["xids"][0]["code"]; },
       {"xid.json: xids[1]", "duplicate code"}},
      {"bad cause class",
       true,
       [](Json& d) { d["xids"][0]["cause_class"] = "application_error"; },
       {"xids[0]", "unknown cause class"}},
      {"bad category",
       true,
       [](Json& d) { d["xids"][2]["category"] = "power"; },
       {"xids[2]", "unknown category \"power\""}},
      {"bad legacy cause",
       true,
       [](Json& d) {
         d["xids"][0]["legacy_causes"] = {"HW", "XX"};
       },
       {"xids[0]", "legacy_causes", "XX"}},
      {"bad bucket",
       true,
       [](Json& d) { d["xids"][0]["immediate_action"] = "restart app"; },
       {"xids[0]", "bucket"}},
      {"no fixes",
       true,
       [](Json& d) { d["xids"][0]["fixes"] = Json::array(); },
       {"xids[0]", "\"fixes\" is empty"}},
      {"address param too high",
       false,
       [](Json& d) { d["bugchecks"][0]["address_param"] = 5; },
       {"bugchecks[0] (0x116)", "address_param"}},
      {"too many params",
       false,
       [](Json& d) { d["bugchecks"][0]["params"].push_back("fifth"); },
       {"bugchecks[0]", "more than 4"}},
      {"bad points_at",
       false,
       [](Json& d) { d["bugchecks"][1]["points_at"] = "gpu"; },
       {"bugchecks[1]", "unknown points_at \"gpu\""}},
      {"flagged code",
       false,
       [](Json& d) { d["bugchecks"][0]["code"] = "0x1000007E"; },
       {"bugchecks[0]", "extended-parameter flag"}},
      {"duplicate stop code",
       false,
       [](Json& d) { d["bugchecks"][1]["code"] = d["bugchecks"][0]["code"]; },
       {"bugchecks[1]", "duplicate code"}},
      {"decimal code",
       false,
       [](Json& d) { d["exceptions"][0]["code"] = "3221225477"; },
       {"exceptions[0]", "hexadecimal"}},
      {"empty pattern",
       false,
       [](Json& d) { d["modules"][0]["pattern"] = ""; },
       {"bugchecks.json: modules[0]", "\"pattern\" is empty"}},
      {"upper-case pattern",
       false,
       [](Json& d) { d["modules"][0]["pattern"] = "NVLDDMKM.SYS"; },
       {"modules[0]", "lower-case"}},
      {"bad module kind",
       false,
       [](Json& d) { d["modules"][0]["kind"] = "driver"; },
       {"modules[0]", "unknown kind"}},
      {"category listed twice",
       true,
       [](Json& d) {
         d["category_findings"][1]["category"] = d["category_findings"][0]["category"];
       },
       {"xid.json: category_findings[1]", "duplicate category"}},
      {"category without a finding",
       true,
       [](Json& d) { d["category_findings"].erase(0); },
       {"xid.json", "names no finding for"}},
      {"no category table",
       true,
       [](Json& d) { d.erase("category_findings"); },
       {"xid.json", "missing field \"category_findings\""}},
      {"unknown category",
       true,
       [](Json& d) { d["category_findings"][0]["category"] = "power"; },
       {"category_findings[0]", "unknown category \"power\""}},
      {"category row without source",
       true,
       [](Json& d) { d["category_findings"][2].erase("source"); },
       {"category_findings[2]", "\"source\""}},
      {"empty row finding",
       true,
       [](Json& d) { d["xids"][0]["finding"] = ""; },
       {"xids[0]", "\"finding\" is empty"}},
      {"nvlddmkm event claimed twice",
       true,
       [](Json& d) {
         d["xids"][0]["nvlddmkm_event"] = 13;
         d["xids"][1]["nvlddmkm_event"] = 13;
       },
       {"xids[1]", "nvlddmkm_event"}},
  };
  const Json xid = Json::parse(embedded_text("xid.json"));
  const Json bugchecks = Json::parse(embedded_text("bugchecks.json"));
  for (const BadEdit& c : cases) {
    Json x = xid;
    Json b = bugchecks;
    c.edit(c.xid_file ? x : b);
    auto parsed = kb::parse_crash_catalog(x.dump(), b.dump());
    ASSERT_FALSE(parsed) << c.name;
    for (const std::string& f : c.fragments) {
      EXPECT_NE(parsed.error().message.find(f), std::string::npos)
          << c.name << ": " << parsed.error().message;
    }
  }
}

TEST(crash_catalog, knowledge_base_rejects_a_bad_override_and_a_second_file) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const kb::EmbeddedFile& f : kb::embedded_files()) {
    files.emplace_back(f.name, std::string(f.contents));
  }
  auto twice = files;
  twice.emplace_back("xid-copy.json", embedded_text("xid.json"));
  auto dup = kb::KnowledgeBase::load(twice);
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message.find("xid-copy.json: a second file"), std::string::npos)
      << dup.error().message;

  auto bad = files;
  for (auto& [name, text] : bad) {
    if (name == "bugchecks.json") {
      Json d = Json::parse(text);
      d["modules"][2].erase("component");
      text = d.dump();
    }
  }
  auto rejected = kb::KnowledgeBase::load(bad);
  ASSERT_FALSE(rejected);
  EXPECT_NE(rejected.error().message.find("bugchecks.json: modules[2]"), std::string::npos)
      << rejected.error().message;
  EXPECT_NE(rejected.error().message.find("\"component\""), std::string::npos);
}

TEST(crash_catalog, absent_files_give_an_empty_catalogue) {
  auto kb = kb::KnowledgeBase::load(
      {{"kb.json", R"({"spec": "cudnn-doctor-kb/1", "kind": "manifest", "version": "t"})"},
       {"findings.json", R"({"spec": "cudnn-doctor-kb/1", "kind": "findings", "findings": []})"},
       {"sets.json", R"({"spec": "cudnn-doctor-kb/1", "kind": "library_sets", "cudnn": []})"}});
  ASSERT_TRUE(kb) << kb.error().message;
  EXPECT_TRUE(kb->crash().empty());
  EXPECT_EQ(kb->crash().xid(79), nullptr);
  EXPECT_EQ(kb->crash().module("nvlddmkm.sys"), nullptr);

  auto only_xids = kb::parse_crash_catalog(embedded_text("xid.json"), "");
  ASSERT_TRUE(only_xids) << only_xids.error().message;
  EXPECT_NE(only_xids->xid(13), nullptr);
  EXPECT_TRUE(only_xids->bugchecks().empty());

  auto junk = kb::parse_crash_catalog("{not json", "");
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().message.find("xid.json: not JSON"), std::string::npos);
}

} // namespace
} // namespace doctor
