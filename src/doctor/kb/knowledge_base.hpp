// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/core/cause_class.hpp>
#include <doctor/core/severity.hpp>
#include <doctor/util/error.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::kb {

inline constexpr std::string_view k_spec = "cudnn-doctor-kb/1";

struct FixTemplate {
  std::string text;    // may use the finding's {params}
  std::string command; // may use {params}; empty if no command is safe
  std::string when;    // a tag the check must pass for this fix to apply; empty: always
};

// The registry row of one finding id: the one place its texts, severity and fixes live.
struct FindingTemplate {
  std::string id;
  std::string title;
  Severity severity = Severity::info;
  CauseClass cause_class = CauseClass::other;
  std::vector<std::string> params; // names the message and fixes may use
  std::string message;
  std::vector<FixTemplate> fixes;
  std::string source; // where the knowledge comes from
};

// The files of one cuDNN major version that belong together on one platform. A directory is
// complete when it holds every member of one of the variants of its major.
struct CudnnLibrarySet {
  unsigned major = 0;
  std::string os;                   // "linux" or "windows"
  std::string variant;              // "full", "jit"
  std::vector<std::string> members; // file names as the loader asks for them ("libcudnn_ops.so.9")
  // Members only some releases have: {file name, first version that ships it}.
  std::vector<std::pair<std::string, std::string>> optional_members;
  std::string source;
};

// A knowledge-base file as loaded, for `kb` listings and reports.
struct KbFileInfo {
  std::string name;
  std::string origin; // "embedded" or the override file's path
  std::size_t rows = 0;
};

// The loaded knowledge base. Knowledge lives in data/kb/*.json, each row with its source; this
// class only parses and validates it, and answers lookups. Matching logic stays in the checks.
class KnowledgeBase {
public:
  // Loads the files compiled into the binary. Returns an error only if they are invalid (a bug
  // caught by the tests).
  static Expected<KnowledgeBase> load_embedded();

  // Loads the embedded files, replacing each by the file of the same name in `dir` if present.
  // Returns an error naming the file, row and field if a file is not valid.
  static Expected<KnowledgeBase> load_with_overrides(const std::filesystem::path& dir);

  // Loads exactly `files` ({name, contents}). Returns an error if any is invalid or a required
  // file is missing.
  static Expected<KnowledgeBase> load(const std::vector<std::pair<std::string, std::string>>& files,
                                      const std::map<std::string, std::string>& origins = {});

  // Returns the row for `id`, or nullptr.
  const FindingTemplate* finding(std::string_view id) const;
  const std::vector<FindingTemplate>& findings() const { return m_findings; }

  const std::vector<CudnnLibrarySet>& cudnn_library_sets() const { return m_cudnn_sets; }

  // Returns the library sets of cuDNN `major` on `os`, "full" variant first.
  std::vector<const CudnnLibrarySet*> cudnn_sets(unsigned major, std::string_view os) const;

  // The knowledge base's own version ("2026.11.29").
  const std::string& version() const { return m_version; }
  const std::vector<KbFileInfo>& files() const { return m_files; }

private:
  std::string m_version;
  std::vector<KbFileInfo> m_files;
  std::vector<FindingTemplate> m_findings;
  std::vector<CudnnLibrarySet> m_cudnn_sets;
};

// Returns the placeholder names used in `text` ("{dir}" -> "dir"), in order of appearance.
// Returns an error on an unbalanced brace. "{{" and "}}" are literal braces.
Expected<std::vector<std::string>> placeholders(std::string_view text);

} // namespace doctor::kb
