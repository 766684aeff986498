// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/compat.hpp>
#include <doctor/model/cause_class.hpp>
#include <doctor/model/severity.hpp>
#include <doctor/util/error.hpp>
#include <doctor/util/shell.hpp>
#include <doctor/util/version.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::kb {

struct Signature;   // signatures.hpp
class CrashCatalog; // crash_catalog.hpp
struct KbDoc;       // kb_docs.hpp (private to kb/)

inline constexpr std::string_view k_spec = "cudnn-doctor-kb/1";

struct FixTemplate {
  std::string text;    // may use the finding's {params}
  std::string command; // may use {params}; empty if no command is safe
  std::string when;    // a tag the check must pass for this fix to apply; empty: always
  // The shell the command is written for ("shell": "cmd" or "powershell"); unset: the draft's.
  std::optional<util::Shell> shell;

  bool operator==(const FixTemplate&) const = default;
};

// Where a finding belongs (findings.json "family"): one of the troubleshooting guide's eight
// families of causes (docs/knowledge-base.md), the crash evidence of `crashes`, the error texts of
// `explain`, or the doctor's own failures. The checks live in one file per family.
enum class Family {
  versions,
  driver_conflicts,
  damaged_files,
  access_security,
  resources,
  unstable_hardware,
  colliding_environments,
  os_updates,
  crash_evidence,
  explain,
  internal,
};

// The family's name in findings.json ("driver_conflicts").
std::string_view to_string(Family family);

// Returns the family named `name`, or nullopt if there is none.
std::optional<Family> parse_family(std::string_view name);

// The registry row of one finding id: the one place its texts, severity and fixes live.
struct FindingTemplate {
  std::string id;
  std::string title;
  Severity severity = Severity::info;
  CauseClass cause_class = CauseClass::other;
  Family family = Family::internal;
  std::string check;               // the check that emits it (src/doctor/checks); empty: none does
  std::vector<std::string> params; // names the message and fixes may use
  std::string message;
  std::vector<FixTemplate> fixes;
  std::string source; // where the knowledge comes from

  bool operator==(const FindingTemplate&) const = default;
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

  bool operator==(const CudnnLibrarySet&) const = default;
};

// One rule of how Windows, Python, a framework or cuDNN loads DLLs (data/kb/windows_loading.json,
// optional). "documents" rows explain search rules the loader model implements in code; "loads"
// rows list what `caller` asks LoadLibrary for, in order (an entry "a.dll;b.dll" holds
// alternatives, the first that loads wins); "imports" rows list a DLL's import table for when its
// headers were not read. DLL names may use {cuda_major}, {cuda_minor}, {cudnn_major} and
// {nvrtc_tag}.
struct WindowsLoadingRule {
  std::string id;          // "torch.preload"
  std::string subject;     // "windows", "python", "driver", "torch", "tensorflow", "paddle",
                           // "onnxruntime", "cudnn"
  std::string versions;    // the subject's versions: "" all, "2.5-2.10", ">=3.8", "<=2.10", "8"
  std::string action;      // "documents", "loads", "imports"
  std::string caller;      // who calls the loader ("cudnn_ops_infer64_8.dll", "torch/__init__.py")
  std::string call;        // the call as made ("LoadLibraryExW(dll, NULL, 0x1100)")
  std::uint32_t flags = 0; // LoadLibraryExW flags of the call (0: LoadLibrary)
  std::vector<std::string> dlls;
  std::vector<std::string> dirs;
  std::string note;
  std::string source;

  // True if `version` is in `versions` ("" matches all; "A-B" includes every B.x; "8" every 8.x).
  bool applies_to(const Version& version) const;

  bool operator==(const WindowsLoadingRule&) const = default;
};

// Returns true if `range` ("", "A", "A-B", ">=A", "<=B") is well formed.
bool valid_version_range(std::string_view range);

// A knowledge-base file as loaded, for `kb` listings and reports.
struct KbFileInfo {
  std::string name;
  std::string origin; // "embedded" or the override file's path
  std::size_t rows = 0;

  bool operator==(const KbFileInfo&) const = default;
};

// A file given in place of the built-in file of the same name.
struct KbFileOverride {
  std::string name;   // "findings.json"
  std::string text;   // its contents
  std::string origin; // where it was read, for `kb` and error messages
};

// The most a knowledge-base file may hold.
inline constexpr std::size_t k_max_kb_file = std::size_t{16} * 1024 * 1024;

// The loaded knowledge base. Knowledge lives in data/kb/*.json, each row with its source; this
// class only parses and validates it, and answers lookups. Matching logic stays in the checks.
class KnowledgeBase {
public:
  // Loads the files compiled into the binary from their compiled form (cmake/embed_kb.py: no
  // JSON text is parsed), leaving the signatures and the crash catalogues to be parsed on first
  // use. Returns an error only if they are invalid (a bug caught by the tests, which also parse
  // the deferred parts: load_signatures(), load_crash()).
  static Expected<KnowledgeBase> load_embedded();

  // Loads the embedded files, each replaced by the override of the same name if there is one
  // (--kb-dir: the caller reads the directory). Returns an error naming the file, row and field
  // if a file is not valid.
  static Expected<KnowledgeBase> load_with_overrides(const std::vector<KbFileOverride>& files);

  // Loads exactly `files` ({name, contents}), every part at once. Returns an error if any is
  // invalid or a required file is missing.
  static Expected<KnowledgeBase> load(const std::vector<std::pair<std::string, std::string>>& files,
                                      const std::map<std::string, std::string>& origins = {});

  // Returns the row for `id`, or nullptr.
  const FindingTemplate* finding(std::string_view id) const;
  const std::vector<FindingTemplate>& findings() const { return *m_findings; }

  const std::vector<CudnnLibrarySet>& cudnn_library_sets() const { return m_cudnn_sets; }

  // Returns the library sets of cuDNN `major` on `os`, "full" variant first.
  std::vector<const CudnnLibrarySet*> cudnn_sets(unsigned major, std::string_view os) const;

  // The Windows DLL-loading rules (empty when windows_loading.json is absent).
  const std::vector<WindowsLoadingRule>& windows_loading() const { return m_windows_loading; }

  // Returns the rules of `subject` with `action` whose versions include `version`, in file order;
  // with no version, every rule of that subject and action.
  std::vector<const WindowsLoadingRule*> windows_rules(std::string_view subject,
                                                       std::string_view action,
                                                       const std::optional<Version>& version) const;

  // The compatibility tables (empty tables when their files are absent from an override set).
  const CompatTables& compat() const { return m_compat; }

  // The error signatures of `explain` (empty when signatures.json is absent, or invalid: see
  // load_signatures()). Parsed on first use.
  const std::vector<Signature>& signatures() const;
  // Parses the signatures now if they are not yet; returns the error if they are invalid. A
  // command that needs them calls this first, so that an invalid file is an error, not an
  // empty list.
  Expected<void> load_signatures() const;

  // The crash catalogues of `crashes`: Xids, stop codes, exception codes and crashing modules
  // (empty when xid.json and bugchecks.json are absent, or invalid: see load_crash()). Parsed on
  // first use.
  const CrashCatalog& crash() const;
  // As load_signatures(), for the crash catalogues.
  Expected<void> load_crash() const;

  // The knowledge base's own version ("2026.11.29").
  const std::string& version() const { return m_version; }
  // The files and their row counts (which parses the deferred parts).
  std::vector<KbFileInfo> files() const;

private:
  struct Deferred; // the parts parsed on first use, shared by copies

  static Expected<KnowledgeBase> load_docs(const std::vector<KbDoc>& docs,
                                           const std::map<std::string, std::string>& origins);

  std::string m_version;
  std::vector<KbFileInfo> m_files;
  // Shared with m_deferred, which checks the signatures' finding ids against it.
  std::shared_ptr<const std::vector<FindingTemplate>> m_findings =
      std::make_shared<const std::vector<FindingTemplate>>();
  std::vector<CudnnLibrarySet> m_cudnn_sets;
  std::vector<WindowsLoadingRule> m_windows_loading;
  CompatTables m_compat;
  std::shared_ptr<Deferred> m_deferred; // null in a default-constructed knowledge base
};

// Returns the placeholder names used in `text` ("{dir}" -> "dir"), in order of appearance.
// Returns an error on an unbalanced brace. "{{" and "}}" are literal braces.
Expected<std::vector<std::string>> placeholders(std::string_view text);

} // namespace doctor::kb
