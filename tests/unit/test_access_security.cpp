// SPDX-License-Identifier: MIT
// The checks of family 4 (access_security.cpp): read and map rights of the libraries, the GPU's
// device nodes and who may open them, and what the search paths and RUNPATHs let others plant.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::all_of;
using test::find_id;
using test::has_fix_command;
using test::has_id;
using test::run_all;
namespace ids = test::ids;

constexpr auto k_npos = std::string::npos;
const std::string k_lib = "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.19.0";

facts::BinaryInfo binary(std::string path, std::string mode, std::uint32_t uid, std::uint32_t gid) {
  facts::BinaryInfo b;
  b.path = std::move(path);
  b.format = "elf";
  b.size = 100000;
  b.mode = std::move(mode);
  b.uid = uid;
  b.gid = gid;
  return b;
}

// The doctor runs as user 1000, in its own group 1000 only.
facts::Facts user_machine() {
  auto f = test::machine_without_gpu();
  f.user.uid = facts::Fact<std::uint32_t>::known(1000, "process:getuid");
  f.user.gids = facts::Fact<std::vector<std::uint32_t>>::known({1000}, "process:getgroups");
  f.user.group_names = facts::Fact<std::vector<std::string>>::known({"ana"}, "file:/etc/group");
  return f;
}

facts::ProbedPath directory(std::string path, std::string mode) {
  facts::ProbedPath p;
  p.path = std::move(path);
  p.exists = true;
  p.kind = "directory";
  p.real_path = p.path;
  p.mode = std::move(mode);
  return p;
}

TEST(check_library_access, a_library_the_user_cannot_read_is_a_permission_error) {
  auto f = user_machine();
  f.binaries.push_back(binary(k_lib, "0640", 0, 0));
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_permission_library_unreadable);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::error);
  EXPECT_EQ(d->cause_class, CauseClass::permission_denied);
  EXPECT_EQ(d->subject, k_lib);
  EXPECT_NE(d->message.find(k_lib + " has mode 0640 (owner uid 0 gid 0); user 1000 cannot read it"),
            k_npos)
      << d->message;
  ASSERT_GE(d->evidence.size(), 2U);
  EXPECT_EQ(d->evidence[0].source, "file:" + k_lib);
  EXPECT_EQ(d->evidence[0].value, "mode 0640, uid 0, gid 0");
  EXPECT_EQ(d->evidence[1].value, "the doctor's user id: 1000");
  EXPECT_TRUE(has_fix_command(*d, "sudo chmod a+r " + k_lib));
  EXPECT_FALSE(has_id(findings, ids::k_security_world_writable_library));
}

TEST(check_library_access, group_members_root_and_an_unknown_user_are_not_accused) {
  auto in_group = user_machine();
  in_group.user.gids = facts::Fact<std::vector<std::uint32_t>>::known({1000, 44}, "test");
  in_group.binaries.push_back(binary(k_lib, "0640", 0, 44));
  EXPECT_FALSE(has_id(run_all(in_group), ids::k_permission_library_unreadable));

  auto root = user_machine();
  root.user.uid = facts::Fact<std::uint32_t>::known(0, "process:getuid");
  root.binaries.push_back(binary(k_lib, "0600", 1000, 1000));
  EXPECT_FALSE(has_id(run_all(root), ids::k_permission_library_unreadable));

  auto unknown = test::machine_without_gpu(); // a snapshot of a tree: no user facts
  unknown.binaries.push_back(binary(k_lib, "0600", 1000, 1000));
  EXPECT_FALSE(has_id(run_all(unknown), ids::k_permission_library_unreadable));

  // The owner's own bits apply to the owner, even when others may read.
  auto owner = user_machine();
  owner.binaries.push_back(binary(k_lib, "0044", 1000, 1000));
  EXPECT_TRUE(has_id(run_all(owner), ids::k_permission_library_unreadable));
}

TEST(check_library_access, a_read_the_system_refused_is_unreadable_whatever_the_mode) {
  auto f = user_machine();
  auto b = binary(k_lib, "0644", 0, 0); // the mode allows it; an ACL or a security module did not
  b.read_error = "permission_denied";
  b.read_error_message = k_lib + ": Permission denied";
  f.binaries.push_back(b);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_permission_library_unreadable);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->evidence.back().value, k_lib + ": Permission denied");
}

TEST(check_library_access, an_unreadable_folder_is_a_finding_not_an_absence) {
  auto f = user_machine();
  f.unreadable.push_back(facts::UnreadablePath{"/usr/local/cuda-13.0/lib64",
                                               "cuDNN libraries",
                                               "permission_denied",
                                               "/usr/local/cuda-13.0/lib64: Permission denied"});
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_permission_path_unreadable);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->subject, "/usr/local/cuda-13.0/lib64");
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_NE(d->message.find("/usr/local/cuda-13.0/lib64 cannot be read by user 1000 (permission "
                            "denied), so the doctor cannot say what it holds (cuDNN libraries)"),
            k_npos)
      << d->message;
}

TEST(check_library_access, a_world_writable_library_is_a_security_warning) {
  auto f = user_machine();
  f.binaries.push_back(binary(k_lib, "0777", 0, 0));
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_security_world_writable_library);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::warning);
  EXPECT_EQ(d->cause_class, CauseClass::security_risk);
  EXPECT_EQ(d->subject, k_lib);
  EXPECT_NE(d->message.find(k_lib + " has mode 0777: any user can overwrite it"), k_npos)
      << d->message;
  ASSERT_EQ(d->evidence.size(), 1U);
  EXPECT_EQ(d->evidence[0].value, "mode 0777");
  EXPECT_TRUE(has_fix_command(*d, "sudo chmod o-w " + k_lib));
  EXPECT_FALSE(has_id(findings, ids::k_permission_library_unreadable));

  f.binaries.front().mode = "0775"; // group-writable only
  EXPECT_FALSE(has_id(run_all(f), ids::k_security_world_writable_library));
}

TEST(check_library_access, a_library_on_a_noexec_mount_cannot_be_mapped) {
  auto f = user_machine();
  const std::string home_lib = "/home/ana/venv/lib/libcudnn.so.9";
  f.mounts = facts::Fact<std::vector<facts::MountInfo>>::known(
      {{"/", "ext4", {"rw", "relatime"}}, {"/home", "ext4", {"rw", "nosuid", "noexec"}}},
      "file:/proc/self/mountinfo");
  f.binaries.push_back(binary(home_lib, "0755", 1000, 1000));
  f.binaries.push_back(binary(k_lib, "0755", 0, 0));
  f.binaries.push_back(binary("/home2/libcudnn.so.9", "0755", 0, 0)); // not under /home
  const auto findings = run_all(f);
  const auto found = all_of(findings, ids::k_permission_noexec_mount);
  ASSERT_EQ(found.size(), 1U);
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.subject, home_lib);
  EXPECT_NE(d.message.find(home_lib + " is on /home, which is mounted noexec"), k_npos)
      << d.message;
  ASSERT_EQ(d.evidence.size(), 1U);
  EXPECT_EQ(d.evidence[0].source, "file:/proc/self/mountinfo");
  EXPECT_EQ(d.evidence[0].value, "/home (ext4): rw,nosuid,noexec");
  EXPECT_TRUE(has_fix_command(d, "sudo mount -o remount,exec /home"));
}

TEST(check_device_nodes, module_without_gpu_nodes_is_reported_and_nvidiactl_alone_proves_nothing) {
  auto facts = test::machine_without_gpu();
  facts.driver.kernel_module_version = test::known("535.104.05");
  facts::DeviceNode ctl{"/dev/nvidiactl", "character_device", "0666", 0, 0, 195, 255};
  facts.driver.device_nodes = facts::Fact<std::vector<facts::DeviceNode>>::known({ctl}, "dir:/dev");
  const auto results = run_all(facts);
  const Finding* f = find_id(results, ids::k_driver_device_nodes_missing);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_EQ(f->cause_class, CauseClass::permission_denied);
  EXPECT_EQ(f->subject, "/dev/nvidia*");
  EXPECT_NE(f->message.find("module 535.104.05 is loaded"), k_npos) << f->message;
  EXPECT_NE(f->message.find("present: /dev/nvidiactl"), k_npos);
  EXPECT_TRUE(has_fix_command(*f, "docker run --gpus all"));

  facts::DeviceNode gpu0{"/dev/nvidia0", "character_device", "0666", 0, 0, 195, 0};
  facts.driver.device_nodes =
      facts::Fact<std::vector<facts::DeviceNode>>::known({ctl, gpu0}, "dir:/dev");
  EXPECT_FALSE(has_id(run_all(facts), ids::k_driver_device_nodes_missing));
}

TEST(check_device_access, nodes_only_their_group_may_open_name_that_group) {
  auto f = user_machine();
  f.driver.device_nodes = facts::Fact<std::vector<facts::DeviceNode>>::known(
      {{"/dev/nvidia0", "character_device", "0660", 0, 44, 195, 0},
       {"/dev/nvidiactl", "character_device", "0660", 0, 44, 195, 255},
       {"/dev/nvidia-caps", "directory", "0755", 0, 0, 0, 0}},
      "dir:/dev");
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_permission_device_nodes);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::error);
  EXPECT_EQ(d->cause_class, CauseClass::permission_denied);
  EXPECT_EQ(d->subject, "/dev/nvidia*");
  EXPECT_NE(d->message.find("user 1000 cannot open /dev/nvidia0 (mode 0660, uid 0, gid 44), "
                            "/dev/nvidiactl (mode 0660, uid 0, gid 44)"),
            k_npos)
      << d->message;
  EXPECT_NE(d->message.find("in none of those groups (ana)"), k_npos);
  EXPECT_EQ(d->evidence.front().source, "dir:/dev");
  EXPECT_TRUE(has_fix_command(*d, "sudo usermod -aG 44 $USER"));

  f.user.gids = facts::Fact<std::vector<std::uint32_t>>::known({1000, 44}, "process:getgroups");
  EXPECT_FALSE(has_id(run_all(f), ids::k_permission_device_nodes));
  f.user.gids = facts::Fact<std::vector<std::uint32_t>>::unknown("not the live machine");
  EXPECT_FALSE(has_id(run_all(f), ids::k_permission_device_nodes));
}

TEST(check_search_paths, world_writable_directories_on_the_paths_are_named_with_their_place) {
  auto f = user_machine();
  f.environment["LD_LIBRARY_PATH"] = "/usr/local/cuda/lib64;/opt/shared/:relative";
  f.environment["PATH"] = "/usr/bin:/tmp";
  f.probed_paths = {directory("/opt/shared", "0777"),
                    directory("/tmp", "1777"),
                    directory("/usr/bin", "0755"),
                    directory("/usr/local/cuda/lib64", "0755")};
  const auto findings = run_all(f);
  const auto found = all_of(findings, ids::k_security_writable_search_dir);
  ASSERT_EQ(found.size(), 2U);
  const Finding* shared = found[0]->subject == "/opt/shared" ? found[0] : found[1];
  const Finding* tmp = found[0]->subject == "/tmp" ? found[0] : found[1];
  EXPECT_EQ(shared->severity, Severity::warning);
  EXPECT_EQ(shared->cause_class, CauseClass::security_risk);
  // ';' splits LD_LIBRARY_PATH as ':' does; the trailing slash is not part of the directory.
  EXPECT_NE(shared->message.find("/opt/shared (mode 0777) is entry 2 of LD_LIBRARY_PATH"), k_npos)
      << shared->message;
  EXPECT_TRUE(has_fix_command(*shared, "sudo chmod o-w /opt/shared"));
  // A sticky /tmp still lets anyone add a new library.
  ASSERT_EQ(tmp->subject, "/tmp");
  EXPECT_NE(tmp->message.find("/tmp (mode 1777) is entry 2 of PATH"), k_npos) << tmp->message;
  EXPECT_FALSE(has_id(findings, ids::k_security_ld_preload));
}

TEST(check_search_paths, ld_preload_and_ld_audit_are_named_when_set) {
  auto f = user_machine();
  f.environment["LD_PRELOAD"] = "/opt/profiler/libinject.so";
  f.environment["LD_AUDIT"] = "  ";
  const auto findings = run_all(f);
  const auto found = all_of(findings, ids::k_security_ld_preload);
  ASSERT_EQ(found.size(), 1U) << "an LD_AUDIT of blanks names nothing";
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::warning);
  EXPECT_EQ(d.subject, "LD_PRELOAD");
  EXPECT_NE(
      d.message.find("LD_PRELOAD=/opt/profiler/libinject.so: every program loads these first"),
      k_npos)
      << d.message;
  EXPECT_EQ(d.evidence.front().source, "env:LD_PRELOAD");
  EXPECT_TRUE(has_fix_command(d, "unset LD_PRELOAD"));
}

TEST(check_unsafe_runpaths, relative_empty_and_writable_entries_are_named_and_origin_is_not) {
  auto f = user_machine();
  auto b = binary("/opt/app/lib/libcudnn.so.9", "0755", 0, 0);
  b.runpath = {"$ORIGIN/../lib", "", "lib", "$ORIGINx/lib", "/opt/world", "/usr/lib"};
  f.binaries.push_back(b);
  f.probed_paths = {directory("/opt/world", "0777"), directory("/usr/lib", "0755")};
  const auto findings = run_all(f);
  const auto found = all_of(findings, ids::k_security_unsafe_runpath);
  ASSERT_EQ(found.size(), 4U);
  std::vector<std::string> messages;
  for (const Finding* d : found) {
    EXPECT_EQ(d->severity, Severity::warning);
    EXPECT_EQ(d->subject, "/opt/app/lib/libcudnn.so.9");
    EXPECT_EQ(d->evidence.front().value,
              "RUNPATH: $ORIGIN/../lib::lib:$ORIGINx/lib:/opt/world:/usr/lib");
    messages.push_back(d->message);
  }
  auto has_message = [&](std::string_view part) {
    return std::any_of(messages.begin(), messages.end(), [&](const std::string& m) {
      return m.find(part) != std::string::npos;
    });
  };
  EXPECT_TRUE(
      has_message("RUNPATH entry '', an empty entry, which ld.so takes as the current "
                  "directory"));
  EXPECT_TRUE(has_message("RUNPATH entry 'lib', relative to the current directory"));
  EXPECT_TRUE(has_message("RUNPATH entry '$ORIGINx/lib', relative to the current directory"));
  EXPECT_TRUE(
      has_message("RUNPATH entry '/opt/world', a directory any user can write to (mode "
                  "0777)"));
  EXPECT_FALSE(has_message("'$ORIGIN/../lib'"));
  EXPECT_FALSE(has_message("'/usr/lib'"));
  // The fix for a writable directory is its own, not the current-directory advice.
  for (const Finding* d : found) {
    const bool writable = d->message.find("/opt/world") != std::string::npos;
    const bool cwd_fix = std::any_of(d->fixes.begin(), d->fixes.end(), [](const Fix& x) {
      return x.text.find("current directory") != std::string::npos;
    });
    EXPECT_EQ(cwd_fix, !writable) << d->message;
  }
}

} // namespace
} // namespace doctor
