// SPDX-License-Identifier: MIT
#include <doctor/kb/json_rows.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <algorithm>
#include <utility>

namespace doctor::kb {

Json parse_json_file(std::string_view text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw Invalid{fmt::format("{}: not JSON ({})", file, e.what())};
  }
}

JsonRow::JsonRow(const Json& value, std::string where)
    : m_value(&value)
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
  for (const auto& item : m_value->items()) {
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      fail(fmt::format("unknown field \"{}\"", item.key()));
    }
  }
}

bool JsonRow::has(const char* field) const {
  return m_value->contains(field);
}

// A whole number >= 0 is number_unsigned when parsed from text, and may be number_integer in a
// document built in memory; both are the same number.
const Json& JsonRow::typed(const char* field, Json::value_t type) const {
  if (!has(field)) {
    fail(fmt::format("missing field \"{}\"", field));
  }
  const Json& value = m_value->at(field);
  const bool ok =
      value.type() == type
      || (type == Json::value_t::number_unsigned && value.type() == Json::value_t::number_integer
          && value.get<std::int64_t>() >= 0)
      || (type == Json::value_t::number_integer && value.type() == Json::value_t::number_unsigned);
  if (!ok) {
    fail(fmt::format("field \"{}\" has the wrong type", field));
  }
  return value;
}

std::string JsonRow::text(const char* field) const {
  std::string s = typed(field, Json::value_t::string).get<std::string>();
  if (s.empty()) {
    fail(fmt::format("field \"{}\" is empty", field));
  }
  return s;
}

std::string JsonRow::optional_text(const char* field) const {
  return has(field) ? text(field) : std::string();
}

std::uint64_t JsonRow::number(const char* field, std::uint64_t max) const {
  const Json& value = typed(field, Json::value_t::number_unsigned);
  const auto n = value.is_number_unsigned() ? value.get<std::uint64_t>()
                                            : static_cast<std::uint64_t>(value.get<std::int64_t>());
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
  const Json& value = typed(field, Json::value_t::number_integer);
  if (value.is_number_unsigned()
      && value.get<std::uint64_t>()
             > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(fmt::format("field \"{}\" is out of range", field));
  }
  return value.get<std::int64_t>();
}

bool JsonRow::flag(const char* field) const {
  return typed(field, Json::value_t::boolean).get<bool>();
}

bool JsonRow::optional_flag(const char* field, bool fallback) const {
  return has(field) ? flag(field) : fallback;
}

std::vector<std::string> JsonRow::string_array(const char* field) const {
  const Json& list = typed(field, Json::value_t::array);
  std::vector<std::string> out;
  out.reserve(list.size());
  for (const Json& v : list) {
    if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
      fail(fmt::format("field \"{}\" must hold non-empty strings", field));
    }
    out.push_back(v.get<std::string>());
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

const Json& JsonRow::array(const char* field) const {
  return typed(field, Json::value_t::array);
}

const Json& JsonRow::object(const char* field) const {
  return typed(field, Json::value_t::object);
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

std::string file_kind(const Json& doc, const std::string& file) {
  if (!doc.is_object() || !doc.contains("kind") || !doc["kind"].is_string()) {
    throw Invalid{fmt::format("{}: missing field \"kind\"", file)};
  }
  return doc["kind"].get<std::string>();
}

JsonRow file_header(const Json& doc, std::string_view kind, const std::string& file) {
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
