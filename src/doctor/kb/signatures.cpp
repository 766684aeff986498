// SPDX-License-Identifier: MIT
#include <doctor/kb/json_rows.hpp>
#include <doctor/kb/kb_docs.hpp>
#include <doctor/kb/signatures.hpp>
#include <doctor/util/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace doctor::kb {

std::string_view to_string(SignatureRole role) {
  switch (role) {
  case SignatureRole::cause:
    return "cause";
  case SignatureRole::symptom:
    return "symptom";
  case SignatureRole::noise:
    return "noise";
  case SignatureRole::context:
    return "context";
  }
  return "cause";
}

namespace {

const FindingTemplate& finding_named(const JsonRow& row,
                                     const std::string& id,
                                     const std::vector<FindingTemplate>& findings) {
  auto finding = std::find_if(
      findings.begin(), findings.end(), [&](const FindingTemplate& f) { return f.id == id; });
  if (finding == findings.end()) {
    row.fail(fmt::format("finding \"{}\" is not in findings.json", id));
  }
  return *finding;
}

// "alternatives": [{"finding", "confidence", "tell", "platform"?}], below the row's own
// confidence.
std::vector<SignatureAlternative> parse_alternatives(const JsonRow& row,
                                                     const Signature& s,
                                                     const std::vector<FindingTemplate>& findings) {
  std::vector<SignatureAlternative> out;
  const JsonRows rows = row.items("alternatives", false);
  if (rows.size() > 2) {
    row.fail("\"alternatives\" holds at most two");
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    JsonRow a = rows[i];
    a.only({"finding", "confidence", "tell", "platform"});
    SignatureAlternative alt;
    alt.finding = a.text("finding");
    finding_named(a, alt.finding, findings); // shown by id and title: its params are not needed
    if (alt.finding == s.finding) {
      a.fail("an alternative must name another finding");
    }
    const std::int64_t confidence = a.integer("confidence");
    if (confidence < 1 || confidence >= s.confidence) {
      a.fail("\"confidence\" must be 1 or more and below the row's own");
    }
    alt.confidence = static_cast<int>(confidence);
    alt.tell = a.text("tell");
    if (alt.tell.empty()) {
      a.fail("\"tell\" must say how to tell this cause apart");
    }
    alt.platform = a.optional_text("platform");
    if (!alt.platform.empty() && alt.platform != "windows" && alt.platform != "linux"
        && alt.platform != "macos") {
      a.fail("\"platform\" must be windows, linux or macos (absent: any)");
    }
    out.push_back(std::move(alt));
  }
  return out;
}

// "likely": {"finding", "confidence", "tell"} on a symptom row: the cause it most often has.
// The finding takes no params (the symptom's line captures none), is not the row's own, and
// is more likely than each alternative.
std::optional<SignatureAlternative>
parse_likely(const JsonRow& row, const Signature& s, const std::vector<FindingTemplate>& findings) {
  if (!row.has("likely")) {
    return std::nullopt;
  }
  if (s.role != SignatureRole::symptom) {
    row.fail("\"likely\" is for symptom rows (a cause row names its cause itself)");
  }
  JsonRow l(row.object("likely"), row.where() + " likely");
  l.only({"finding", "confidence", "tell"});
  SignatureAlternative likely;
  likely.finding = l.text("finding");
  const FindingTemplate& f = finding_named(l, likely.finding, findings);
  if (likely.finding == s.finding) {
    l.fail("\"likely\" must name another finding");
  }
  if (!f.params.empty()) {
    l.fail(fmt::format("finding {} takes params; a symptom's line cannot give them", f.id));
  }
  const std::int64_t confidence = l.integer("confidence");
  if (confidence < 1 || confidence > 100) {
    l.fail("\"confidence\" must be 1..100");
  }
  likely.confidence = static_cast<int>(confidence);
  for (const SignatureAlternative& a : s.alternatives) {
    if (a.confidence >= likely.confidence || a.finding == likely.finding) {
      l.fail("the likely cause must be more likely than each alternative, and not one of them");
    }
  }
  likely.tell = l.text("tell"); // text() refuses an empty string
  return likely;
}

// "prefers": [{"finding", "over", "tell"}] on a context row (signatures.hpp, ContextPreference).
std::vector<ContextPreference> parse_prefers(const JsonRow& row,
                                             const Signature& s,
                                             const std::vector<FindingTemplate>& findings) {
  std::vector<ContextPreference> out;
  if (!row.has("prefers")) {
    return out;
  }
  if (s.role != SignatureRole::context) {
    row.fail("\"prefers\" is for context rows");
  }
  const JsonRows rows = row.items("prefers", false);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    JsonRow p = rows[i];
    p.only({"finding", "over", "tell"});
    ContextPreference pref;
    pref.finding = p.text("finding");
    pref.over = p.text("over");
    const FindingTemplate& f = finding_named(p, pref.finding, findings);
    finding_named(p, pref.over, findings);
    if (!f.params.empty()) {
      p.fail(fmt::format("finding {} takes params; a context line cannot give them", f.id));
    }
    if (pref.finding == pref.over) {
      p.fail("\"finding\" and \"over\" must differ");
    }
    pref.tell = p.text("tell");
    out.push_back(std::move(pref));
  }
  return out;
}

bool valid_id(std::string_view id) {
  if (id.empty() || id.front() == '.' || id.back() == '.') {
    return false;
  }
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

SignatureRole parse_role(const JsonRow& row) {
  const std::string role = row.text("role");
  if (role == "cause") {
    return SignatureRole::cause;
  }
  if (role == "symptom") {
    return SignatureRole::symptom;
  }
  if (role == "noise") {
    return SignatureRole::noise;
  }
  if (role == "context") {
    return SignatureRole::context;
  }
  row.fail("\"role\" must be cause, symptom, noise or context");
}

// The fields every row has: role, confidence, platform.
void judgement(const JsonRow& row, Signature& s) {
  s.role = parse_role(row);
  const std::int64_t confidence = row.integer("confidence");
  if (confidence < 1 || confidence > 100) {
    row.fail("\"confidence\" must be 1..100");
  }
  s.confidence = static_cast<int>(confidence);
  s.platform = row.text("platform");
  if (s.platform != "windows" && s.platform != "linux" && s.platform != "any") {
    row.fail("\"platform\" must be windows, linux or any");
  }
}

Signature parse_row(JsonRow row, const std::vector<FindingTemplate>& findings) {
  row.only({"id",
            "finding",
            "role",
            "confidence",
            "platform",
            "patterns",
            "values",
            "explained_by",
            "examples",
            "alternatives",
            "likely",
            "prefers",
            "source"});
  Signature s;
  s.id = row.text("id");
  row.name(s.id);
  if (!valid_id(s.id)) {
    row.fail("\"id\" must be lower-case letters, digits, '_' and '.'");
  }
  s.finding = row.text("finding");
  const FindingTemplate* finding = &finding_named(row, s.finding, findings);
  judgement(row, s);
  if (row.has("values")) {
    const JsonView values = row.object("values");
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!values.value(i).is_string()) {
        row.fail("\"values\" must map names to strings");
      }
      s.values.emplace_back(values.key(i), values.value(i).string());
    }
  }
  const auto patterns = row.texts("patterns");
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const std::string pwhere = fmt::format("{} patterns[{}]", row.where(), i);
    auto re = Regex::compile(patterns[i]);
    if (!re) {
      throw Invalid{fmt::format("{}: {}", pwhere, re.error().message)};
    }
    if (re->required_literal().size() < k_min_signature_literal) {
      throw Invalid{
          fmt::format("{}: needs a literal of at least {} characters outside any group "
                      "(the prefilter looks for it)",
                      pwhere,
                      k_min_signature_literal)};
    }
    for (const std::string& param : finding->params) {
      bool given = re->group_index(param) != 0
                   || std::any_of(s.values.begin(), s.values.end(), [&](const auto& v) {
                        return v.first == param;
                      });
      if (!given) {
        throw Invalid{
            fmt::format("{}: finding {} needs \"{}\": capture it as (?<{}>...) or "
                        "give it in \"values\"",
                        pwhere,
                        s.finding,
                        param,
                        param)};
      }
    }
    s.patterns.push_back(std::move(*re));
  }
  s.explained_by = row.optional_texts("explained_by");
  for (const std::string& id : s.explained_by) {
    bool known = std::any_of(
        findings.begin(), findings.end(), [&](const FindingTemplate& f) { return f.id == id; });
    if (!known) {
      row.fail(fmt::format("explained_by \"{}\" is not in findings.json", id));
    }
  }
  s.examples = row.texts("examples");
  s.alternatives = parse_alternatives(row, s, findings);
  s.likely = parse_likely(row, s, findings);
  s.prefers = parse_prefers(row, s, findings);
  s.source = row.text("source");
  return s;
}

std::vector<std::string>
names_from(const JsonRow& row, const char* field, const std::vector<std::string_view>& known) {
  std::vector<std::string> out = row.optional_texts(field);
  for (const std::string& v : out) {
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      row.fail(fmt::format("\"{}\": \"{}\" is not one of the known names", field, v));
    }
  }
  return out;
}

// A loader_rules row: a signature without patterns, matched by explain/'s loader-message parser.
Signature parse_loader_row(JsonRow row, const std::vector<FindingTemplate>& findings) {
  row.only({"id",
            "finding",
            "role",
            "confidence",
            "platform",
            "roles",
            "kinds",
            "names",
            "cudnn_major",
            "cudnn_since",
            "explained_by",
            "examples",
            "alternatives",
            "source"});
  Signature s;
  s.id = row.text("id");
  row.name(s.id);
  if (!valid_id(s.id) || s.id.rfind("loader.", 0) != 0) {
    row.fail("\"id\" must start with \"loader.\" and be lower-case letters, digits, '_' and '.'");
  }
  s.finding = row.text("finding");
  const FindingTemplate& finding = finding_named(row, s.finding, findings);
  const auto& supplied = loader_fields();
  for (const std::string& param : finding.params) {
    if (std::find(supplied.begin(), supplied.end(), param) == supplied.end()) {
      row.fail(fmt::format(
          "finding {} needs \"{}\", which a loader match does not supply", s.finding, param));
    }
  }
  judgement(row, s);
  LoaderRule rule;
  rule.roles = names_from(row, "roles", loader_role_names());
  rule.kinds = names_from(row, "kinds", loader_kind_names());
  rule.names = row.optional_texts("names");
  for (const std::string& n : rule.names) {
    if (n.empty() || std::any_of(n.begin(), n.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
      row.fail("\"names\" are non-empty lower-case prefixes");
    }
  }
  rule.cudnn_major = static_cast<unsigned>(row.optional_number("cudnn_major", 99).value_or(0));
  rule.cudnn_since = row.optional_text("cudnn_since");
  if (!rule.cudnn_since.empty()) {
    const auto since = Version::parse(rule.cudnn_since);
    if (!since || rule.cudnn_major == 0 || since->major() != rule.cudnn_major) {
      row.fail("\"cudnn_since\" is a version (\"8.3\") of the row's \"cudnn_major\"");
    }
  }
  s.loader = std::move(rule);
  s.explained_by = row.optional_texts("explained_by");
  for (const std::string& id : s.explained_by) {
    finding_named(row, id, findings);
  }
  s.examples = row.texts("examples");
  s.alternatives = parse_alternatives(row, s, findings);
  s.source = row.text("source");
  return s;
}

} // namespace

Expected<std::vector<Signature>>
parse_signatures_doc(const KbDoc& doc, const std::vector<FindingTemplate>& findings) {
  std::vector<Signature> out;
  try {
    const JsonRow header = file_header(doc.root, "signatures", doc.name);
    const JsonRows rows = header.rows("signatures");
    const JsonRows loader_rows =
        header.has("loader_rules") ? header.rows("loader_rules") : JsonRows();
    out.reserve(rows.size() + loader_rows.size());
    std::set<std::string> seen;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Signature s = parse_row(rows[i], findings);
      if (!seen.insert(s.id).second) {
        throw Invalid{fmt::format("{}: signatures[{}] ({}): duplicate id", doc.name, i, s.id)};
      }
      out.push_back(std::move(s));
    }
    for (std::size_t i = 0; i < loader_rows.size(); ++i) {
      Signature s = parse_loader_row(loader_rows[i], findings);
      if (!seen.insert(s.id).second) {
        throw Invalid{fmt::format("{}: loader_rules[{}] ({}): duplicate id", doc.name, i, s.id)};
      }
      out.push_back(std::move(s));
    }
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  }
  return out;
}

Expected<std::vector<Signature>> parse_signatures(std::string_view json_text,
                                                  const std::string& file,
                                                  const std::vector<FindingTemplate>& findings) {
  const auto parsed = parse_texts({{file, std::string(json_text)}});
  if (!parsed) {
    return tl::unexpected(parsed.error());
  }
  return parse_signatures_doc(parsed->docs.front(), findings);
}

const std::vector<std::string_view>& loader_role_names() {
  static const std::vector<std::string_view> names{"unknown",
                                                   "cudnn",
                                                   "cudnn_sublibrary",
                                                   "zlib",
                                                   "cuda_runtime",
                                                   "cuda_library",
                                                   "driver",
                                                   "nvml",
                                                   "msvc_runtime",
                                                   "openmp",
                                                   "tensorrt",
                                                   "framework",
                                                   "python_extension",
                                                   "gpu_module"};
  return names;
}

const std::vector<std::string_view>& loader_kind_names() {
  static const std::vector<std::string_view> names{"unknown",
                                                   "not_found",
                                                   "dependency_missing",
                                                   "procedure_missing",
                                                   "access_denied",
                                                   "wrong_architecture",
                                                   "invalid_image",
                                                   "init_failed",
                                                   "out_of_memory"};
  return names;
}

const std::vector<std::string_view>& loader_fields() {
  static const std::vector<std::string_view> names{"lib", "kind"};
  return names;
}

std::vector<std::string> unmatched_examples(const std::vector<Signature>& signatures) {
  std::vector<std::string> out;
  for (const Signature& s : signatures) {
    if (s.loader) {
      continue; // matched by the loader parser, not by patterns
    }
    for (const std::string& example : s.examples) {
      bool hit = std::any_of(s.patterns.begin(), s.patterns.end(), [&](const Regex& re) {
        return re.search(example);
      });
      if (!hit) {
        out.push_back(fmt::format("{}: {}", s.id, example));
      }
    }
  }
  return out;
}

} // namespace doctor::kb
