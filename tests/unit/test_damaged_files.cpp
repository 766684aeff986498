// SPDX-License-Identifier: MIT
// The checks of family 3 (damaged_files.cpp): cuDNN installations missing a library, files that
// differ from their package records (--verify), binaries whose headers show damage.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace doctor {
namespace {

using test::all_of;
using test::find_id;
using test::has_id;
using test::run_all;
namespace ids = test::ids;

constexpr const char* k_sp = "/venv/lib/python3.11/site-packages";

facts::FileVerification verification(std::string path,
                                     std::string manager,
                                     std::string package,
                                     std::string record,
                                     std::string expected,
                                     std::string actual,
                                     std::optional<std::uint64_t> expected_size,
                                     std::uint64_t actual_size) {
  facts::FileVerification v;
  v.path = std::move(path);
  v.manager = std::move(manager);
  v.package = std::move(package);
  v.record = std::move(record);
  v.algorithm = v.manager == "dpkg" ? "md5" : "sha256";
  v.expected = std::move(expected);
  v.actual = facts::Fact<std::string>::known(std::move(actual), "file:" + v.path);
  v.expected_size = expected_size;
  v.actual_size = actual_size;
  return v;
}

const std::string k_record = std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD";
const std::string k_lib = std::string(k_sp) + "/nvidia/cudnn/lib";

// A --verify run over a venv: one good file, one with other bytes, one truncated, one unreadable.
facts::Facts verified_machine() {
  facts::Facts f = test::machine_without_gpu();
  facts::PythonEnv env;
  env.prefix = "/venv";
  env.site_packages = test::known(k_sp);
  f.python_envs.push_back(env);
  f.integrity.requested = true;
  const std::string pkg = "nvidia-cudnn-cu12 9.1.0.70";
  f.integrity.files.push_back(
      verification(k_lib + "/libcudnn.so.9", "pip", pkg, k_record, "aaaa", "aaaa", 129240, 129240));
  f.integrity.files.push_back(verification(
      k_lib + "/libcudnn_cnn.so.9", "pip", pkg, k_record, "bbbb", "cccc", 4203904, 4203904));
  // As the collector leaves a file whose size differs: examined, not hashed.
  facts::FileVerification truncated = verification(
      k_lib + "/libcudnn_graph.so.9", "pip", pkg, k_record, "dddd", "", 4451728, 102400);
  truncated.actual =
      facts::Fact<std::string>::unknown("not hashed: its size differs from the record's");
  f.integrity.files.push_back(truncated);
  facts::FileVerification unreadable =
      verification(k_lib + "/libcudnn_ops.so.9", "pip", pkg, k_record, "ffff", "", 10, 10);
  unreadable.actual = facts::Fact<std::string>::unknown("cannot read it: permission denied");
  unreadable.actual_size = std::nullopt;
  f.integrity.files.push_back(unreadable);
  // A link out of the package's tree: nothing of its target, so nothing to judge.
  facts::FileVerification leak =
      verification(k_lib + "/libcudnn_leak.so.9", "pip", pkg, k_record, "0000", "", 1000, 0);
  leak.actual = facts::Fact<std::string>::unknown("not examined: it leads out of "
                                                  + std::string(k_sp) + ", the package's tree");
  leak.actual_size = std::nullopt;
  f.integrity.files.push_back(leak);
  return f;
}

TEST(check_cudnn_completeness, complete_cudnn9_set_gives_no_finding) {
  auto facts = test::machine_without_gpu();
  facts.cudnn.push_back(
      test::cudnn_install("/usr/local/cuda-13.0/lib", 9, test::k_cudnn9_full, "9.19.0"));
  const auto findings = run_all(facts);
  EXPECT_FALSE(has_id(findings, ids::k_cudnn_library_set_incomplete));
  EXPECT_FALSE(has_id(findings, ids::k_cudnn_sublibrary_version_mixed));
}

TEST(check_cudnn_completeness, missing_sublibrary_is_named) {
  auto members = test::k_cudnn9_full;
  members.erase(members.begin() + 2); // libcudnn_cnn.so.9
  auto facts = test::machine_without_gpu();
  facts.cudnn.push_back(test::cudnn_install("/opt/cudnn/lib", 9, members, "9.19.0"));
  const auto results = run_all(facts);
  const Finding* f = find_id(results, ids::k_cudnn_library_set_incomplete);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cause_class, CauseClass::library_missing_cudnn_sublibrary);
  EXPECT_NE(f->message.find("lacks libcudnn_cnn.so.9"), std::string::npos);
  EXPECT_EQ(f->subject, "/opt/cudnn/lib");
}

TEST(check_cudnn_completeness, jit_variant_counts_as_complete) {
  auto facts = test::machine_without_gpu();
  facts.cudnn.push_back(test::cudnn_install("/opt/conda/lib",
                                            9,
                                            {{"libcudnn.so.9", "9.5.0"},
                                             {"libcudnn_graph.so.9", "9.5.0"},
                                             {"libcudnn_engines_runtime_compiled.so.9", "9.5.0"}},
                                            "9.5.0"));
  EXPECT_FALSE(has_id(run_all(facts), ids::k_cudnn_library_set_incomplete));
}

TEST(check_cudnn_completeness, tensor_ir_engine_is_required_from_9_21) {
  auto facts = test::machine_without_gpu();
  auto members = test::k_cudnn9_full;
  for (auto& m : members) {
    m.second = "9.21.0";
  }
  facts.cudnn.push_back(test::cudnn_install("/opt/cudnn/lib", 9, members, "9.21.0"));
  const auto results = run_all(facts);
  const Finding* f = find_id(results, ids::k_cudnn_library_set_incomplete);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("libcudnn_engines_tensor_ir.so.9"), std::string::npos);
}

TEST(check_cudnn_completeness, pip_owned_copy_gets_a_pinned_reinstall_command) {
  auto members = test::k_cudnn9_full;
  members.pop_back();
  auto facts = test::machine_without_gpu();
  auto inst = test::cudnn_install(
      "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib", 9, members, "9.1.0");
  inst.package = test::known("pip nvidia-cudnn-cu12 9.1.0.70", "record:/venv/RECORD");
  facts.cudnn.push_back(inst);
  const auto results = run_all(facts);
  const Finding* f = find_id(results, ids::k_cudnn_library_set_incomplete);
  ASSERT_NE(f, nullptr);
  const bool pinned = std::any_of(f->fixes.begin(), f->fixes.end(), [](const Fix& x) {
    return x.command == "pip install --force-reinstall --no-deps nvidia-cudnn-cu12==9.1.0.70";
  });
  EXPECT_TRUE(pinned);
  for (const Fix& x : f->fixes) {
    EXPECT_EQ(x.command.find("apt"), std::string::npos) << "a pip copy gets no apt command";
  }
}

TEST(check_integrity_hashes, each_differing_file_is_one_error_with_both_digests) {
  const auto findings = run_all(verified_machine());
  const auto mismatches = all_of(findings, ids::k_integrity_hash_mismatch);
  ASSERT_EQ(mismatches.size(), 2U)
      << "cnn (digest) and graph (size); not the good, the unreadable or the link out";
  const Finding* cnn = nullptr;
  const Finding* graph = nullptr;
  for (const Finding* m : mismatches) {
    (m->subject == k_lib + "/libcudnn_cnn.so.9" ? cnn : graph) = m;
  }
  ASSERT_TRUE(cnn && graph);
  EXPECT_EQ(graph->subject, k_lib + "/libcudnn_graph.so.9");
  EXPECT_EQ(cnn->severity, Severity::error);
  EXPECT_NE(cnn->message.find("sha256 differs"), std::string::npos) << cnn->message;
  EXPECT_NE(cnn->message.find(k_record), std::string::npos) << cnn->message;
  EXPECT_NE(cnn->message.find("nvidia-cudnn-cu12 9.1.0.70"), std::string::npos);
  EXPECT_NE(graph->message.find("size 102400 bytes instead of 4451728, truncated"),
            std::string::npos)
      << graph->message;
  ASSERT_EQ(graph->evidence.size(), 2U);
  EXPECT_EQ(graph->evidence[1].source, "file:" + k_lib + "/libcudnn_graph.so.9");
  EXPECT_EQ(graph->evidence[1].value,
            "on disk: 102400 bytes (not hashed: its size differs from the record's)");
  ASSERT_GE(cnn->evidence.size(), 2U);
  EXPECT_EQ(cnn->evidence[0].source, "record:" + k_record);
  EXPECT_NE(cnn->evidence[0].value.find("bbbb"), std::string::npos);
  EXPECT_NE(cnn->evidence[1].value.find("cccc"), std::string::npos);
  ASSERT_FALSE(cnn->fixes.empty());
  EXPECT_EQ(cnn->fixes[0].command,
            "/venv/bin/python -m pip install --force-reinstall --no-deps "
            "nvidia-cudnn-cu12==9.1.0.70");
}

TEST(check_integrity_hashes, larger_file_is_not_called_truncated) {
  facts::Facts f = test::machine_without_gpu();
  f.integrity.requested = true;
  f.integrity.files.push_back(verification("/x/libcudnn.so.9",
                                           "pip",
                                           "nvidia-cudnn-cu12 9.1.0.70",
                                           "/x/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD",
                                           "aa",
                                           "bb",
                                           10,
                                           20));
  const auto findings = run_all(f);
  const Finding* m = find_id(findings, ids::k_integrity_hash_mismatch);
  ASSERT_TRUE(m);
  EXPECT_NE(m->message.find("size 20 bytes instead of 10, larger than recorded"), std::string::npos)
      << m->message;
  EXPECT_EQ(m->fixes[0].command,
            "pip install --force-reinstall --no-deps nvidia-cudnn-cu12==9.1.0.70")
      << "no known environment owns that site-packages";
}

TEST(check_integrity_hashes, reinstall_command_follows_the_package_manager) {
  facts::Facts f = test::machine_without_gpu();
  f.integrity.requested = true;
  f.integrity.files.push_back(verification("/opt/conda/envs/dl/lib/libcudnn.so.9",
                                           "conda",
                                           "cudnn 9.1.0.70",
                                           "/opt/conda/envs/dl/conda-meta/cudnn-9.1.0.70-h0.json",
                                           "aa",
                                           "bb",
                                           10,
                                           10));
  f.integrity.files.push_back(verification("/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0",
                                           "dpkg",
                                           "libcudnn9-cuda-12 9.1.0.70-1",
                                           "/var/lib/dpkg/info/libcudnn9-cuda-12:amd64.md5sums",
                                           "aa",
                                           "bb",
                                           std::nullopt,
                                           10));
  f.integrity.files.push_back(
      verification("/usr/local/cuda-13.0/lib/libcudnn.so.9",
                   "pip",
                   "nvidia-cudnn-cu13 9.19.0.56",
                   "/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD",
                   "aa",
                   "bb",
                   10,
                   10));
  const auto findings = run_all(f);
  std::map<std::string, std::string> command_of;
  for (const Finding* m : all_of(findings, ids::k_integrity_hash_mismatch)) {
    ASSERT_FALSE(m->fixes.empty());
    command_of[m->subject] = m->fixes[0].command;
  }
  ASSERT_EQ(command_of.size(), 3U);
  EXPECT_EQ(command_of["/opt/conda/envs/dl/lib/libcudnn.so.9"],
            "conda install -p /opt/conda/envs/dl --force-reinstall cudnn==9.1.0.70");
  EXPECT_EQ(command_of["/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0"],
            "sudo apt install --reinstall libcudnn9-cuda-12");
  EXPECT_EQ(command_of["/usr/local/cuda-13.0/lib/libcudnn.so.9"], "")
      << "pip did not install a toolkit tree; no pip command can repair it";
}

TEST(check_integrity_hashes, nothing_without_verify) {
  facts::Facts f = verified_machine();
  f.integrity.requested = false;
  EXPECT_FALSE(has_id(run_all(f), ids::k_integrity_hash_mismatch));
}

TEST(check_integrity_hashes, all_files_as_recorded_is_silent) {
  facts::Facts f = verified_machine();
  f.integrity.files.resize(1);
  EXPECT_FALSE(has_id(run_all(f), ids::k_integrity_hash_mismatch));
}

facts::BinaryInfo binary(std::string path, std::string format, std::vector<std::string> problems) {
  facts::BinaryInfo b;
  b.path = std::move(path);
  b.format = std::move(format);
  b.size = 102400;
  b.problems = std::move(problems);
  return b;
}

TEST(check_binary_damage, damaged_binary_is_an_error_without_verify) {
  facts::Facts f = test::machine_without_gpu();
  f.binaries.push_back(binary("/usr/local/cuda-13.0/lib/libcudnn.so.9", "elf", {}));
  f.binaries.push_back(binary("/usr/local/cuda-13.0/lib/libcudnn_graph.so.9",
                              "elf",
                              {"section header table ends at 4451664, past the end of the file "
                               "(102400 bytes)",
                               "program header 2 lies past the end of the file"}));
  const auto findings = run_all(f);
  const auto damaged = all_of(findings, ids::k_integrity_binary_damaged);
  ASSERT_EQ(damaged.size(), 1U);
  const Finding* d = damaged[0];
  EXPECT_EQ(d->subject, "/usr/local/cuda-13.0/lib/libcudnn_graph.so.9");
  EXPECT_EQ(d->severity, Severity::error);
  EXPECT_NE(d->message.find("is not a complete ELF file: section header table ends at 4451664"),
            std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("; program header 2"), std::string::npos) << d->message;
  EXPECT_EQ(d->evidence.size(), 3U);
}

TEST(check_binary_damage, a_file_that_could_not_be_read_is_not_damaged) {
  facts::Facts f = test::machine_without_gpu();
  auto unreadable = binary("/usr/local/cuda-13.0/lib/libcudnn.so.9", "unknown", {});
  unreadable.read_error = "permission_denied";
  unreadable.read_error_message = "/usr/local/cuda-13.0/lib/libcudnn.so.9: Permission denied";
  f.binaries.push_back(unreadable);
  // A snapshot written before read_error kept the reason as a problem.
  f.binaries.push_back(binary("/usr/local/cuda-13.0/lib/libcudnn_ops.so.9",
                              "unknown",
                              {"cannot be read: /x/libcudnn_ops.so.9: Permission denied"}));
  EXPECT_TRUE(all_of(run_all(f), ids::k_integrity_binary_damaged).empty());
}

TEST(check_binary_damage, long_problem_lists_are_shortened_in_the_message_only) {
  facts::Facts f = test::machine_without_gpu();
  f.binaries.push_back(binary("/x/libcudnn_graph.so.9", "elf", {"p1", "p2", "p3", "p4"}));
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_integrity_binary_damaged);
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("p1; p2; and 2 more"), std::string::npos) << d->message;
  EXPECT_EQ(d->evidence.size(), 5U) << "the summary line and all four problems";
}

TEST(check_binary_damage, pe_and_unknown_formats_are_named) {
  facts::Facts f = test::machine_without_gpu();
  f.binaries.push_back(binary("/c/cudnn64_9.dll", "pe", {"section .text lies past the end"}));
  f.binaries.push_back(binary("/x/libcudnn.so.9", "unknown", {"empty file"}));
  const auto findings = run_all(f);
  std::map<std::string, std::string> message_of;
  for (const Finding* d : all_of(findings, ids::k_integrity_binary_damaged)) {
    message_of[d->subject] = d->message;
  }
  EXPECT_NE(message_of["/c/cudnn64_9.dll"].find("complete PE file"), std::string::npos);
  EXPECT_NE(message_of["/x/libcudnn.so.9"].find("complete ELF file: empty file"),
            std::string::npos);
}

TEST(check_binary_damage, owning_package_from_verify_is_evidence) {
  facts::Facts f = verified_machine();
  f.binaries.push_back(binary(k_lib + "/libcudnn_graph.so.9", "elf", {"truncated"}));
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, ids::k_integrity_binary_damaged);
  ASSERT_TRUE(d);
  const bool named = std::any_of(d->evidence.begin(), d->evidence.end(), [](const Evidence& e) {
    return e.source == "record:" + k_record
           && e.value.find("installed by pip nvidia-cudnn-cu12 9.1.0.70: 4451728 bytes")
                  != std::string::npos;
  });
  EXPECT_TRUE(named);
}

TEST(check_integrity_hashes, unread_record_is_a_warning_naming_it) {
  facts::Facts f = test::machine_without_gpu();
  f.integrity.requested = true;
  f.integrity.unread_records.push_back(
      facts::UnreadPackageRecord{k_record,
                                 "pip",
                                 "nvidia-cudnn-cu12 9.1.0.70",
                                 "larger than 16 MB, the most a package "
                                 "record is read to"});
  const auto findings = run_all(f);
  const Finding* u = find_id(findings, ids::k_integrity_record_unread);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->severity, Severity::warning);
  EXPECT_EQ(u->subject, k_record);
  EXPECT_NE(u->message.find("nvidia-cudnn-cu12 9.1.0.70, " + k_record
                            + ", could not be read (larger than 16 MB"),
            std::string::npos)
      << u->message;
  f.integrity.requested = false;
  EXPECT_FALSE(has_id(run_all(f), ids::k_integrity_record_unread)) << "only with --verify";
}

} // namespace
} // namespace doctor
