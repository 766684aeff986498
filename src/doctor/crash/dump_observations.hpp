// SPDX-License-Identifier: MIT
// What a Windows dump, as the format readers parsed it, says happened: one Observation per dump.
#pragma once

#include <doctor/crash/observation.hpp>
#include <doctor/formats/kernel_dump.hpp>
#include <doctor/formats/minidump.hpp>

#include <optional>

namespace doctor::crash {

// Returns the app_crash Observation of a dump: code "0xc0000005", fields process, module,
// module_offset, module_version, module_path, exception_address, access ("write at 0x45" for
// access violations), os_build, arch, and one summary line
// ("python.exe: exception 0xC0000005 at cudnn64_8.dll+0x1a2b3").
Observation observe_minidump(const formats::MiniDump& dump, const Origin& origin);

// Returns the bugcheck Observation of a dump: code "0x116" (masked), crash and boot-relative time,
// fields raw_code, param1..param4, os_build, arch, dump_type, module, module_offset,
// module_timestamp (UTC date of the link time, when it is not a build hash), module_path,
// blamed_by, stack_drivers, and one summary line.
Observation observe_kernel_dump(const formats::KernelDump& dump,
                                const Origin& origin,
                                std::optional<unsigned> address_param);

} // namespace doctor::crash
