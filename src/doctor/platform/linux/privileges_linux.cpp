// SPDX-License-Identifier: MIT
#include <doctor/platform/privileges.hpp>

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <initializer_list>

namespace doctor::platform {

// Removes CAP_MKNOD and CAP_SYS_MODULE from the effective, permitted and inheritable sets through
// the raw capset(2) system call (no libcap dependency), and from the bounding set so that an
// executed helper such as nvidia-modprobe cannot regain them. Failures are ignored: a process
// without those capabilities has nothing to drop.
void drop_machine_changing_privileges() {
  ::prctl(PR_CAPBSET_DROP, CAP_MKNOD, 0, 0, 0);
  ::prctl(PR_CAPBSET_DROP, CAP_SYS_MODULE, 0, 0, 0);

  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  header.pid = 0;
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) {
    return;
  }
  for (const int cap : {CAP_MKNOD, CAP_SYS_MODULE}) {
    const auto index = static_cast<unsigned>(cap) / 32U;
    const std::uint32_t bit = 1U << (static_cast<unsigned>(cap) % 32U);
    data[index].effective &= ~bit;
    data[index].permitted &= ~bit;
    data[index].inheritable &= ~bit;
  }
  ::syscall(SYS_capset, &header, data);
}

} // namespace doctor::platform
