// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

// Like NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT, but for nlohmann::ordered_json, so that
// output keeps the declaration order of the fields (nlohmann 3.11.2 only has macros for the
// std::map-ordered nlohmann::json). Missing fields take the default object's values.
#define DOCTOR_JSON_FIELDS(Type, ...)                                                              \
  inline void to_json(nlohmann::ordered_json& nlohmann_json_j, const Type& nlohmann_json_t) {      \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                       \
  }                                                                                                \
  inline void from_json(const nlohmann::ordered_json& nlohmann_json_j, Type& nlohmann_json_t) {    \
    const Type nlohmann_json_default_obj;                                                          \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__))        \
  }

#include <optional>

// std::optional as a nullable value (nlohmann 3.11.2 has no built-in support): null <-> nullopt.
namespace nlohmann {
template<typename T>
struct adl_serializer<std::optional<T>> {
  template<typename BasicJson>
  static void to_json(BasicJson& j, const std::optional<T>& v) {
    if (v) {
      j = *v;
    } else {
      j = nullptr;
    }
  }
  template<typename BasicJson>
  static void from_json(const BasicJson& j, std::optional<T>& v) {
    if (j.is_null()) {
      v.reset();
    } else {
      v = j.template get<T>();
    }
  }
};
} // namespace nlohmann
