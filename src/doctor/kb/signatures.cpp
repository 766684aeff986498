// SPDX-License-Identifier: MIT
#include <doctor/kb/signatures.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

using Json = nlohmann::json;

struct Invalid {
  std::string message;
};

const Json& typed(const Json& row, const char* name, Json::value_t type, const std::string& where) {
  if (!row.is_object() || !row.contains(name)) {
    throw Invalid{fmt::format("{}: missing field \"{}\"", where, name)};
  }
  const Json& v = row.at(name);
  bool ok =
      v.type() == type
      || (type == Json::value_t::number_integer && v.type() == Json::value_t::number_unsigned);
  if (!ok) {
    throw Invalid{fmt::format("{}: field \"{}\" has the wrong type", where, name)};
  }
  return v;
}

std::string text(const Json& row, const char* name, const std::string& where) {
  std::string s = typed(row, name, Json::value_t::string, where).get<std::string>();
  if (s.empty()) {
    throw Invalid{fmt::format("{}: field \"{}\" is empty", where, name)};
  }
  return s;
}

std::vector<std::string>
strings(const Json& row, const char* name, bool required, const std::string& where) {
  std::vector<std::string> out;
  if (!required && !row.contains(name)) {
    return out;
  }
  for (const Json& v : typed(row, name, Json::value_t::array, where)) {
    if (!v.is_string() || v.get<std::string>().empty()) {
      throw Invalid{fmt::format("{}: \"{}\" must hold non-empty strings", where, name)};
    }
    out.push_back(v.get<std::string>());
  }
  if (required && out.empty()) {
    throw Invalid{fmt::format("{}: \"{}\" is empty", where, name)};
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

const std::set<std::string, std::less<>> k_known_fields = {"id",
                                                           "finding",
                                                           "role",
                                                           "confidence",
                                                           "platform",
                                                           "patterns",
                                                           "values",
                                                           "explained_by",
                                                           "examples",
                                                           "source"};

Signature parse_row(const Json& row,
                    const std::string& where0,
                    const std::vector<FindingTemplate>& findings) {
  if (!row.is_object()) {
    throw Invalid{fmt::format("{}: not a JSON object", where0)};
  }
  for (const auto& item : row.items()) {
    if (k_known_fields.count(item.key()) == 0) {
      throw Invalid{fmt::format("{}: unknown field \"{}\"", where0, item.key())};
    }
  }
  Signature s;
  s.id = text(row, "id", where0);
  const std::string where = fmt::format("{} ({})", where0, s.id);
  if (!valid_id(s.id)) {
    throw Invalid{fmt::format("{}: \"id\" must be lower-case letters, digits, '_' and '.'", where)};
  }
  s.finding = text(row, "finding", where);
  auto finding = std::find_if(findings.begin(), findings.end(), [&](const FindingTemplate& f) {
    return f.id == s.finding;
  });
  if (finding == findings.end()) {
    throw Invalid{fmt::format("{}: finding \"{}\" is not in findings.json", where, s.finding)};
  }
  const std::string role = text(row, "role", where);
  if (role == "cause") {
    s.role = SignatureRole::cause;
  } else if (role == "symptom") {
    s.role = SignatureRole::symptom;
  } else if (role == "noise") {
    s.role = SignatureRole::noise;
  } else if (role == "context") {
    s.role = SignatureRole::context;
  } else {
    throw Invalid{fmt::format("{}: \"role\" must be cause, symptom, noise or context", where)};
  }
  const Json& conf = typed(row, "confidence", Json::value_t::number_integer, where);
  s.confidence = conf.get<int>();
  if (s.confidence < 1 || s.confidence > 100) {
    throw Invalid{fmt::format("{}: \"confidence\" must be 1..100", where)};
  }
  s.platform = text(row, "platform", where);
  if (s.platform != "windows" && s.platform != "linux" && s.platform != "any") {
    throw Invalid{fmt::format("{}: \"platform\" must be windows, linux or any", where)};
  }
  if (row.contains("values")) {
    for (const auto& item : typed(row, "values", Json::value_t::object, where).items()) {
      if (!item.value().is_string()) {
        throw Invalid{fmt::format("{}: \"values\" must map names to strings", where)};
      }
      s.values.emplace_back(item.key(), item.value().get<std::string>());
    }
  }
  const auto patterns = strings(row, "patterns", true, where);
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const std::string pwhere = fmt::format("{} patterns[{}]", where, i);
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
  s.explained_by = strings(row, "explained_by", false, where);
  for (const std::string& id : s.explained_by) {
    bool known = std::any_of(
        findings.begin(), findings.end(), [&](const FindingTemplate& f) { return f.id == id; });
    if (!known) {
      throw Invalid{fmt::format("{}: explained_by \"{}\" is not in findings.json", where, id)};
    }
  }
  s.examples = strings(row, "examples", true, where);
  s.source = text(row, "source", where);
  return s;
}

} // namespace

Expected<std::vector<Signature>> parse_signatures(std::string_view json_text,
                                                  const std::string& file,
                                                  const std::vector<FindingTemplate>& findings) {
  std::vector<Signature> out;
  try {
    Json doc;
    try {
      doc = Json::parse(json_text);
    } catch (const Json::parse_error& e) {
      throw Invalid{fmt::format("{}: not JSON ({})", file, e.what())};
    }
    if (!doc.is_object() || text(doc, "spec", file) != k_spec) {
      throw Invalid{fmt::format("{}: \"spec\" must be \"{}\"", file, k_spec)};
    }
    if (text(doc, "kind", file) != "signatures") {
      throw Invalid{fmt::format("{}: \"kind\" must be \"signatures\"", file)};
    }
    const Json& rows = typed(doc, "signatures", Json::value_t::array, file);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Signature s = parse_row(rows[i], fmt::format("{}: signatures[{}]", file, i), findings);
      if (!seen.insert(s.id).second) {
        throw Invalid{fmt::format("{}: signatures[{}] ({}): duplicate id", file, i, s.id)};
      }
      out.push_back(std::move(s));
    }
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  } catch (const Json::exception& e) {
    return make_error(ErrorCode::parse, fmt::format("{}: {}", file, e.what()));
  }
  return out;
}

std::vector<std::string> unmatched_examples(const std::vector<Signature>& signatures) {
  std::vector<std::string> out;
  for (const Signature& s : signatures) {
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
