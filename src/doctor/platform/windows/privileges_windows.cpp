// SPDX-License-Identifier: MIT
#include <doctor/platform/privileges.hpp>

namespace doctor::platform {

// NVIDIA's Windows libraries do not create device objects or install drivers when loaded, so
// there is nothing to give up here.
void drop_machine_changing_privileges() {}

} // namespace doctor::platform
