// SPDX-License-Identifier: MIT
#include <doctor/platform/registry.hpp>

namespace doctor::platform {

// A Linux host has no registry of its own; a Windows disk examined from here is read from its
// hives (registry_hive.cpp).
std::shared_ptr<const Registry> open_live_registry() {
  return nullptr;
}

} // namespace doctor::platform
