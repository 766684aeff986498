// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// A reader of Python literals for the small files that record how a framework was built
// (python_files.hpp). A tokenizer that understands literals only (strings, numbers,
// True/False/None, lists, tuples, sets, dicts and `collections.OrderedDict([...])`) splits the
// text into statements; nothing is ever evaluated or imported. Pure functions over text: any bytes
// are accepted (truncated, binary, CRLF, huge lines), the work is linear in the input, nothing
// throws, and what cannot be read is left out instead of guessed.
namespace doctor::formats {

enum class PyKind { none, boolean, number, string, sequence, mapping };

// A Python literal. A list, tuple or set is a `sequence`; a dict (also written
// `OrderedDict([(key, value), ...])` or `dict([...])`) is a `mapping` whose keys are spelled as
// text ("cuda_version", "3", "True") in `keys`, parallel to the values in `items`.
struct PyLiteral {
  PyKind kind = PyKind::none;
  bool boolean = false;
  std::string text;              // a string's decoded contents, or a number as written ("-1.5")
  std::vector<PyLiteral> items;  // elements of a sequence, values of a mapping
  std::vector<std::string> keys; // keys of a mapping

  // Returns the value of `key` in a mapping (the last one if repeated), or nullptr.
  const PyLiteral* find(std::string_view key) const;

  bool operator==(const PyLiteral&) const = default;
};

// Parses `text` as one Python literal expression (comments and line breaks inside brackets are
// allowed). Returns nullopt for anything else: names, calls other than OrderedDict/dict over
// pairs, operators, f-strings, nesting deeper than 32 levels or more than 100000 values.
std::optional<PyLiteral> parse_python_literal(std::string_view text);

// Returns the module-level assignments `name = <literal>` and `name: <annotation> = <literal>` of
// Python source text; a later assignment replaces an earlier one. Assignments whose value is not
// a literal (`__version__ = _get_version_string()`), indented code, docstrings, comments and
// statements of more than 100000 tokens are skipped.
std::map<std::string, PyLiteral> parse_python_assignments(std::string_view source);

} // namespace doctor::formats
