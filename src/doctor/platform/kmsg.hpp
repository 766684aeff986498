// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <string>

namespace doctor::platform {

// Reads every record the kernel still holds from /dev/kmsg (O_RDONLY|O_NONBLOCK; EAGAIN ends,
// EPIPE (records overwritten while reading) is skipped; each read() returns one record) and
// returns them as text, one record per line as the kernel wrote it ("prio,seq,usec,flags;message"
// plus " KEY=VALUE" continuation lines). Never blocks; stops at 64 MiB. Errors:
// ErrorCode::permission_denied (kernel.dmesg_restrict=1 without CAP_SYSLOG),
// ErrorCode::not_found (no /dev/kmsg), ErrorCode::io, ErrorCode::unsupported (Windows).
Expected<std::string> read_kmsg();

} // namespace doctor::platform
