// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace doctor::facts {

// What a bounded parse admits. Each bound is checked while the text is read, so a document that
// breaks one costs no more memory than the part read before it.
struct JsonLimits {
  std::size_t max_bytes = 0;   // of the text
  std::size_t max_depth = 0;   // nested arrays and objects
  std::size_t max_string = 0;  // bytes of one string or key
  std::size_t max_members = 0; // of one object
  std::size_t max_items = 0;   // of one array
  std::size_t max_values = 0;  // in the whole document: scalars, arrays and objects
  std::size_t max_objects = 0; // in the whole document
  bool integers_only = false;  // a number with a fraction or an exponent is an error
};

// A parsed document whose destruction never allocates. nlohmann's ~basic_json is noexcept and
// flattens a non-empty container onto a heap-allocated stack first; under a memory limit that
// allocation throws std::bad_alloc inside the destructor and the process aborts. This one empties
// its containers from the leaves up (its depth is bounded, so the recursion is too) before
// nlohmann's destructor runs on empty ones.
class BoundedJson {
public:
  BoundedJson() = default;
  explicit BoundedJson(nlohmann::ordered_json root) noexcept
      : m_root(std::move(root)) {}
  BoundedJson(BoundedJson&&) noexcept = default;
  BoundedJson& operator=(BoundedJson&& other) noexcept;
  BoundedJson(const BoundedJson&) = delete;
  BoundedJson& operator=(const BoundedJson&) = delete;
  ~BoundedJson();

  nlohmann::ordered_json& root() { return m_root; }

private:
  nlohmann::ordered_json m_root;
};

// Empties every container of `j` from the leaves up without allocating. Precondition: `j` is no
// deeper than a JsonLimits::max_depth (the recursion goes that deep).
void release_json(nlohmann::ordered_json& j) noexcept;

// Appends `key` to a path of a document, for a message: ".name" (no dot at the start), or
// ["…"] (escaped to printable ASCII, cut) for a key that is not a plain name.
void append_path_key(std::string& path, std::string_view key);

// Parses `text` as one JSON document within `limits`. Returns ErrorCode::too_large if the text is
// longer than max_bytes, and ErrorCode::parse if it is not JSON or breaks a bound, with a message
// naming where ("binaries[3].path: a string longer than 1048576 bytes"; a number that does not
// fit even a double is "os.memory_total.value: the number 1e999999 is out of range"). Duplicate
// keys are an error.
Expected<BoundedJson> parse_bounded_json(std::string_view text, const JsonLimits& limits);

} // namespace doctor::facts
