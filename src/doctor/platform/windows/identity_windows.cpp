// SPDX-License-Identifier: MIT
#include <doctor/platform/identity.hpp>

namespace doctor::platform {

// Windows rights are ACLs, not uid/gid/mode bits; the Windows collectors will judge access
// with the security API instead.
Expected<ProcessIdentity> current_identity() {
  return make_error(ErrorCode::unsupported, "Windows has no POSIX user and group ids");
}

} // namespace doctor::platform
