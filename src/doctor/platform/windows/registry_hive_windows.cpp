// SPDX-License-Identifier: MIT
#include <doctor/platform/registry_hive.hpp>

namespace doctor::platform {

// The Windows build carries no hive reader (libhivex is a Linux library): a Windows disk is
// examined with the Linux build, or the machine itself with a live run.
Expected<std::shared_ptr<const Registry>> open_hive_registry(const SysRoot& /*root*/,
                                                             const HivePaths& /*paths*/) {
  return make_error(ErrorCode::unsupported,
                    "this Windows build cannot read offline hive files; examine a Windows disk "
                    "with the Linux build of cudnn-doctor, or run it on that Windows machine");
}

} // namespace doctor::platform
