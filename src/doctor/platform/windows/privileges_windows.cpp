// SPDX-License-Identifier: MIT
#include <doctor/platform/privileges.hpp>

namespace doctor::platform {

// NVIDIA's Windows libraries do not create device objects or install drivers when loaded. The
// child is bounded by the job object run_process puts it in (it and everything it starts are
// killed when the answer is in, on the time limit, or with the doctor); its token is not
// restricted and its memory is not limited.
Expected<Confinement> confine_child(const ConfinementRequest& request) {
  Confinement c;
  c.notes.emplace_back(
      "Windows: the child keeps the doctor's token (no user or privileges "
      "given up); the parent's job object kills it with the doctor");
  if (request.address_space_budget != 0) {
    c.notes.emplace_back("Windows: no memory limit");
  }
  return c;
}

} // namespace doctor::platform
