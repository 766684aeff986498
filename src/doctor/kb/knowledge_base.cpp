// SPDX-License-Identifier: MIT
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/json_rows.hpp>
#include <doctor/kb/kb_docs.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/kb/signatures.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <set>
#include <tuple>

namespace doctor::kb {

namespace {

void check_placeholders(std::string_view text,
                        const std::set<std::string>& declared,
                        const std::string& where) {
  auto names = placeholders(text);
  if (!names) {
    throw Invalid{fmt::format("{}: {}", where, names.error().message)};
  }
  for (const std::string& n : *names) {
    if (declared.count(n) == 0) {
      throw Invalid{fmt::format("{}: placeholder {{{}}} is not declared in \"params\"", where, n)};
    }
  }
}

// A command's placeholders are quoted as whole words when the command is rendered, so none may
// stand inside quotes the template opens ('…' or "…"): the value's quotes would end them.
void check_command_placeholders(std::string_view command, const std::string& where) {
  char open = 0;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == '{' && i + 1 < command.size() && command[i + 1] == '{') {
      ++i; // "{{" is a literal brace
    } else if (open != 0) {
      open = c == open ? 0 : open;
      if (c == '{') {
        throw Invalid{fmt::format("{}: a placeholder inside quotes in \"command\"", where)};
      }
    } else if (c == '\'' || c == '"') {
      open = c;
    }
  }
}

std::optional<util::Shell> parse_shell(const JsonRow& fix) {
  const std::string name = fix.optional_text("shell");
  if (name.empty()) {
    return std::nullopt;
  }
  if (name == "sh") {
    return util::Shell::posix;
  }
  if (name == "cmd") {
    return util::Shell::cmd;
  }
  if (name == "powershell") {
    return util::Shell::powershell;
  }
  fix.fail(fmt::format("\"shell\" is \"{}\", not one of sh, cmd, powershell", name));
}

constexpr std::pair<Family, std::string_view> k_families[] = {
    {Family::versions, "versions"},
    {Family::driver_conflicts, "driver_conflicts"},
    {Family::damaged_files, "damaged_files"},
    {Family::access_security, "access_security"},
    {Family::resources, "resources"},
    {Family::unstable_hardware, "unstable_hardware"},
    {Family::colliding_environments, "colliding_environments"},
    {Family::os_updates, "os_updates"},
    {Family::crash_evidence, "crash_evidence"},
    {Family::explain, "explain"},
    {Family::internal, "internal"},
};

std::vector<FindingTemplate> parse_findings(JsonView doc, const std::string& file) {
  const JsonRow top = file_header(doc, "findings", file);
  std::vector<FindingTemplate> out;
  std::set<std::string> seen;
  const JsonRows rows = top.rows("findings");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    JsonRow row = rows[i];
    FindingTemplate t;
    t.id = row.text("id");
    row.name(t.id);
    if (!seen.insert(t.id).second) {
      row.fail("duplicate id");
    }
    t.title = row.text("title");
    const auto sev = parse_severity(row.text("severity"));
    if (!sev) {
      row.fail("severity must be info, warning, error or critical");
    }
    t.severity = *sev;
    const std::string cls = row.text("cause_class");
    const auto cause = parse_cause_class(cls);
    if (!cause) {
      row.fail(fmt::format("unknown cause class \"{}\"", cls));
    }
    t.cause_class = *cause;
    const std::string family = row.text("family");
    const auto parsed_family = parse_family(family);
    if (!parsed_family) {
      std::vector<std::string_view> names;
      for (const auto& f : k_families) {
        names.push_back(f.second);
      }
      row.fail(fmt::format(
          "field \"family\": unknown family \"{}\" (one of {})", family, fmt::join(names, ", ")));
    }
    t.family = *parsed_family;
    t.check = row.optional_text("check");
    t.params = row.optional_texts("params");
    const std::set<std::string> declared(t.params.begin(), t.params.end());
    t.message = row.text("message");
    check_placeholders(t.message, declared, row.where() + " message");
    const JsonRows fixes = row.items("fixes");
    if (fixes.empty()) {
      row.fail("needs at least one fix");
    }
    for (std::size_t k = 0; k < fixes.size(); ++k) {
      const JsonRow fix = fixes[k];
      FixTemplate f;
      f.text = fix.text("text");
      f.command = fix.optional_text("command");
      f.when = fix.optional_text("when");
      f.shell = parse_shell(fix);
      check_placeholders(f.text, declared, fix.where());
      check_placeholders(f.command, declared, fix.where());
      check_command_placeholders(f.command, fix.where());
      t.fixes.push_back(std::move(f));
    }
    t.source = row.text("source");
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<CudnnLibrarySet> parse_library_sets(JsonView doc, const std::string& file) {
  const JsonRow top = file_header(doc, "library_sets", file);
  std::vector<CudnnLibrarySet> out;
  const JsonRows rows = top.rows("cudnn");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JsonRow row = rows[i];
    CudnnLibrarySet s;
    s.major = static_cast<unsigned>(row.number("major", std::numeric_limits<unsigned>::max()));
    s.os = row.text("os");
    if (s.os != "linux" && s.os != "windows") {
      row.fail("os must be linux or windows");
    }
    s.variant = row.text("variant");
    s.members = row.texts("members");
    const JsonRows optional = row.items("optional", false);
    for (std::size_t k = 0; k < optional.size(); ++k) {
      const JsonRow o = optional[k];
      s.optional_members.emplace_back(o.text("member"), o.text("since"));
    }
    s.source = row.text("source");
    out.push_back(std::move(s));
  }
  return out;
}

// The first `n` components of `v`.
Version truncated(const Version& v, std::size_t n) {
  std::vector<unsigned> parts;
  for (std::size_t i = 0; i < n; ++i) {
    parts.push_back(v.part(i));
  }
  return Version::from_parts(std::move(parts));
}

// The allowed values, each set built on first use (not at every start of the program).
const std::set<std::string>& windows_subjects_set() {
  static const std::set<std::string> k_set = {
      "windows", "python", "driver", "torch", "tensorflow", "paddle", "onnxruntime", "cudnn"};
  return k_set;
}
const std::set<std::string>& windows_actions_set() {
  static const std::set<std::string> k_set = {"documents", "loads", "imports"};
  return k_set;
}
const std::set<std::string>& windows_placeholders_set() {
  static const std::set<std::string> k_set = {
      "cuda_major", "cuda_minor", "cudnn_major", "nvrtc_tag"};
  return k_set;
}

std::vector<WindowsLoadingRule> parse_windows_loading(JsonView doc, const std::string& file) {
  const JsonRow top = file_header(doc, "windows_loading", file);
  std::vector<WindowsLoadingRule> out;
  std::set<std::string> seen;
  const JsonRows rows = top.rows("rules");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    JsonRow row = rows[i];
    WindowsLoadingRule r;
    r.id = row.text("id");
    row.name(r.id);
    if (!seen.insert(r.id).second) {
      row.fail("duplicate id");
    }
    r.subject = row.text("subject");
    if (windows_subjects_set().count(r.subject) == 0) {
      row.fail(fmt::format("unknown subject \"{}\"", r.subject));
    }
    r.versions = row.optional_text("versions");
    if (!valid_version_range(r.versions)) {
      row.fail(fmt::format("field \"versions\" must be \"A\", \"A-B\", \">=A\" or \"<=B\" (\"{}\")",
                           r.versions));
    }
    r.action = row.text("action");
    if (windows_actions_set().count(r.action) == 0) {
      row.fail("action must be documents, loads or imports");
    }
    r.caller = row.optional_text("caller");
    r.call = row.optional_text("call");
    if (const auto flags = row.optional_number("flags")) {
      if (*flags > 0xFFFFFFFFU) {
        row.fail("\"flags\" does not fit in 32 bits");
      }
      r.flags = static_cast<std::uint32_t>(*flags);
    }
    r.dlls = row.optional_texts("dlls");
    for (const std::string& d : r.dlls) {
      check_placeholders(d, windows_placeholders_set(), row.where() + " dlls");
    }
    r.dirs = row.optional_texts("dirs");
    if (r.action != "documents" && (r.dlls.empty() || r.caller.empty())) {
      row.fail(fmt::format("a \"{}\" rule needs \"caller\" and \"dlls\"", r.action));
    }
    r.note = row.optional_text("note");
    r.source = row.text("source");
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace

std::string_view to_string(Family family) {
  for (const auto& [f, name] : k_families) {
    if (f == family) {
      return name;
    }
  }
  return "internal";
}

std::optional<Family> parse_family(std::string_view name) {
  for (const auto& [f, n] : k_families) {
    if (n == name) {
      return f;
    }
  }
  return std::nullopt;
}

bool valid_version_range(std::string_view range) {
  if (range.empty()) {
    return true;
  }
  if (range.starts_with(">=") || range.starts_with("<=")) {
    return Version::parse(range.substr(2)).has_value();
  }
  const auto dash = range.find('-');
  if (dash == std::string_view::npos) {
    return Version::parse(range).has_value();
  }
  const auto lo = Version::parse(range.substr(0, dash));
  const auto hi = Version::parse(range.substr(dash + 1));
  return lo && hi && *lo <= *hi;
}

bool WindowsLoadingRule::applies_to(const Version& version) const {
  const std::string_view r = versions;
  if (r.empty()) {
    return true;
  }
  if (r.starts_with(">=")) {
    const auto lo = Version::parse(r.substr(2));
    return lo && version >= *lo;
  }
  if (r.starts_with("<=")) {
    const auto hi = Version::parse(r.substr(2));
    return hi && truncated(version, hi->size()) <= *hi;
  }
  const auto dash = r.find('-');
  if (dash == std::string_view::npos) {
    const auto only = Version::parse(r);
    return only && version.starts_with(*only);
  }
  const auto lo = Version::parse(r.substr(0, dash));
  const auto hi = Version::parse(r.substr(dash + 1));
  return lo && hi && version >= *lo && truncated(version, hi->size()) <= *hi;
}

Expected<std::vector<std::string>> placeholders(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      if (i + 1 < text.size() && text[i + 1] == '{') {
        ++i;
        continue;
      }
      const auto close = text.find('}', i);
      if (close == std::string_view::npos) {
        return make_error(ErrorCode::parse, "unbalanced '{'");
      }
      const std::string_view name = text.substr(i + 1, close - i - 1);
      if (name.empty() || name.find_first_of("{:!") != std::string_view::npos) {
        return make_error(ErrorCode::parse, fmt::format("bad placeholder {{{}}}", name));
      }
      out.emplace_back(name);
      i = close;
    } else if (text[i] == '}') {
      if (i + 1 < text.size() && text[i + 1] == '}') {
        ++i;
        continue;
      }
      return make_error(ErrorCode::parse, "unbalanced '}'");
    }
  }
  return out;
}

// The parts of a knowledge base parsed on first use, shared by its copies: the signatures (a
// few milliseconds of regex compilation that only `explain` needs) and the crash catalogues
// (only `crashes` and the crash-evidence collectors). Each is parsed once, under its once_flag;
// until then its document refers to the embedded tape, which lives as long as the program.
struct KnowledgeBase::Deferred {
  std::shared_ptr<const std::vector<FindingTemplate>> findings;
  std::optional<KbDoc> signatures_doc;
  std::optional<std::size_t> signatures_info; // index in m_files
  std::optional<KbDoc> xid_doc;
  std::optional<std::size_t> xid_info;
  std::optional<KbDoc> bugchecks_doc;
  std::optional<std::size_t> bugchecks_info;
  std::once_flag signatures_once;
  std::once_flag crash_once;
  Expected<std::vector<Signature>> signatures = std::vector<Signature>();
  Expected<CrashCatalog> crash = CrashCatalog();
};

Expected<KnowledgeBase>
KnowledgeBase::load(const std::vector<std::pair<std::string, std::string>>& files,
                    const std::map<std::string, std::string>& origins) {
  // Text is parsed once, into tapes that live until every part has been parsed: a knowledge
  // base from text (--kb-dir) is validated whole before it is used.
  const auto texts = parse_texts(files);
  if (!texts) {
    return tl::unexpected(texts.error());
  }
  auto kb = load_docs(texts->docs, origins);
  if (!kb) {
    return kb;
  }
  if (auto parsed = kb->load_signatures(); !parsed) {
    return tl::unexpected(parsed.error());
  }
  if (auto parsed = kb->load_crash(); !parsed) {
    return tl::unexpected(parsed.error());
  }
  kb->m_deferred->signatures_doc.reset();
  kb->m_deferred->xid_doc.reset();
  kb->m_deferred->bugchecks_doc.reset();
  return kb;
}

Expected<KnowledgeBase>
KnowledgeBase::load_docs(const std::vector<KbDoc>& docs,
                         const std::map<std::string, std::string>& origins) {
  KnowledgeBase kb;
  auto deferred = std::make_shared<Deferred>();
  bool have_manifest = false;
  bool have_findings = false;
  bool have_sets = false;
  // The compatibility files are parsed together after the loop; their KbFileInfo rows are filled
  // in then. {index in m_files, kind}.
  std::vector<KbDoc> compat_docs;
  std::vector<std::pair<std::size_t, std::string>> compat_infos;
  try {
    for (const KbDoc& doc : docs) {
      const std::string& name = doc.name;
      const std::string kind = file_kind(doc.root, name);
      KbFileInfo info{name, origins.count(name) != 0 ? origins.at(name) : "embedded", 0};
      const std::size_t index = kb.m_files.size();
      if (kind == "manifest") {
        kb.m_version = file_header(doc.root, "manifest", name).text("version");
        have_manifest = true;
      } else if (kind == "findings") {
        auto findings =
            std::make_shared<std::vector<FindingTemplate>>(parse_findings(doc.root, name));
        info.rows = findings->size();
        kb.m_findings = std::move(findings);
        have_findings = true;
      } else if (kind == "library_sets") {
        kb.m_cudnn_sets = parse_library_sets(doc.root, name);
        info.rows = kb.m_cudnn_sets.size();
        have_sets = true;
      } else if (kind == "windows_loading") {
        kb.m_windows_loading = parse_windows_loading(doc.root, name);
        info.rows = kb.m_windows_loading.size();
      } else if (kind == "signatures" || kind == "xid" || kind == "bugchecks") {
        // Parsed on first use (signatures.json refers to findings.json's ids).
        auto [slot, slot_info] =
            kind == "signatures" ? std::tie(deferred->signatures_doc, deferred->signatures_info)
            : kind == "xid"      ? std::tie(deferred->xid_doc, deferred->xid_info)
                                 : std::tie(deferred->bugchecks_doc, deferred->bugchecks_info);
        if (slot) {
          throw Invalid{
              fmt::format("{}: a second file of kind \"{}\" (first: {})", name, kind, slot->name)};
        }
        slot = doc;
        slot_info = index;
      } else if (CompatTables::is_compat_kind(kind)) {
        compat_docs.push_back(doc);
        compat_infos.emplace_back(index, kind);
      } else {
        throw Invalid{fmt::format("{}: unknown kind \"{}\"", name, kind)};
      }
      kb.m_files.push_back(std::move(info));
    }
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  }
  auto compat = parse_compat_docs(compat_docs);
  if (!compat) {
    return tl::unexpected(compat.error());
  }
  kb.m_compat = std::move(*compat);
  for (const auto& [index, kind] : compat_infos) {
    kb.m_files[index].rows = kb.m_compat.rows_of_kind(kind);
  }
  if (!have_manifest || !have_findings || !have_sets) {
    return make_error(ErrorCode::parse,
                      "the knowledge base needs kb.json, findings.json and library_sets.json");
  }
  deferred->findings = kb.m_findings;
  kb.m_deferred = std::move(deferred);
  return kb;
}

Expected<void> KnowledgeBase::load_signatures() const {
  if (!m_deferred) {
    return {};
  }
  Deferred& d = *m_deferred;
  std::call_once(d.signatures_once, [&d] {
    if (d.signatures_doc) {
      d.signatures = parse_signatures_doc(*d.signatures_doc, *d.findings);
    }
  });
  if (!d.signatures) {
    return tl::unexpected(d.signatures.error());
  }
  return {};
}

Expected<void> KnowledgeBase::load_crash() const {
  if (!m_deferred) {
    return {};
  }
  Deferred& d = *m_deferred;
  std::call_once(d.crash_once, [&d] {
    d.crash = parse_crash_docs(d.xid_doc ? &*d.xid_doc : nullptr,
                               d.bugchecks_doc ? &*d.bugchecks_doc : nullptr);
  });
  if (!d.crash) {
    return tl::unexpected(d.crash.error());
  }
  return {};
}

const CrashCatalog& KnowledgeBase::crash() const {
  static const CrashCatalog k_none;
  return load_crash() ? *m_deferred->crash : k_none;
}

const std::vector<Signature>& KnowledgeBase::signatures() const {
  static const std::vector<Signature> k_none;
  return load_signatures() ? *m_deferred->signatures : k_none;
}

std::vector<KbFileInfo> KnowledgeBase::files() const {
  std::vector<KbFileInfo> out = m_files;
  if (m_deferred) {
    const Deferred& d = *m_deferred;
    if (d.signatures_info) {
      out[*d.signatures_info].rows = signatures().size();
    }
    if (d.xid_info) {
      out[*d.xid_info].rows = crash().xids().size();
    }
    if (d.bugchecks_info) {
      const CrashCatalog& c = crash();
      out[*d.bugchecks_info].rows =
          c.bugchecks().size() + c.exceptions().size() + c.modules().size();
    }
  }
  return out;
}

Expected<KnowledgeBase> KnowledgeBase::load_embedded() {
  std::vector<KbDoc> docs;
  for (const EmbeddedFile& f : embedded_files()) {
    docs.push_back(KbDoc{f.name, tape_root(f.tape)});
  }
  return load_docs(docs, {});
}

Expected<KnowledgeBase>
KnowledgeBase::load_with_overrides(const std::vector<KbFileOverride>& overrides) {
  std::map<std::string, std::string> origins;
  std::vector<std::pair<std::string, std::string>> files;
  for (const EmbeddedFile& f : embedded_files()) {
    files.emplace_back(f.name, std::string(f.contents));
  }
  for (const KbFileOverride& o : overrides) {
    const auto it =
        std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.first == o.name; });
    if (it == files.end()) {
      files.emplace_back(o.name, o.text);
    } else {
      it->second = o.text;
    }
    origins[o.name] = o.origin;
  }
  return load(files, origins);
}

const FindingTemplate* KnowledgeBase::finding(std::string_view id) const {
  for (const FindingTemplate& t : *m_findings) {
    if (t.id == id) {
      return &t;
    }
  }
  return nullptr;
}

std::vector<const CudnnLibrarySet*> KnowledgeBase::cudnn_sets(unsigned major,
                                                              std::string_view os) const {
  std::vector<const CudnnLibrarySet*> out;
  for (const CudnnLibrarySet& s : m_cudnn_sets) {
    if (s.major == major && s.os == os) {
      out.push_back(&s);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    return (a->variant == "full") > (b->variant == "full");
  });
  return out;
}

std::vector<const WindowsLoadingRule*>
KnowledgeBase::windows_rules(std::string_view subject,
                             std::string_view action,
                             const std::optional<Version>& version) const {
  std::vector<const WindowsLoadingRule*> out;
  for (const WindowsLoadingRule& r : m_windows_loading) {
    if (r.subject == subject && r.action == action && (!version || r.applies_to(*version))) {
      out.push_back(&r);
    }
  }
  return out;
}

} // namespace doctor::kb
