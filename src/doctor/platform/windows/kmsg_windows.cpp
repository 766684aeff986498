// SPDX-License-Identifier: MIT
#include <doctor/platform/kmsg.hpp>

namespace doctor::platform {

// Windows keeps no kernel ring buffer of text; its crash evidence is in dumps and event logs.
Expected<std::string> read_kmsg() {
  return make_error(ErrorCode::unsupported, "/dev/kmsg: not available on windows");
}

} // namespace doctor::platform
