// SPDX-License-Identifier: MIT
#include <doctor/model/bounded_json.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace doctor::facts {

namespace {

using JsonValue = nlohmann::ordered_json;
// ordered_map is a std::vector of pairs; appending through the vector skips ordered_map's linear
// search for an equal key (duplicates are found once per object, when it ends).
using MemberVector = JsonValue::object_t::Container;

constexpr std::size_t k_max_key_in_path = 64;

bool plain_key(std::string_view key) {
  return !key.empty() && key.size() <= k_max_key_in_path
         && std::all_of(key.begin(), key.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                     || c == '_' || c == '-';
            });
}

// `key` as a JSON string of printable ASCII, cut: safe in a message whatever the key holds.
std::string quoted_key(std::string_view key) {
  return JsonValue(util::sanitize(key, k_max_key_in_path))
      .dump(-1, ' ', true, JsonValue::error_handler_t::replace);
}

// The SAX handler of parse_bounded_json: builds the document, one container open per frame, and
// stops the parse (returns false) at the first bound broken.
class BoundedBuilder {
public:
  explicit BoundedBuilder(const JsonLimits& limits)
      : m_limits(limits) {}
  BoundedBuilder(const BoundedBuilder&) = delete;
  BoundedBuilder& operator=(const BoundedBuilder&) = delete;
  ~BoundedBuilder() { release_json(m_root); }

  bool null() { return add(JsonValue(nullptr)) != nullptr; }
  bool boolean(bool v) { return add(JsonValue(v)) != nullptr; }
  bool number_integer(JsonValue::number_integer_t v) { return add(JsonValue(v)) != nullptr; }
  bool number_unsigned(JsonValue::number_unsigned_t v) { return add(JsonValue(v)) != nullptr; }
  bool number_float(JsonValue::number_float_t v, const JsonValue::string_t& text) {
    if (m_limits.integers_only) {
      return fail(fmt::format("{} is not an integer (every number here is a whole number)",
                              util::sanitize(text, 40)));
    }
    return add(JsonValue(v)) != nullptr;
  }
  bool string(JsonValue::string_t& s) {
    if (s.size() > m_limits.max_string) {
      return fail(fmt::format("a string longer than {} bytes", m_limits.max_string));
    }
    return add(JsonValue(std::move(s))) != nullptr;
  }
  bool binary(JsonValue::binary_t& /*unused*/) { return fail("binary data"); }
  bool key(JsonValue::string_t& k) {
    if (k.size() > m_limits.max_string) {
      return fail(fmt::format("a key longer than {} bytes", m_limits.max_string));
    }
    m_stack.back().key = std::move(k);
    m_stack.back().has_key = true;
    return true;
  }
  bool start_object(std::size_t /*unknown size*/) {
    if (++m_objects > m_limits.max_objects) {
      return fail(fmt::format("more than {} objects in the document", m_limits.max_objects));
    }
    return open(JsonValue::object());
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t /*unknown size*/) { return open(JsonValue::array()); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t /*position*/,
                   const std::string& last_token,
                   const JsonValue::exception& ex) {
    // 406: a number too large even for a double ("1e999999"); the rest are syntax errors.
    if (ex.id == 406) {
      return fail(fmt::format("the number {} is out of range", util::sanitize(last_token, 40)));
    }
    if (!m_error) {
      const std::string where = path();
      m_error = fmt::format(
          "not JSON ({}){}", util::sanitize(ex.what(), 300), where.empty() ? "" : " at " + where);
    }
    return false;
  }

  // The error that stopped the parse, if any.
  const std::optional<std::string>& error() const { return m_error; }
  JsonValue take() { return std::move(m_root); }

private:
  struct Frame {
    JsonValue* value = nullptr;
    std::size_t count = 0;
    std::string key; // of the member whose value comes next
    bool has_key = false;
  };

  // Stores `v` where the parse is (the root, the next item, the member of the last key) and
  // returns it, or nullptr (after fail) if a bound is broken.
  JsonValue* add(JsonValue v) {
    if (++m_values > m_limits.max_values) {
      fail(fmt::format("more than {} values in the document", m_limits.max_values));
      return nullptr;
    }
    if (m_stack.empty()) {
      m_root = std::move(v);
      return &m_root;
    }
    Frame& top = m_stack.back();
    if (top.value->is_array()) {
      if (top.count >= m_limits.max_items) {
        fail(fmt::format("more than {} items in one array", m_limits.max_items));
        return nullptr;
      }
      auto& items = top.value->get_ref<JsonValue::array_t&>();
      items.push_back(std::move(v));
      ++top.count;
      return &items.back();
    }
    if (top.count >= m_limits.max_members) {
      fail(fmt::format("more than {} members in one object", m_limits.max_members));
      return nullptr;
    }
    auto& members = static_cast<MemberVector&>(top.value->get_ref<JsonValue::object_t&>());
    members.emplace_back(std::move(top.key), std::move(v));
    top.key.clear();
    top.has_key = false;
    ++top.count;
    return &members.back().second;
  }

  bool open(JsonValue container) {
    if (m_stack.size() >= m_limits.max_depth) {
      return fail(fmt::format("nested deeper than {} levels", m_limits.max_depth));
    }
    JsonValue* at = add(std::move(container));
    if (at == nullptr) {
      return false;
    }
    m_stack.push_back(Frame{at, 0, {}, false});
    return true;
  }

  // Ends the innermost container: gives back the slack of its growth, and finds a key that
  // appears twice (sorting views of the keys: linear search would make an object of n members
  // cost n^2).
  bool close() {
    JsonValue& done = *m_stack.back().value;
    if (done.is_array()) {
      done.get_ref<JsonValue::array_t&>().shrink_to_fit();
    } else {
      auto& members = static_cast<MemberVector&>(done.get_ref<JsonValue::object_t&>());
      members.shrink_to_fit();
      m_keys.clear();
      for (const auto& [k, v] : members) {
        m_keys.emplace_back(k);
      }
      std::sort(m_keys.begin(), m_keys.end());
      if (auto twice = std::adjacent_find(m_keys.begin(), m_keys.end()); twice != m_keys.end()) {
        return fail(fmt::format("the key {} appears twice", quoted_key(*twice)));
      }
    }
    m_stack.pop_back();
    return true;
  }

  // Where the parse is: the open containers, then the member or item being read.
  std::string path() const {
    std::string out;
    for (std::size_t i = 0; i < m_stack.size(); ++i) {
      const Frame& f = m_stack[i];
      const bool innermost = i + 1 == m_stack.size();
      if (f.value->is_array()) {
        // An outer array's current item is its last; the innermost's is the next one.
        const std::size_t index = innermost ? f.count : f.count - 1;
        out += fmt::format("[{}]", index);
        continue;
      }
      if (innermost) {
        if (f.has_key) {
          append_path_key(out, f.key);
        }
        continue;
      }
      const auto& members =
          static_cast<const MemberVector&>(f.value->get_ref<const JsonValue::object_t&>());
      append_path_key(out, members.back().first);
    }
    return out;
  }

  bool fail(std::string_view what) {
    if (!m_error) {
      const std::string where = path();
      m_error = where.empty() ? std::string(what) : fmt::format("{}: {}", where, what);
    }
    return false;
  }

  const JsonLimits& m_limits;
  JsonValue m_root;
  std::vector<Frame> m_stack;
  std::vector<std::string_view> m_keys;
  std::size_t m_values = 0;
  std::size_t m_objects = 0;
  std::optional<std::string> m_error;
};

} // namespace

void append_path_key(std::string& path, std::string_view key) {
  if (plain_key(key)) {
    if (!path.empty()) {
      path += '.';
    }
    path += key;
    return;
  }
  path += "[" + quoted_key(key) + "]";
}

void release_json(nlohmann::ordered_json& j) noexcept {
  if (j.is_array()) {
    auto& items = j.get_ref<nlohmann::ordered_json::array_t&>();
    for (auto& item : items) {
      release_json(item);
    }
    items.clear();
  } else if (j.is_object()) {
    auto& members = j.get_ref<nlohmann::ordered_json::object_t&>();
    for (auto& member : members) {
      release_json(member.second);
    }
    members.clear();
  }
}

BoundedJson& BoundedJson::operator=(BoundedJson&& other) noexcept {
  if (this != &other) {
    release_json(m_root);
    m_root = std::move(other.m_root);
  }
  return *this;
}

BoundedJson::~BoundedJson() {
  release_json(m_root);
}

Expected<BoundedJson> parse_bounded_json(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return make_error(ErrorCode::too_large, fmt::format("larger than {} bytes", limits.max_bytes));
  }
  try {
    BoundedBuilder builder(limits);
    const bool ok = nlohmann::ordered_json::sax_parse(text.begin(), text.end(), &builder);
    if (!ok || builder.error()) {
      return make_error(ErrorCode::parse, builder.error().value_or("not JSON"));
    }
    return BoundedJson(builder.take());
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::too_large, "not enough memory to read it");
  }
}

} // namespace doctor::facts
