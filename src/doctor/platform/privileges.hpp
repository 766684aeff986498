// SPDX-License-Identifier: MIT
#pragma once

namespace doctor::platform {

// Gives up, for the rest of this process, the privileges a vendor library could use to change the
// machine: creating device nodes and loading kernel modules. NVML run as root creates
// /dev/nvidiactl even where no driver exists; a doctor must not leave such traces. Call it first
// thing in an isolated probe child. Does nothing where there is nothing to give up.
void drop_machine_changing_privileges();

} // namespace doctor::platform
