// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/loader/linux_search.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <map>

// Family 4 of the troubleshooting guide (permissions and security software) and planting risks:
// who may read, map and replace the libraries the GPU stack loads, whether the GPU's device nodes
// exist and let the user in, and what the search paths let others slip in.
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

// Permission bits from their octal text ("0755"); 0 for anything that is not octal.
std::uint32_t mode_bits(std::string_view octal) {
  std::uint32_t out = 0;
  for (char c : octal) {
    if (c < '0' || c > '7' || out > 07777U) {
      return 0;
    }
    out = out * 8U + static_cast<std::uint32_t>(c - '0');
  }
  return out & 07777U;
}

bool user_can(const facts::Facts& facts,
              std::uint32_t mode,
              std::uint32_t uid,
              std::uint32_t gid,
              std::uint32_t bits /* 4 read, 2 write */) {
  if (!facts.user.uid || !facts.user.gids) {
    return true; // unknown user: do not accuse
  }
  if (*facts.user.uid == 0) {
    return true;
  }
  if (*facts.user.uid == uid) {
    return (mode & (bits << 6U)) != 0;
  }
  const auto& gids = *facts.user.gids;
  if (std::find(gids.begin(), gids.end(), gid) != gids.end()) {
    return (mode & (bits << 3U)) != 0;
  }
  return (mode & bits) != 0;
}

std::string user_name(const facts::Facts& facts) {
  return facts.user.uid ? fmt::format("user {}", *facts.user.uid) : "this user";
}

const facts::ProbedPath* probed(const facts::Facts& facts, const std::string& path) {
  for (const facts::ProbedPath& p : facts.probed_paths) {
    if (p.path == path) {
      return &p;
    }
  }
  return nullptr;
}

// An absolute directory as the collector records it ("/opt/shared/" -> "/opt/shared").
std::string without_trailing_slashes(std::string_view dir) {
  while (dir.size() > 1 && dir.back() == '/') {
    dir.remove_suffix(1);
  }
  return std::string(dir);
}

// The mount a path lives on: the longest mount point that is a prefix of it.
const facts::MountInfo* mount_of(const facts::Facts& facts, const std::string& path) {
  if (!facts.mounts) {
    return nullptr;
  }
  const facts::MountInfo* best = nullptr;
  for (const facts::MountInfo& m : *facts.mounts) {
    const bool prefix =
        path == m.mount_point || m.mount_point == "/" || path.starts_with(m.mount_point + "/");
    if (prefix && (best == nullptr || m.mount_point.size() >= best->mount_point.size())) {
      best = &m;
    }
  }
  return best;
}

} // namespace

void check_library_access(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  for (const facts::UnreadablePath& u : facts.unreadable) {
    FindingDraft d;
    d.id = ids::k_permission_path_unreadable;
    d.subject = u.path;
    d.params = {{"path", u.path},
                {"what", u.what},
                {"reason", u.error == "permission_denied" ? "permission denied" : u.message},
                {"user", user_name(facts)}};
    d.evidence.push_back(Evidence{"dir:" + u.path, u.message});
    out.add(std::move(d));
  }
  for (const facts::BinaryInfo& b : facts.binaries) {
    if (b.mode.empty()) {
      continue;
    }
    const std::uint32_t mode = mode_bits(b.mode);
    // The mode bits say so, or the open said so (an ACL, a security module, a root squash).
    const bool denied = b.read_error == "permission_denied";
    if (!user_can(facts, mode, b.uid, b.gid, 4) || denied) {
      FindingDraft d;
      d.id = ids::k_permission_library_unreadable;
      d.subject = b.path;
      d.params = {{"path", b.path},
                  {"mode", b.mode},
                  {"owner", fmt::format("uid {} gid {}", b.uid, b.gid)},
                  {"user", user_name(facts)}};
      d.evidence.push_back(
          Evidence{"file:" + b.path, fmt::format("mode {}, uid {}, gid {}", b.mode, b.uid, b.gid)});
      d.evidence.push_back(evidence_of(facts.user.uid, "the doctor's user id"));
      if (denied) {
        d.evidence.push_back(Evidence{"file:" + b.path, b.read_error_message});
      }
      out.add(std::move(d));
    }
    if ((mode & 0002U) != 0) {
      FindingDraft d;
      d.id = ids::k_security_world_writable_library;
      d.subject = b.path;
      d.params = {{"path", b.path}, {"mode", b.mode}};
      d.evidence.push_back(Evidence{"file:" + b.path, "mode " + b.mode});
      out.add(std::move(d));
    }
    if (const facts::MountInfo* m = mount_of(facts, b.path)) {
      if (std::find(m->options.begin(), m->options.end(), "noexec") != m->options.end()) {
        FindingDraft d;
        d.id = ids::k_permission_noexec_mount;
        d.subject = b.path;
        d.params = {{"path", b.path}, {"mount_point", m->mount_point}};
        d.evidence.push_back(Evidence{
            facts.mounts.source(),
            fmt::format("{} ({}): {}", m->mount_point, m->fs_type, util::join(m->options, ","))});
        out.add(std::move(d));
      }
    }
  }
}

// NVML creates /dev/nvidiactl as root even without a driver, so only the per-GPU nodes
// (/dev/nvidia0, /dev/nvidia1, …) show that a program here can open a GPU.
void check_device_nodes(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& drv = facts.driver;
  if (!drv.kernel_module_version || !drv.device_nodes) {
    return;
  }
  std::vector<std::string> names;
  bool gpu_node = false;
  for (const facts::DeviceNode& n : *drv.device_nodes) {
    names.push_back(n.path);
    const std::string_view path = n.path;
    const std::string_view name = path.substr(path.rfind('/') + 1);
    if (name.size() > 6 && util::parse_uint(name.substr(6)) && n.kind == "character_device") {
      gpu_node = true;
    }
  }
  if (gpu_node) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_driver_device_nodes_missing;
  d.subject = "/dev/nvidia*";
  d.params = {{"module_version", *drv.kernel_module_version},
              {"nodes", names.empty() ? std::string("none") : util::join(names, ", ")}};
  d.evidence.push_back(evidence_of(drv.kernel_module_version, "NVIDIA kernel module"));
  d.evidence.push_back(
      Evidence{drv.device_nodes.source(),
               names.empty() ? "no /dev/nvidia* entries" : "entries: " + util::join(names, ", ")});
  out.add(std::move(d));
}

// Only the per-GPU nodes and nvidiactl matter for running CUDA; they must be readable and
// writable by the user.
void check_device_access(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  if (!facts.driver.device_nodes || !facts.user.gids) {
    return;
  }
  std::vector<std::string> denied;
  std::map<std::uint32_t, int> groups;
  for (const facts::DeviceNode& n : *facts.driver.device_nodes) {
    if (n.kind != "character_device") {
      continue;
    }
    const std::uint32_t mode = mode_bits(n.mode);
    if (!user_can(facts, mode, n.uid, n.gid, 4) || !user_can(facts, mode, n.uid, n.gid, 2)) {
      denied.push_back(fmt::format("{} (mode {}, uid {}, gid {})", n.path, n.mode, n.uid, n.gid));
      ++groups[n.gid];
    }
  }
  if (denied.empty()) {
    return;
  }
  std::string group = std::to_string(groups.begin()->first);
  FindingDraft d;
  d.id = ids::k_permission_device_nodes;
  d.subject = "/dev/nvidia*";
  const std::string names =
      facts.user.group_names ? util::join(*facts.user.group_names, ", ") : "unknown";
  d.params = {{"nodes", util::join(denied, ", ")},
              {"user", user_name(facts)},
              {"groups", names},
              {"group", group}};
  d.evidence.push_back(Evidence{facts.driver.device_nodes.source(), util::join(denied, "; ")});
  d.evidence.push_back(evidence_of(facts.user.group_names, "the user's groups"));
  out.add(std::move(d));
}

void check_search_paths(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  for (const char* var : {"LD_LIBRARY_PATH", "PATH"}) {
    const auto it = facts.environment.find(var);
    if (it == facts.environment.end()) {
      continue;
    }
    // ld.so splits LD_LIBRARY_PATH at ':' and ';' (loader::split_library_path); PATH is split
    // at ':' only (execvp).
    const std::string_view var_name = var;
    const std::vector<std::string_view> entries = var_name == "LD_LIBRARY_PATH"
                                                      ? loader::split_library_path(it->second)
                                                      : util::split(it->second, ':');
    std::size_t position = 0;
    for (std::string_view entry : entries) {
      ++position;
      if (entry.empty() || entry.front() != '/') {
        continue;
      }
      const std::string dir = without_trailing_slashes(entry);
      const facts::ProbedPath* p = probed(facts, dir);
      if (p == nullptr || !p->exists || p->kind != "directory") {
        continue;
      }
      const std::uint32_t mode = mode_bits(p->mode);
      // World-writable and not sticky (a sticky /tmp still lets anyone add new files).
      if ((mode & 0002U) != 0) {
        FindingDraft d;
        d.id = ids::k_security_writable_search_dir;
        d.subject = dir;
        d.params = {{"dir", dir},
                    {"mode", p->mode},
                    {"variable", var},
                    {"position", std::to_string(position)}};
        d.evidence.push_back(Evidence{"env:" + std::string(var), it->second});
        d.evidence.push_back(Evidence{"dir:" + dir, "mode " + p->mode});
        out.add(std::move(d));
      }
    }
  }
  for (const char* var : {"LD_PRELOAD", "LD_AUDIT"}) {
    const auto it = facts.environment.find(var);
    if (it != facts.environment.end() && !util::trim(it->second).empty()) {
      FindingDraft d;
      d.id = ids::k_security_ld_preload;
      d.subject = var;
      d.params = {{"variable", var}, {"value", it->second}};
      d.evidence.push_back(Evidence{"env:" + std::string(var), it->second});
      out.add(std::move(d));
    }
  }
}

// RPATH/RUNPATH entries that do not start with '/' or $ORIGIN are relative to whatever the
// current directory is; entries that point into world-writable directories can be planted.
void check_unsafe_runpaths(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  for (const facts::BinaryInfo& b : facts.binaries) {
    for (const auto& [kind, entries] :
         {std::pair{"RPATH", &b.rpath}, std::pair{"RUNPATH", &b.runpath}}) {
      for (const std::string& e : *entries) {
        std::string why;
        std::string tag = "cwd";
        // Relative is what is relative after ld.so's token expansion: "$ORIGIN/x" is not,
        // "$ORIGINx/lib" (no token, glibc's is_dst) or "$LIB/x" is.
        const auto expanded = loader::expand_tokens(e, b.path, loader::LinuxLoaderConfig{});
        if (e.empty()) {
          why = "an empty entry, which ld.so takes as the current directory";
        } else if (expanded && (expanded->empty() || expanded->front() != '/')) {
          why = "relative to the current directory of whatever program loads it";
        } else if (e.front() == '/') {
          // The collector probed every absolute entry of every binary it read (normalised).
          const facts::ProbedPath* p = probed(facts, without_trailing_slashes(e));
          if (p != nullptr && p->exists && (mode_bits(p->mode) & 0002U) != 0) {
            why = fmt::format("a directory any user can write to (mode {})", p->mode);
            tag = "writable";
          }
        }
        if (why.empty()) {
          continue;
        }
        FindingDraft d;
        d.id = ids::k_security_unsafe_runpath;
        d.subject = b.path;
        d.params = {{"path", b.path}, {"kind", kind}, {"entry", e}, {"why", why}};
        d.tags = {tag};
        d.evidence.push_back(
            Evidence{"file:" + b.path, fmt::format("{}: {}", kind, util::join(*entries, ":"))});
        out.add(std::move(d));
      }
    }
  }
}

} // namespace doctor::checks
