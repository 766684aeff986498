// SPDX-License-Identifier: MIT
#include <doctor/platform/privileges.hpp>
#include <doctor/platform/process.hpp>

#include <fmt/format.h>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace doctor::platform {

namespace {

constexpr std::uint32_t k_nobody = 65534; // nobody / nogroup on Debian, Ubuntu, Fedora, Arch

// The process id named by k_parent_pid_variable, removed from the environment so that vendor
// code does not see it; nullopt when the child was started by hand.
std::optional<pid_t> expected_parent() {
  const char* text = std::getenv(k_parent_pid_variable);
  if (text == nullptr) {
    return std::nullopt;
  }
  const std::string_view s(text);
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), pid);
  ::unsetenv(k_parent_pid_variable);
  if (ec != std::errc() || end != s.data() + s.size() || pid <= 0) {
    return std::nullopt;
  }
  return pid;
}

// Bytes mapped now: the first field of /proc/self/statm, in pages.
std::optional<std::uint64_t> mapped_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  if (f == nullptr) {
    return std::nullopt;
  }
  unsigned long long pages = 0;
  const int n = std::fscanf(f, "%llu", &pages);
  std::fclose(f);
  if (n != 1) {
    return std::nullopt;
  }
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// RLIMIT_AS at what is mapped now plus `budget`, soft and hard, so vendor code cannot raise it.
// Measured on what is mapped, not as an absolute size, because an AddressSanitizer build has
// reserved its shadow (terabytes of PROT_NONE or MAP_NORESERVE space) before main(): an absolute
// limit would fail every allocation, while this one still bounds every new mapping (glibc's
// heap and large allocations, ASan's secondary allocator). ASan's primary allocator serves small
// allocations from space reserved at start, which RLIMIT_AS does not see: a sanitized child is
// bounded for large allocations only.
void limit_address_space(std::uint64_t budget, const std::string& why_none, Confinement& c) {
  if (budget == 0) {
    c.notes.push_back(why_none.empty() ? std::string("no address-space limit was asked for")
                                       : "no address-space limit: " + why_none);
    return;
  }
  const auto now = mapped_bytes();
  if (!now) {
    c.notes.emplace_back("no address-space limit: /proc/self/statm is unreadable");
    return;
  }
  struct rlimit old {};
  ::getrlimit(RLIMIT_AS, &old);
  rlim_t limit = static_cast<rlim_t>(*now + budget);
  if (old.rlim_max != RLIM_INFINITY && old.rlim_max < limit) {
    limit = old.rlim_max;
  }
  const struct rlimit wanted { limit, limit };
  if (::setrlimit(RLIMIT_AS, &wanted) == 0) {
    c.address_space_limit = limit;
  } else {
    c.notes.push_back(fmt::format("no address-space limit: setrlimit: {}", std::strerror(errno)));
  }
}

struct Identity {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::string why_root; // empty when root may be given up
};

// The unprivileged identity that can still open every device node of `prefix` in /dev: nobody
// when all are open to others (0666, the driver's default), nobody with the nodes' group when
// all share a group that may read and write them (NVreg_DeviceFileMode=0660 with a video
// group), else root (without capabilities) and the node that needs it.
Identity identity_for_devices(const std::string& prefix) {
  Identity id{k_nobody, k_nobody, {}};
  if (prefix.empty()) {
    return id;
  }
  DIR* dir = ::opendir("/dev");
  if (dir == nullptr) {
    return id; // no device nodes to keep open
  }
  std::optional<gid_t> group;
  bool others_everywhere = true;
  bool group_everywhere = true;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (!name.starts_with(prefix)
        || ::fstatat(::dirfd(dir), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0
        || !S_ISCHR(st.st_mode)) {
      continue;
    }
    const bool others = (st.st_mode & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH);
    const bool by_group = (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP)
                          && (!group || *group == st.st_gid) && st.st_gid != 0;
    others_everywhere = others_everywhere && others;
    group_everywhere = group_everywhere && (others || by_group);
    if (by_group && !others) {
      group = st.st_gid;
    }
    if (!others && !by_group && id.why_root.empty()) {
      id.why_root = fmt::format("/dev/{} (mode {:04o}, owner {}, group {}) is open to root only",
                                name,
                                st.st_mode & 07777U,
                                st.st_uid,
                                st.st_gid);
    }
  }
  ::closedir(dir);
  if (!others_everywhere && group_everywhere && group) {
    id.gid = *group;
  } else if (!others_everywhere) {
    id.uid = 0;
    id.gid = 0;
  }
  return id;
}

void drop_bounding_set() {
  for (int cap = 0; ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; ++cap) {
    ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  }
}

bool bounding_set_empty() {
  for (int cap = 0;; ++cap) {
    const int in = ::prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
    if (in < 0) {
      return true;
    }
    if (in == 1) {
      return false;
    }
  }
}

// Empties the effective, permitted and inheritable sets with the raw capset(2) call (no libcap)
// and reads them back; returns true if none is left.
bool empty_capability_sets() {
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  header.pid = 0;
  __user_cap_data_struct data[2] = {};
  ::syscall(SYS_capset, &header, data);
  __user_cap_data_struct now[2] = {};
  if (::syscall(SYS_capget, &header, now) != 0) {
    return false;
  }
  for (const auto& d : now) {
    if (d.effective != 0 || d.permitted != 0 || d.inheritable != 0) {
      return false;
    }
  }
  return true;
}

// Gives up root for `id`: supplementary groups first, then the group, then the user (setresuid
// from 0 also clears every capability set). Returns false if any step failed; the caller then
// stays root without capabilities.
bool become(const Identity& id) {
  return ::setgroups(0, nullptr) == 0 && ::setresgid(id.gid, id.gid, id.gid) == 0
         && ::setresuid(id.uid, id.uid, id.uid) == 0;
}

} // namespace

// The order matters. Limits and no_new_privs first (they need nothing). The bounding set is
// emptied while the process still has CAP_SETPCAP, before the user changes. The parent-death
// signal comes last, because the kernel clears it whenever the effective user or group changes;
// then getppid() is compared with the parent that started the child, since a parent that died
// before prctl() would otherwise go unnoticed (the child was already handed to init or a
// subreaper).
Expected<Confinement> confine_child(const ConfinementRequest& request) {
  Confinement c;
  const std::optional<pid_t> parent = expected_parent();
  limit_address_space(request.address_space_budget, request.no_limit_reason, c);
  const struct rlimit no_core { 0, 0 };
  ::setrlimit(RLIMIT_CORE, &no_core);
  c.no_new_privs = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  drop_bounding_set();
  if (::geteuid() == 0) {
    const Identity id = identity_for_devices(request.device_prefix);
    if (id.uid == 0) {
      c.notes.push_back("kept user root, without capabilities: " + id.why_root);
    } else if (!become(id)) {
      c.notes.push_back(fmt::format("kept user root, without capabilities: cannot become {}:{}: {}",
                                    id.uid,
                                    id.gid,
                                    std::strerror(errno)));
    }
  }
  c.uid = ::geteuid();
  c.gid = ::getegid();
  c.capabilities_dropped = empty_capability_sets();
  if (!bounding_set_empty()) {
    c.notes.emplace_back(
        "the capability bounding set could not be emptied (no CAP_SETPCAP); "
        "with no_new_privs no program the child runs can gain from it");
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (parent && ::getppid() != *parent) {
    return make_error(ErrorCode::io,
                      fmt::format("the parent {} that started this child is gone", *parent));
  }
  if (!parent) {
    c.notes.emplace_back("started without a parent process id: not checked that it lives");
  }
  return c;
}

} // namespace doctor::platform
