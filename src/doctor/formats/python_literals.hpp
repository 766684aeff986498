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

// The module-level names of Python source text as they stand once it has run, as far as that is
// known without running it.
struct PyAssignments {
  std::map<std::string, PyLiteral> values;    // names whose last binding gave a known literal
  std::map<std::string, std::string> unknown; // names bound otherwise: why the value is not known
};

// Reads the module-level statements of Python source text in order. Evaluated: `name = <literal>`,
// `name: <annotation> = <literal>`, `a = b = <literal>`, `name = other_name` (when other_name is
// known), `a, b = (<literal>, <literal>)`, and `name += <string>` on a string. Every other way a
// statement binds or changes a name makes that name unknown (with the reason) until a later
// evaluated assignment: a value that is not a literal (`__version__ = _get_version_string()`),
// another augmented assignment, unpacking, `a[k] = …`, `a.b = …`, `a.update(…)`, import, def,
// class, del, `for`/`with … as`, `:=`, an assignment inside an if/for/while/try/with block, and
// `global a` inside a function; `from m import *`, globals(), vars(), exec() and setattr() make
// every name known so far unknown. Never an earlier value in place of a later one.
PyAssignments read_python_assignments(std::string_view source);

// The known values of read_python_assignments.
std::map<std::string, PyLiteral> parse_python_assignments(std::string_view source);

} // namespace doctor::formats
