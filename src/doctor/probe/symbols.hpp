// SPDX-License-Identifier: MIT
// Binding a vendor library's C entry points into a child's table of function pointers.
#pragma once

#include <doctor/platform/dynlib.hpp>

#include <nlohmann/json.hpp>

#include <initializer_list>

namespace doctor::probe {

// Looks up the first exported name of `names` (the newest versioned symbol first, as the vendor
// headers map cuInit's kin to their _v2 names) into `slot`, and records the name used in
// `symbols`; leaves `slot` null when none is exported.
template<typename Fn>
void bind(const platform::DynamicLibrary& lib,
          Fn& slot,
          std::initializer_list<const char*> names,
          nlohmann::ordered_json& symbols) {
  for (const char* name : names) {
    if (void* p = lib.symbol(name)) {
      slot = reinterpret_cast<Fn>(p);
      symbols.push_back(name);
      return;
    }
  }
}

} // namespace doctor::probe
