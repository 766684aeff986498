// SPDX-License-Identifier: MIT
#include <doctor/platform/identity.hpp>

#include <unistd.h>

#include <algorithm>

namespace doctor::platform {

Expected<ProcessIdentity> current_identity() {
  ProcessIdentity id;
  id.uid = ::geteuid();
  id.gids.push_back(::getegid());
  const int n = ::getgroups(0, nullptr);
  if (n > 0) {
    std::vector<gid_t> groups(static_cast<std::size_t>(n));
    const int got = ::getgroups(n, groups.data());
    for (int i = 0; i < got; ++i) {
      const auto g = static_cast<std::uint32_t>(groups[static_cast<std::size_t>(i)]);
      if (std::find(id.gids.begin(), id.gids.end(), g) == id.gids.end()) {
        id.gids.push_back(g);
      }
    }
  }
  return id;
}

} // namespace doctor::platform
