// SPDX-License-Identifier: MIT
// Private to kb/: the one reader of the knowledge base's JSON rows, used by every file's parser
// (knowledge_base.cpp, compat_parse.cpp, signatures.cpp, crash_catalog.cpp), so that every file
// follows the same rules and its errors name the same things: the file, the row (its index, and
// its id once known) and the field.
//
// The rules: a row is a JSON object. A required field is present; a present field, required or
// optional, has its type: a text is a non-empty string, a number a whole number >= 0, an integer
// a whole number of either sign, a flag true or false, a list of texts an array of non-empty
// strings. An optional field is read only when present: an absent one gives "", nullopt or an
// empty list, while a present null, "" or other value of the wrong type is an error. Which fields
// a row may hold at all is the table's choice (JsonRow::only).
#pragma once

#include <doctor/kb/json_tape.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doctor::kb {

using Json = nlohmann::json;

// A validation failure inside one file: thrown by the readers below, caught by the file's parse
// function, which returns an Error with this message.
struct Invalid {
  std::string message;
};

// Parses the text of `file` and returns its tape (json_tape.hpp), which the readers below walk;
// throws Invalid "FILE: not JSON (…)".
std::string parse_json_file(std::string_view text, const std::string& file);

// One JSON object of a knowledge-base file (a file's top level, a row of one of its tables, an
// object inside a row), with the place that names it in errors: "FILE", "FILE: TABLE[i]",
// "FILE: TABLE[i] (ID)", "FILE: TABLE[i] (ID) fixes[k]". Valid while the value's tape is.
class JsonRows;

class JsonRow {
public:
  // Throws Invalid "WHERE: not a JSON object" unless `value` is an object.
  JsonRow(JsonView value, std::string where);

  const std::string& where() const { return m_where; }

  // Adds `label` (the row's id, or what identifies it) to the row's name for the errors that
  // follow: "FILE: TABLE[i] (LABEL)".
  void name(std::string_view label);

  // Throws Invalid "WHERE: MESSAGE".
  [[noreturn]] void fail(std::string_view message) const;

  // Throws Invalid "WHERE: unknown field \"F\"" for the first field not in `known`: a misspelt
  // optional field would otherwise be ignored silently.
  void only(std::initializer_list<std::string_view> known) const;

  // True if field `field` is present (whatever its value).
  bool has(const char* field) const;

  // A required text. Throws "missing field \"F\"", "field \"F\" has the wrong type" or
  // "field \"F\" is empty".
  std::string text(const char* field) const;
  // An optional text: "" when absent; when present, as text().
  std::string optional_text(const char* field) const;

  // A required whole number 0..`max`. Throws "missing field", "has the wrong type" (a negative
  // or fractional number, or not a number) or "field \"F\" is out of range".
  std::uint64_t number(const char* field,
                       std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  // An optional whole number: nullopt when absent; when present, as number().
  std::optional<std::uint64_t>
  optional_number(const char* field,
                  std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;

  // A required whole number of either sign. Throws "missing field", "has the wrong type" (a
  // fractional number, or not a number) or "is out of range" (past INT64_MAX).
  std::int64_t integer(const char* field) const;

  // A required true or false. Throws "missing field" or "has the wrong type".
  bool flag(const char* field) const;
  // An optional flag: `fallback` when absent; when present, as flag().
  bool optional_flag(const char* field, bool fallback) const;

  // A required list of texts, with at least one. Throws "missing field", "has the wrong type",
  // "field \"F\" is empty" or "field \"F\" must hold non-empty strings".
  std::vector<std::string> texts(const char* field) const;
  // An optional list of texts: empty when absent or []; when present, an array of texts.
  std::vector<std::string> optional_texts(const char* field) const;

  // A required array. Throws "missing field" or "has the wrong type".
  JsonView array(const char* field) const;
  // A required object. Throws "missing field" or "has the wrong type".
  JsonView object(const char* field) const;

  // The rows of table `table`, a required array of objects, named "WHERE: TABLE[i]" (for the
  // tables of a file's top level).
  JsonRows rows(const char* table) const;
  // The objects of array `field` of this row, named "WHERE FIELD[i]"; an absent optional field
  // gives none.
  JsonRows items(const char* field, bool required = true) const;

private:
  JsonView typed(const char* field, JsonType type) const;
  std::vector<std::string> string_array(const char* field) const;

  JsonView m_value;
  std::string m_where;
};

// The objects of one JSON array, each read as a JsonRow when asked for, so that the errors come
// in the order of the file.
class JsonRows {
public:
  JsonRows() = default;
  JsonRows(JsonView array, std::string prefix)
      : m_array(array)
      , m_prefix(std::move(prefix)) {}

  std::size_t size() const { return m_array ? m_array->size() : 0; }
  bool empty() const { return size() == 0; }

  // Row `i`, named "PREFIX[i]"; throws Invalid "PREFIX[i]: not a JSON object" unless it is one.
  JsonRow operator[](std::size_t i) const;

private:
  std::optional<JsonView> m_array;
  std::string m_prefix;
};

// The kind of knowledge-base file `file`, which says how to read it: the string field "kind" of
// its top level. Throws Invalid "FILE: missing field \"kind\"" without one.
std::string file_kind(JsonView doc, const std::string& file);

// The top level of `file`, which must be of kind `kind`: an object whose "spec" is k_spec and
// whose "kind" is `kind`. Throws "FILE: not a JSON object", "FILE: \"spec\" must be \"…\"" or
// "FILE: \"kind\" must be \"KIND\"" (or the text() errors of either field).
JsonRow file_header(JsonView doc, std::string_view kind, const std::string& file);

} // namespace doctor::kb
