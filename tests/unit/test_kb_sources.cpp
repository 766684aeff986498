// SPDX-License-Identifier: MIT
// Knowledge in tables: every fact the binary ships says where it was read, and every finding can
// be explained and acted on.
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <string>

namespace doctor {
namespace {

const kb::KnowledgeBase& embedded() {
  static const kb::KnowledgeBase k_kb = [] {
    auto kb = kb::KnowledgeBase::load_embedded();
    EXPECT_TRUE(kb) << kb.error().message;
    return std::move(*kb);
  }();
  return k_kb;
}

template<typename Rows, typename Name>
void expect_sources(const Rows& rows, const char* table, Name name) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_FALSE(rows[i].source.empty()) << table << "[" << i << "] " << name(rows[i]);
  }
}

TEST(kb_sources, every_finding_and_library_set_has_a_source) {
  const kb::KnowledgeBase& kb = embedded();
  ASSERT_FALSE(kb.findings().empty());
  ASSERT_FALSE(kb.cudnn_library_sets().empty());
  expect_sources(kb.findings(), "findings", [](const auto& r) { return r.id; });
  expect_sources(kb.cudnn_library_sets(), "library_sets", [](const auto& r) { return r.os; });
  expect_sources(kb.windows_loading(), "windows_loading", [](const auto& r) { return r.id; });
}

TEST(kb_sources, every_compat_row_has_a_source) {
  const kb::CompatTables& c = embedded().compat();
  ASSERT_FALSE(c.cuda_drivers().empty());
  ASSERT_FALSE(c.gpu_models().empty());
  expect_sources(c.cuda_drivers(), "toolkits", [](const auto& r) { return r.cuda.str(); });
  expect_sources(c.minor_compat(), "minor_compat", [](const auto& r) { return r.first.str(); });
  expect_sources(c.branches(), "branches", [](const auto& r) { return r.branch; });
  expect_sources(c.architectures(), "architectures", [](const auto& r) { return r.cc.str(); });
  expect_sources(c.gpu_models(), "pci_ids", [](const auto& r) { return r.device_id; });
  expect_sources(c.cudnn_releases(), "releases", [](const auto& r) { return r.versions; });
  expect_sources(c.cudnn_packages(), "packages", [](const auto& r) { return r.version; });
  expect_sources(c.framework_builds(), "builds", [](const auto& r) { return r.versions; });
  for (std::string_view s : c.sources()) {
    EXPECT_FALSE(s.empty());
  }
  EXPECT_EQ(c.sources().size(),
            c.rows_of_kind("cuda_drivers") + c.rows_of_kind("cudnn_releases")
                + c.rows_of_kind("frameworks") + c.rows_of_kind("gpus"));
}

TEST(kb_sources, every_finding_has_title_message_and_a_fix) {
  for (const kb::FindingTemplate& t : embedded().findings()) {
    EXPECT_FALSE(t.title.empty()) << t.id;
    EXPECT_FALSE(t.message.empty()) << t.id;
    ASSERT_FALSE(t.fixes.empty()) << t.id;
    for (const kb::FixTemplate& f : t.fixes) {
      EXPECT_FALSE(f.text.empty()) << t.id;
    }
  }
}

TEST(kb_sources, every_file_is_listed_with_rows) {
  for (const kb::KbFileInfo& f : embedded().files()) {
    EXPECT_EQ(f.origin, "embedded") << f.name;
    if (f.name != "kb.json") {
      EXPECT_GT(f.rows, 0U) << f.name;
    }
  }
}

} // namespace
} // namespace doctor
