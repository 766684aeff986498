// SPDX-License-Identifier: MIT
#include <doctor/util/escape.hpp>
#include <doctor/util/json_bytes.hpp>
#include <doctor/util/strings.hpp>

#include <optional>
#include <string>
#include <vector>

namespace doctor::util {

namespace {

using Json = nlohmann::ordered_json;

bool is_raw(const Json& j) {
  return j.is_string() && !is_utf8(j.get_ref<const std::string&>());
}

// The sibling of an array member: null for each valid string, the hex of each other one; null
// (no sibling) when every item is valid.
Json array_bytes(const Json& array) {
  bool any = false;
  Json out = Json::array();
  for (const Json& item : array) {
    if (is_raw(item)) {
      any = true;
      out.push_back(hex_bytes(item.get_ref<const std::string&>()));
    } else {
      out.push_back(nullptr);
    }
  }
  return any ? out : Json(nullptr);
}

// The bytes of `hex` (as hex_bytes writes them, either case), or nullopt.
std::optional<std::string> from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = hex_digit(hex[i]);
    const int lo = hex_digit(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    out.push_back(static_cast<char>((hi << 4) | lo));
  }
  return out;
}

// Puts the bytes of `bytes` (a member "k_bytes") back into `value` (the member "k").
bool restore_member(Json& value, const Json& bytes) {
  if (value.is_string()) {
    if (!bytes.is_string()) {
      return false;
    }
    auto raw = from_hex(bytes.get_ref<const std::string&>());
    if (!raw) {
      return false;
    }
    value = std::move(*raw);
    return true;
  }
  if (!bytes.is_array() || bytes.size() != value.size()) {
    return false;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (bytes[i].is_null()) {
      continue;
    }
    if (!value[i].is_string() || !restore_member(value[i], bytes[i])) {
      return false;
    }
  }
  return true;
}

void escape_in_place(Json& j) {
  if (is_raw(j)) {
    j = escape_invalid_utf8(j.get_ref<const std::string&>());
  }
}

} // namespace

void keep_bytes(Json& doc) {
  if (doc.is_array()) {
    for (Json& item : doc) {
      keep_bytes(item);
      escape_in_place(item);
    }
    return;
  }
  if (!doc.is_object()) {
    return;
  }
  Json out = Json::object();
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string key = escape_invalid_utf8(it.key());
    Json value = std::move(it.value());
    Json bytes = nullptr;
    if (is_raw(value)) {
      bytes = hex_bytes(value.get_ref<const std::string&>());
    } else if (value.is_array()) {
      bytes = array_bytes(value);
    }
    keep_bytes(value);
    escape_in_place(value);
    out[key] = std::move(value);
    if (!bytes.is_null()) {
      out[key + "_bytes"] = std::move(bytes);
    }
  }
  doc = std::move(out);
}

bool restore_bytes(Json& doc) {
  if (doc.is_array()) {
    for (Json& item : doc) {
      if (!restore_bytes(item)) {
        return false;
      }
    }
    return true;
  }
  if (!doc.is_object()) {
    return true;
  }
  static constexpr std::string_view k_suffix = "_bytes";
  std::vector<std::string> restored;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& key = it.key();
    if (key.size() <= k_suffix.size() || !key.ends_with(k_suffix)) {
      if (!restore_bytes(it.value())) {
        return false;
      }
      continue;
    }
    const auto base = doc.find(key.substr(0, key.size() - k_suffix.size()));
    if (base == doc.end() || !(base->is_string() || base->is_array())) {
      continue; // a member of that name that keep_bytes did not write
    }
    if (!restore_member(*base, it.value())) {
      return false;
    }
    restored.push_back(key);
  }
  for (const std::string& key : restored) {
    doc.erase(key);
  }
  return true;
}

} // namespace doctor::util
