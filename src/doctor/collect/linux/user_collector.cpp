// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/read_limits.hpp>
#include <doctor/platform/identity.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

// /proc/self/mountinfo: "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root
// rw,errors=continue" Field 5 is the mount point (octal escapes for blanks), field 6 the per-mount
// options; the file system type follows the " - " separator.
std::vector<MountInfo> parse_mountinfo(std::string_view text) {
  std::vector<MountInfo> out;
  for (std::string_view line : util::split_lines(text)) {
    const auto fields = util::split(line, ' ');
    if (fields.size() < 10) {
      continue;
    }
    MountInfo m;
    m.mount_point = util::replace_all(util::replace_all(fields[4], "\\040", " "), "\\011", "\t");
    for (std::string_view opt : util::split(fields[5], ',')) {
      m.options.emplace_back(opt);
    }
    const auto sep = std::find(fields.begin() + 6, fields.end(), std::string_view("-"));
    if (sep != fields.end() && sep + 1 != fields.end()) {
      m.fs_type = std::string(*(sep + 1));
    }
    out.push_back(std::move(m));
  }
  return out;
}

} // namespace

// Only the live machine has a "current user": a --sysroot tree is examined on behalf of nobody
// in particular, so rights are unknown there rather than root's.
void collect_user(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  UserInfo& user = facts.user;
  if (!root.is_live()) {
    const std::string why = "a --sysroot tree has no running user whose rights would apply";
    user.uid = Fact<std::uint32_t>::unknown(why);
    user.gids = Fact<std::vector<std::uint32_t>>::unknown(why);
    user.group_names = Fact<std::vector<std::string>>::unknown(why);
    facts.mounts =
        Fact<std::vector<MountInfo>>::unknown("a --sysroot tree has no mount table of its own");
    return;
  }
  auto id = platform::current_identity();
  if (!id) {
    user.uid = Fact<std::uint32_t>::unknown(id.error().message);
    user.gids = Fact<std::vector<std::uint32_t>>::unknown(id.error().message);
    user.group_names = Fact<std::vector<std::string>>::unknown(id.error().message);
  } else {
    user.uid = Fact<std::uint32_t>::known(id->uid, "process:geteuid");
    user.gids = Fact<std::vector<std::uint32_t>>::known(id->gids, "process:getegid,getgroups");
    std::vector<std::string> names;
    if (auto groups = root.read_file("/etc/group", k_max_text_file)) {
      for (std::uint32_t gid : id->gids) {
        std::string name = std::to_string(gid);
        for (std::string_view line : util::split_lines(*groups)) {
          const auto f = util::split(line, ':');
          if (f.size() >= 3 && util::parse_uint(f[2]) == gid) {
            name = std::string(f[0]);
            break;
          }
        }
        names.push_back(std::move(name));
      }
      user.group_names = Fact<std::vector<std::string>>::known(names, "file:/etc/group");
    } else {
      user.group_names = Fact<std::vector<std::string>>::unknown("cannot read /etc/group");
    }
  }
  if (auto text = root.read_file("/proc/self/mountinfo", k_max_text_file)) {
    facts.mounts =
        Fact<std::vector<MountInfo>>::known(parse_mountinfo(*text), "file:/proc/self/mountinfo");
  } else {
    facts.mounts = Fact<std::vector<MountInfo>>::unknown(
        fmt::format("cannot read /proc/self/mountinfo: {}", text.error().message));
  }
}

} // namespace doctor::collect
