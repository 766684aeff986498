// SPDX-License-Identifier: MIT
#include <doctor/report/json_bytes.hpp>
#include <doctor/util/escape.hpp>

#include <string>

namespace doctor::report {

namespace {

using Json = nlohmann::ordered_json;

bool is_raw(const Json& j) {
  return j.is_string() && !util::is_utf8(j.get_ref<const std::string&>());
}

// The sibling of an array member: null for each valid string, the hex of each other one; null
// (no sibling) when every item is valid.
Json array_bytes(const Json& array) {
  bool any = false;
  Json out = Json::array();
  for (const Json& item : array) {
    if (is_raw(item)) {
      any = true;
      out.push_back(util::hex_bytes(item.get_ref<const std::string&>()));
    } else {
      out.push_back(nullptr);
    }
  }
  return any ? out : Json(nullptr);
}

void escape_in_place(Json& j) {
  if (is_raw(j)) {
    j = util::escape_invalid_utf8(j.get_ref<const std::string&>());
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
    const std::string key = util::escape_invalid_utf8(it.key());
    Json value = std::move(it.value());
    Json bytes = nullptr;
    if (is_raw(value)) {
      bytes = util::hex_bytes(value.get_ref<const std::string&>());
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

} // namespace doctor::report
