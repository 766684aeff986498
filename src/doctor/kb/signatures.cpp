// SPDX-License-Identifier: MIT
#include <doctor/kb/json_rows.hpp>
#include <doctor/kb/kb_docs.hpp>
#include <doctor/kb/signatures.hpp>

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

bool valid_id(std::string_view id) {
  if (id.empty() || id.front() == '.' || id.back() == '.') {
    return false;
  }
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
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
            "source"});
  Signature s;
  s.id = row.text("id");
  row.name(s.id);
  if (!valid_id(s.id)) {
    row.fail("\"id\" must be lower-case letters, digits, '_' and '.'");
  }
  s.finding = row.text("finding");
  auto finding = std::find_if(findings.begin(), findings.end(), [&](const FindingTemplate& f) {
    return f.id == s.finding;
  });
  if (finding == findings.end()) {
    row.fail(fmt::format("finding \"{}\" is not in findings.json", s.finding));
  }
  const std::string role = row.text("role");
  if (role == "cause") {
    s.role = SignatureRole::cause;
  } else if (role == "symptom") {
    s.role = SignatureRole::symptom;
  } else if (role == "noise") {
    s.role = SignatureRole::noise;
  } else if (role == "context") {
    s.role = SignatureRole::context;
  } else {
    row.fail("\"role\" must be cause, symptom, noise or context");
  }
  const std::int64_t confidence = row.integer("confidence");
  if (confidence < 1 || confidence > 100) {
    row.fail("\"confidence\" must be 1..100");
  }
  s.confidence = static_cast<int>(confidence);
  s.platform = row.text("platform");
  if (s.platform != "windows" && s.platform != "linux" && s.platform != "any") {
    row.fail("\"platform\" must be windows, linux or any");
  }
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
  s.source = row.text("source");
  return s;
}

} // namespace

Expected<std::vector<Signature>>
parse_signatures_doc(const KbDoc& doc, const std::vector<FindingTemplate>& findings) {
  std::vector<Signature> out;
  try {
    const JsonRows rows = file_header(doc.root, "signatures", doc.name).rows("signatures");
    out.reserve(rows.size());
    std::set<std::string> seen;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Signature s = parse_row(rows[i], findings);
      if (!seen.insert(s.id).second) {
        throw Invalid{fmt::format("{}: signatures[{}] ({}): duplicate id", doc.name, i, s.id)};
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
