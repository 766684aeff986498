// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace doctor::platform {

// What an isolated child asks confine_child() for.
struct ConfinementRequest {
  // Bytes of address space the child may map beyond what it has mapped when it asks (so that an
  // AddressSanitizer build, which reserves terabytes first, gets the same budget); 0: no limit.
  std::uint64_t address_space_budget = 0;
  // Why no budget is asked for (budget 0), for the notes of the child's report.
  std::string no_limit_reason;
  // The device nodes the vendor call opens: the character devices of /dev whose names start
  // with this ("nvidia": nvidiactl, nvidia0, …). Root is given up only for a user that can open
  // every one of them (or when there are none).
  std::string device_prefix;
};

// What confine_child() did, for the child's report.
struct Confinement {
  std::uint32_t uid = 0; // the user and group the child runs as afterwards
  std::uint32_t gid = 0;
  bool capabilities_dropped = false;     // verified: no capability left (Linux); false elsewhere
  bool no_new_privs = false;             // execve cannot grant privileges (Linux)
  std::uint64_t address_space_limit = 0; // RLIMIT_AS, bytes; 0: none
  std::vector<std::string> notes;        // what was not done, and why
};

// Confines the calling process, an isolated probe child, for the rest of its life. Call it first
// thing, before any vendor library is loaded and while the process has one thread. On Linux:
// the address-space limit, no core dumps, no_new_privs, every capability dropped (bounding set
// included), root given up for nobody (65534) where the device nodes allow it, and SIGKILL when
// the parent dies. On Windows nothing is done here (the parent's job object bounds the child)
// and the notes say so. Returns an error if the parent that started the child (named by
// k_parent_pid_variable) is already gone: the child must then exit without doing anything.
Expected<Confinement> confine_child(const ConfinementRequest& request);

} // namespace doctor::platform
