// SPDX-License-Identifier: MIT
#include <doctor/platform/registry.hpp>

namespace doctor::platform {

std::string_view to_string(RegistryRoot root) {
  return root == RegistryRoot::local_machine ? "HKLM" : "HKCU";
}

} // namespace doctor::platform
