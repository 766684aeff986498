// SPDX-License-Identifier: MIT
#include <doctor/platform/host.hpp>

namespace doctor::platform {

OsFamily host_os() {
  return OsFamily::linux;
}

} // namespace doctor::platform
