// SPDX-License-Identifier: MIT
// Private to kb/: the knowledge base's compiled form. A JSON document as a tape of 32-bit
// little-endian words that the readers of json_rows.hpp walk in place, so that the embedded
// knowledge base costs no text parsing at start-up. cmake/embed_kb.py writes the tapes of the
// shipped files at build time; encode_tape() writes the same bytes from a parsed document (for
// --kb-dir and the tests).
//
// Layout: a value is a node at a word offset; the root is at offset 0. Its first word is its type
// (JsonType); then, by type: nothing (null, false, true); the 64-bit value in two words (unsigned,
// integer, float); the byte length and the UTF-8 bytes, padded to a word (string); the count and
// the offset of each element (array); the count and, for each member in order of the bytes of its
// key, the offset of the key (a string node) and of the value (object). Children follow their
// parent, in order.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace doctor::kb {

enum class JsonType : std::uint32_t {
  null = 0,
  boolean_false = 1,
  boolean_true = 2,
  number_unsigned = 3,
  number_integer = 4,
  number_float = 5,
  string = 6,
  array = 7,
  object = 8,
};

// One value of a tape. Cheap to copy; valid while the tape is. Every accessor expects a well-formed
// tape (one from cmake/embed_kb.py or encode_tape()) and the type it reads (check type() first).
class JsonView {
public:
  JsonView(std::string_view tape, std::uint32_t at)
      : m_tape(tape.data())
      , m_at(at) {}

  JsonType type() const { return static_cast<JsonType>(word(0)); }
  bool is_object() const { return type() == JsonType::object; }
  bool is_array() const { return type() == JsonType::array; }
  bool is_string() const { return type() == JsonType::string; }

  // The number of elements (array) or members (object).
  std::size_t size() const { return word(1); }
  // Element `i` of an array.
  JsonView operator[](std::size_t i) const { return at(word(2 + i)); }
  // The key and the value of member `i` of an object, in order of the keys' bytes.
  std::string_view key(std::size_t i) const { return at(word(2 + 2 * i)).string(); }
  JsonView value(std::size_t i) const { return at(word(3 + 2 * i)); }
  // The member of an object with key `key`, or nullopt.
  std::optional<JsonView> find(std::string_view key) const;

  std::string_view string() const { return {m_tape + 4 * (std::size_t{m_at} + 2), word(1)}; }
  bool boolean() const { return type() == JsonType::boolean_true; }
  std::uint64_t number_unsigned() const { return wide(); }
  std::int64_t number_integer() const { return static_cast<std::int64_t>(wide()); }
  double number_float() const;

private:
  std::uint32_t word(std::size_t i) const {
    std::uint32_t w = 0;
    std::memcpy(&w, m_tape + 4 * (m_at + i), sizeof w);
    return w;
  }
  std::uint64_t wide() const { return word(1) | (std::uint64_t{word(2)} << 32U); }
  JsonView at(std::uint32_t offset) const;

  const char* m_tape;
  std::uint32_t m_at;
};

// The root of `tape`.
inline JsonView tape_root(std::string_view tape) {
  return {tape, 0};
}

// Returns the tape of `doc`: the bytes cmake/embed_kb.py writes for the same document. A whole
// number >= 0 is written as unsigned whichever way nlohmann holds it.
std::string encode_tape(const nlohmann::json& doc);

} // namespace doctor::kb
