// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace doctor::facts {

// Names what ended a child that did not exit by itself (ProbeRun::signal, StressRun::signal):
// a Linux signal ("SIGSEGV", else "signal 42"), or, for a code with the NTSTATUS error bits
// 0xC0000000 set (a Windows child ended by an exception; stored as a negative 32-bit int or as
// the unsigned value), the exception in hex with its name ("exception 0xC0000005 (access
// violation)"). The two never overlap: Linux signals are below 65.
std::string termination_name(std::int64_t code);

} // namespace doctor::facts
