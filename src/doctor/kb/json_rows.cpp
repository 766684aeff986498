// SPDX-License-Identifier: MIT
#include <doctor/kb/json_rows.hpp>
#include <doctor/kb/kb_docs.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace doctor::kb {

std::string parse_json_file(std::string_view text, const std::string& file) {
  // nlohmann::json keeps the last of two equal keys in an object; an edited file with a key
  // twice (two "confidence" fields in one row) would lose one silently, so it is refused.
  std::vector<std::vector<std::string>> keys; // of each object being parsed
  std::string twice;
  const Json::parser_callback_t unique = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
    case Json::parse_event_t::object_start:
      keys.emplace_back();
      break;
    case Json::parse_event_t::object_end:
      if (!keys.empty()) {
        keys.pop_back();
      }
      break;
    case Json::parse_event_t::key:
      if (!keys.empty() && twice.empty()) {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (std::find(keys.back().begin(), keys.back().end(), key) != keys.back().end()) {
          twice = key;
        }
        keys.back().push_back(key);
      }
      break;
    default:
      break;
    }
    return true;
  };
  Json doc;
  try {
    doc = Json::parse(text, unique);
  } catch (const Json::parse_error& e) {
    throw Invalid{fmt::format("{}: not JSON ({})", file, e.what())};
  }
  if (!twice.empty()) {
    throw Invalid{fmt::format("{}: the key \"{}\" appears twice in one object", file, twice)};
  }
  return encode_tape(doc);
}

Expected<ParsedTexts> parse_texts(const std::vector<std::pair<std::string, std::string>>& files) {
  ParsedTexts out;
  // Reserved: a document points into its tape, which must not move.
  out.tapes.reserve(files.size());
  out.docs.reserve(files.size());
  try {
    for (const auto& [name, text] : files) {
      out.tapes.push_back(parse_json_file(text, name));
      out.docs.push_back(KbDoc{name, tape_root(out.tapes.back())});
    }
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  }
  return out;
}

JsonRow::JsonRow(JsonView value, std::string where)
    : m_value(value)
    , m_where(std::move(where)) {
  if (!value.is_object()) {
    fail("not a JSON object");
  }
}

void JsonRow::name(std::string_view label) {
  m_where += fmt::format(" ({})", label);
}

void JsonRow::fail(std::string_view message) const {
  throw Invalid{fmt::format("{}: {}", m_where, message)};
}

void JsonRow::only(std::initializer_list<std::string_view> known) const {
  for (std::size_t i = 0; i < m_value.size(); ++i) {
    if (std::find(known.begin(), known.end(), m_value.key(i)) == known.end()) {
      fail(fmt::format("unknown field \"{}\"", m_value.key(i)));
    }
  }
}

bool JsonRow::has(const char* field) const {
  return m_value.find(field).has_value();
}

namespace {

// Whether a value of type `have` is read as `want`. The tape holds every whole number >= 0 as
// unsigned (json_tape.hpp), so an integer field takes either kind; true and false are one kind.
bool same_kind(JsonType want, JsonType have) {
  const auto boolean = [](JsonType t) {
    return t == JsonType::boolean_true || t == JsonType::boolean_false;
  };
  return want == have || (want == JsonType::number_integer && have == JsonType::number_unsigned)
         || (boolean(want) && boolean(have));
}

} // namespace

JsonView JsonRow::typed(const char* field, JsonType type) const {
  const auto value = m_value.find(field);
  if (!value) {
    fail(fmt::format("missing field \"{}\"", field));
  }
  if (!same_kind(type, value->type())) {
    fail(fmt::format("field \"{}\" has the wrong type", field));
  }
  return *value;
}

std::string JsonRow::text(const char* field) const {
  std::string s(typed(field, JsonType::string).string());
  if (s.empty()) {
    fail(fmt::format("field \"{}\" is empty", field));
  }
  return s;
}

std::string JsonRow::optional_text(const char* field) const {
  return has(field) ? text(field) : std::string();
}

std::uint64_t JsonRow::number(const char* field, std::uint64_t max) const {
  const std::uint64_t n = typed(field, JsonType::number_unsigned).number_unsigned();
  if (n > max) {
    fail(fmt::format("field \"{}\" is out of range", field));
  }
  return n;
}

std::optional<std::uint64_t> JsonRow::optional_number(const char* field, std::uint64_t max) const {
  if (!has(field)) {
    return std::nullopt;
  }
  return number(field, max);
}

std::int64_t JsonRow::integer(const char* field) const {
  const JsonView value = typed(field, JsonType::number_integer);
  if (value.type() == JsonType::number_unsigned
      && value.number_unsigned()
             > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(fmt::format("field \"{}\" is out of range", field));
  }
  return value.number_integer();
}

bool JsonRow::flag(const char* field) const {
  return typed(field, JsonType::boolean_true).boolean();
}

bool JsonRow::optional_flag(const char* field, bool fallback) const {
  return has(field) ? flag(field) : fallback;
}

std::vector<std::string> JsonRow::string_array(const char* field) const {
  const JsonView list = typed(field, JsonType::array);
  std::vector<std::string> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonView v = list[i];
    if (!v.is_string() || v.string().empty()) {
      fail(fmt::format("field \"{}\" must hold non-empty strings", field));
    }
    out.emplace_back(v.string());
  }
  return out;
}

std::vector<std::string> JsonRow::texts(const char* field) const {
  std::vector<std::string> out = string_array(field);
  if (out.empty()) {
    fail(fmt::format("field \"{}\" is empty", field));
  }
  return out;
}

std::vector<std::string> JsonRow::optional_texts(const char* field) const {
  return has(field) ? string_array(field) : std::vector<std::string>();
}

JsonView JsonRow::array(const char* field) const {
  return typed(field, JsonType::array);
}

JsonView JsonRow::object(const char* field) const {
  return typed(field, JsonType::object);
}

JsonRows JsonRow::rows(const char* table) const {
  return JsonRows(array(table), fmt::format("{}: {}", m_where, table));
}

JsonRows JsonRow::items(const char* field, bool required) const {
  if (!required && !has(field)) {
    return {};
  }
  return JsonRows(array(field), fmt::format("{} {}", m_where, field));
}

JsonRow JsonRows::operator[](std::size_t i) const {
  return JsonRow((*m_array)[i], fmt::format("{}[{}]", m_prefix, i));
}

std::string file_kind(JsonView doc, const std::string& file) {
  const auto kind = doc.is_object() ? doc.find("kind") : std::nullopt;
  if (!kind || !kind->is_string()) {
    throw Invalid{fmt::format("{}: missing field \"kind\"", file)};
  }
  return std::string(kind->string());
}

JsonRow file_header(JsonView doc, std::string_view kind, const std::string& file) {
  JsonRow top(doc, file);
  if (top.text("spec") != k_spec) {
    top.fail(fmt::format("\"spec\" must be \"{}\"", k_spec));
  }
  if (top.text("kind") != kind) {
    top.fail(fmt::format("\"kind\" must be \"{}\"", kind));
  }
  return top;
}

} // namespace doctor::kb
