// SPDX-License-Identifier: MIT
// The output of `kb` (docs/knowledge-base.md): the knowledge base's version, each file with its
// origin and rows, and how many distinct sources its rows cite, as text or JSON; with --check,
// which directory was found valid.
#pragma once

#include <doctor/kb/knowledge_base.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace doctor::report {

// What `kb` prints about a knowledge base.
struct KbSummary {
  std::string version;
  std::vector<kb::KbFileInfo> files;
  std::size_t rows = 0;             // rows of every table that cite a source
  std::size_t distinct_sources = 0; // different sources among them
  std::string checked;              // --check DIR found valid; empty: the built-in files alone
};

// Counts the rows of every table of `kb` (findings, library sets, Windows loading rules, the
// compatibility tables, signatures, the crash catalogue) and their distinct sources.
KbSummary summarize_kb(const kb::KnowledgeBase& kb, std::string checked);

// "valid: DIR" when checked, the version, a table of files (name, origin, rows) and the totals.
std::string render_kb_text(const KbSummary& summary);

// {"version", "checked" and "valid" when checked, "files", "rows", "distinct_sources"}, with a
// final newline.
std::string render_kb_json(const KbSummary& summary);

} // namespace doctor::report
