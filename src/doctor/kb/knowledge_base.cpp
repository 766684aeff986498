// SPDX-License-Identifier: MIT
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/kb/signatures.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace doctor::kb {

namespace {

using Json = nlohmann::json;

// A validation failure inside one file; caught in load() and turned into an Error.
struct Invalid {
  std::string message;
};

const Json& field(const Json& row, const char* name, Json::value_t type, const std::string& where) {
  if (!row.is_object() || !row.contains(name)) {
    throw Invalid{fmt::format("{}: missing field \"{}\"", where, name)};
  }
  const Json& value = row.at(name);
  if (value.type() != type) {
    throw Invalid{fmt::format("{}: field \"{}\" has the wrong type", where, name)};
  }
  return value;
}

std::string string_field(const Json& row, const char* name, const std::string& where) {
  std::string s = field(row, name, Json::value_t::string, where).get<std::string>();
  if (s.empty()) {
    throw Invalid{fmt::format("{}: field \"{}\" is empty", where, name)};
  }
  return s;
}

std::string optional_string(const Json& row, const char* name, const std::string& where) {
  if (!row.contains(name)) {
    return {};
  }
  return field(row, name, Json::value_t::string, where).get<std::string>();
}

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

void check_header(const Json& doc, std::string_view kind, const std::string& file) {
  if (!doc.is_object()) {
    throw Invalid{fmt::format("{}: not a JSON object", file)};
  }
  if (string_field(doc, "spec", file) != k_spec) {
    throw Invalid{fmt::format("{}: \"spec\" must be \"{}\"", file, k_spec)};
  }
  if (string_field(doc, "kind", file) != kind) {
    throw Invalid{fmt::format("{}: \"kind\" must be \"{}\"", file, kind)};
  }
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

std::vector<FindingTemplate> parse_findings(const Json& doc, const std::string& file) {
  check_header(doc, "findings", file);
  std::vector<FindingTemplate> out;
  std::set<std::string> seen;
  const Json& rows = field(doc, "findings", Json::value_t::array, file);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    std::string where = fmt::format("{}: findings[{}]", file, i);
    FindingTemplate t;
    t.id = string_field(row, "id", where);
    where += " (" + t.id + ")";
    if (!seen.insert(t.id).second) {
      throw Invalid{fmt::format("{}: duplicate id", where)};
    }
    t.title = string_field(row, "title", where);
    const auto sev = parse_severity(string_field(row, "severity", where));
    if (!sev) {
      throw Invalid{fmt::format("{}: severity must be info, warning, error or critical", where)};
    }
    t.severity = *sev;
    const std::string cls = string_field(row, "cause_class", where);
    const auto cause = parse_cause_class(cls);
    if (!cause) {
      throw Invalid{fmt::format("{}: unknown cause class \"{}\"", where, cls)};
    }
    t.cause_class = *cause;
    const std::string family = string_field(row, "family", where);
    const auto parsed_family = parse_family(family);
    if (!parsed_family) {
      std::vector<std::string_view> names;
      for (const auto& f : k_families) {
        names.push_back(f.second);
      }
      throw Invalid{fmt::format("{}: field \"family\": unknown family \"{}\" (one of {})",
                                where,
                                family,
                                fmt::join(names, ", "))};
    }
    t.family = *parsed_family;
    if (row.contains("check")) {
      t.check = string_field(row, "check", where);
    }
    std::set<std::string> declared;
    if (row.contains("params")) {
      for (const Json& p : field(row, "params", Json::value_t::array, where)) {
        if (!p.is_string() || p.get<std::string>().empty()) {
          throw Invalid{fmt::format("{}: \"params\" must be non-empty strings", where)};
        }
        t.params.push_back(p.get<std::string>());
        declared.insert(t.params.back());
      }
    }
    t.message = string_field(row, "message", where);
    check_placeholders(t.message, declared, where + " message");
    const Json& fixes = field(row, "fixes", Json::value_t::array, where);
    if (fixes.empty()) {
      throw Invalid{fmt::format("{}: needs at least one fix", where)};
    }
    for (std::size_t k = 0; k < fixes.size(); ++k) {
      const std::string fwhere = fmt::format("{} fixes[{}]", where, k);
      FixTemplate f;
      f.text = string_field(fixes[k], "text", fwhere);
      f.command = optional_string(fixes[k], "command", fwhere);
      f.when = optional_string(fixes[k], "when", fwhere);
      check_placeholders(f.text, declared, fwhere);
      check_placeholders(f.command, declared, fwhere);
      t.fixes.push_back(std::move(f));
    }
    t.source = string_field(row, "source", where);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<CudnnLibrarySet> parse_library_sets(const Json& doc, const std::string& file) {
  check_header(doc, "library_sets", file);
  std::vector<CudnnLibrarySet> out;
  const Json& rows = field(doc, "cudnn", Json::value_t::array, file);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    const std::string where = fmt::format("{}: cudnn[{}]", file, i);
    CudnnLibrarySet s;
    const Json& major = field(row, "major", Json::value_t::number_unsigned, where);
    s.major = major.get<unsigned>();
    s.os = string_field(row, "os", where);
    if (s.os != "linux" && s.os != "windows") {
      throw Invalid{fmt::format("{}: os must be linux or windows", where)};
    }
    s.variant = string_field(row, "variant", where);
    for (const Json& m : field(row, "members", Json::value_t::array, where)) {
      if (!m.is_string() || m.get<std::string>().empty()) {
        throw Invalid{fmt::format("{}: members must be non-empty strings", where)};
      }
      s.members.push_back(m.get<std::string>());
    }
    if (s.members.empty()) {
      throw Invalid{fmt::format("{}: members is empty", where)};
    }
    if (row.contains("optional")) {
      for (const Json& o : field(row, "optional", Json::value_t::array, where)) {
        s.optional_members.emplace_back(string_field(o, "member", where + " optional"),
                                        string_field(o, "since", where + " optional"));
      }
    }
    s.source = string_field(row, "source", where);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> string_list(const Json& row, const char* name, const std::string& where) {
  std::vector<std::string> out;
  if (!row.contains(name)) {
    return out;
  }
  for (const Json& v : field(row, name, Json::value_t::array, where)) {
    if (!v.is_string() || v.get<std::string>().empty()) {
      throw Invalid{fmt::format("{}: \"{}\" must be non-empty strings", where, name)};
    }
    out.push_back(v.get<std::string>());
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

const std::set<std::string> k_windows_subjects = {
    "windows", "python", "driver", "torch", "tensorflow", "paddle", "onnxruntime", "cudnn"};
const std::set<std::string> k_windows_actions = {"documents", "loads", "imports"};
const std::set<std::string> k_windows_placeholders = {
    "cuda_major", "cuda_minor", "cudnn_major", "nvrtc_tag"};

std::vector<WindowsLoadingRule> parse_windows_loading(const Json& doc, const std::string& file) {
  check_header(doc, "windows_loading", file);
  std::vector<WindowsLoadingRule> out;
  std::set<std::string> seen;
  const Json& rows = field(doc, "rules", Json::value_t::array, file);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    std::string where = fmt::format("{}: rules[{}]", file, i);
    WindowsLoadingRule r;
    r.id = string_field(row, "id", where);
    where += " (" + r.id + ")";
    if (!seen.insert(r.id).second) {
      throw Invalid{fmt::format("{}: duplicate id", where)};
    }
    r.subject = string_field(row, "subject", where);
    if (k_windows_subjects.count(r.subject) == 0) {
      throw Invalid{fmt::format("{}: unknown subject \"{}\"", where, r.subject)};
    }
    r.versions = optional_string(row, "versions", where);
    if (!valid_version_range(r.versions)) {
      throw Invalid{
          fmt::format("{}: \"versions\" must be \"\", \"A\", \"A-B\", \">=A\" or "
                      "\"<=B\"",
                      where)};
    }
    r.action = string_field(row, "action", where);
    if (k_windows_actions.count(r.action) == 0) {
      throw Invalid{fmt::format("{}: action must be documents, loads or imports", where)};
    }
    r.caller = optional_string(row, "caller", where);
    r.call = optional_string(row, "call", where);
    if (row.contains("flags")) {
      const auto flags =
          field(row, "flags", Json::value_t::number_unsigned, where).get<std::uint64_t>();
      if (flags > 0xFFFFFFFFU) {
        throw Invalid{fmt::format("{}: \"flags\" does not fit in 32 bits", where)};
      }
      r.flags = static_cast<std::uint32_t>(flags);
    }
    r.dlls = string_list(row, "dlls", where);
    for (const std::string& d : r.dlls) {
      check_placeholders(d, k_windows_placeholders, where + " dlls");
    }
    r.dirs = string_list(row, "dirs", where);
    if (r.action != "documents" && (r.dlls.empty() || r.caller.empty())) {
      throw Invalid{
          fmt::format("{}: a \"{}\" rule needs \"caller\" and \"dlls\"", where, r.action)};
    }
    r.note = optional_string(row, "note", where);
    r.source = string_field(row, "source", where);
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

Expected<KnowledgeBase>
KnowledgeBase::load(const std::vector<std::pair<std::string, std::string>>& files,
                    const std::map<std::string, std::string>& origins) {
  KnowledgeBase kb;
  bool have_manifest = false;
  bool have_findings = false;
  bool have_sets = false;
  // The compatibility files are parsed together after the loop; their KbFileInfo rows are filled
  // in then. {name, contents} and {index in m_files, kind}.
  std::vector<std::pair<std::string, std::string>> compat_files;
  std::vector<std::pair<std::size_t, std::string>> compat_infos;
  // signatures.json is parsed after the loop too: it refers to findings.json's ids.
  std::string signatures_text;
  std::string signatures_name;
  std::size_t signatures_info = 0;
  // xid.json and bugchecks.json are parsed together after the loop: {kind -> name, text, index}.
  struct CrashFile {
    std::string name;
    std::string text;
    std::size_t info = 0;
  };
  std::map<std::string, CrashFile> crash_files;
  try {
    for (const auto& [name, text] : files) {
      Json doc;
      try {
        doc = Json::parse(text);
      } catch (const Json::parse_error& e) {
        throw Invalid{fmt::format("{}: not JSON ({})", name, e.what())};
      }
      if (!doc.is_object() || !doc.contains("kind") || !doc["kind"].is_string()) {
        throw Invalid{fmt::format("{}: missing field \"kind\"", name)};
      }
      const std::string kind = doc["kind"].get<std::string>();
      KbFileInfo info{name, origins.count(name) != 0 ? origins.at(name) : "embedded", 0};
      if (kind == "manifest") {
        check_header(doc, "manifest", name);
        kb.m_version = string_field(doc, "version", name);
        have_manifest = true;
      } else if (kind == "findings") {
        kb.m_findings = parse_findings(doc, name);
        info.rows = kb.m_findings.size();
        have_findings = true;
      } else if (kind == "library_sets") {
        kb.m_cudnn_sets = parse_library_sets(doc, name);
        info.rows = kb.m_cudnn_sets.size();
        have_sets = true;
      } else if (kind == "windows_loading") {
        kb.m_windows_loading = parse_windows_loading(doc, name);
        info.rows = kb.m_windows_loading.size();
      } else if (kind == "signatures") {
        signatures_text = text;
        signatures_name = name;
        signatures_info = kb.m_files.size();
      } else if (kind == "xid" || kind == "bugchecks") {
        if (crash_files.count(kind) != 0) {
          throw Invalid{fmt::format(
              "{}: a second file of kind \"{}\" (first: {})", name, kind, crash_files[kind].name)};
        }
        crash_files[kind] = CrashFile{name, text, kb.m_files.size()};
      } else if (CompatTables::is_compat_kind(kind)) {
        compat_files.emplace_back(name, text);
        compat_infos.emplace_back(kb.m_files.size(), kind);
      } else {
        throw Invalid{fmt::format("{}: unknown kind \"{}\"", name, kind)};
      }
      kb.m_files.push_back(std::move(info));
    }
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  } catch (const Json::exception& e) {
    return make_error(ErrorCode::parse, e.what());
  }
  auto compat = CompatTables::parse_files(compat_files);
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
  auto signatures = std::make_shared<std::vector<Signature>>();
  if (!signatures_name.empty()) {
    auto parsed = parse_signatures(signatures_text, signatures_name, kb.m_findings);
    if (!parsed) {
      return tl::unexpected(parsed.error());
    }
    *signatures = std::move(*parsed);
    kb.m_files[signatures_info].rows = signatures->size();
  }
  kb.m_signatures = std::move(signatures);
  auto crash = parse_crash_catalog(crash_files["xid"].text,
                                   crash_files["bugchecks"].text,
                                   crash_files["xid"].name,
                                   crash_files["bugchecks"].name);
  if (!crash) {
    return tl::unexpected(crash.error());
  }
  if (const auto it = crash_files.find("xid"); !it->second.name.empty()) {
    kb.m_files[it->second.info].rows = crash->xids().size();
  }
  if (const auto it = crash_files.find("bugchecks"); !it->second.name.empty()) {
    kb.m_files[it->second.info].rows =
        crash->bugchecks().size() + crash->exceptions().size() + crash->modules().size();
  }
  kb.m_crash = std::make_shared<const CrashCatalog>(std::move(*crash));
  return kb;
}

const CrashCatalog& KnowledgeBase::crash() const {
  static const CrashCatalog k_none;
  return m_crash ? *m_crash : k_none;
}

const std::vector<Signature>& KnowledgeBase::signatures() const {
  static const std::vector<Signature> k_none;
  return m_signatures ? *m_signatures : k_none;
}

Expected<KnowledgeBase> KnowledgeBase::load_embedded() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const EmbeddedFile& f : embedded_files()) {
    files.emplace_back(f.name, std::string(f.contents));
  }
  return load(files);
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
  for (const FindingTemplate& t : m_findings) {
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
