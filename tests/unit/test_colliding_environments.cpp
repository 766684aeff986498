// SPDX-License-Identifier: MIT
// The checks of family 7 (colliding_environments.cpp): several toolkits and cuDNN copies, and
// what the loader model says a framework, a cuDNN dispatcher and a plain program would load, over
// in-memory trees whose loader walk is recorded into the facts.
#include "support/check_fixtures.hpp"

#include <gtest/gtest.h>

namespace doctor {
namespace {

using test::all_of;
using test::find_id;
using test::has_evidence;
using test::has_fix_command;
using test::has_id;
using test::run_all;
using test::ids::k_cuda_multiple_toolkits;
using test::ids::k_cudnn_multiple_copies;
using test::ids::k_loader_cuda_library_not_found;
using test::ids::k_loader_cudnn_dependency_not_found;
using test::ids::k_loader_cudnn_not_found;
using test::ids::k_loader_cudnn_set_split;
using test::ids::k_loader_cudnn_sublibrary_not_found;
using test::ids::k_loader_shadowed_copy;
using test::ids::k_loader_stub_libcuda;
using test::ids::k_loader_zlib_not_found;

constexpr auto k_npos = std::string::npos;
const std::string k_site = "/venv/lib/python3.11/site-packages";
const std::string k_wheel = k_site + "/nvidia/cudnn/lib";
const std::string k_torch_lib = k_site + "/torch/lib/libtorch_cuda.so";
const std::string k_context = "torch 2.4.1+cu121 in /venv";

// A Debian machine with torch 2.4.1+cu121 in /venv; no LD_LIBRARY_PATH, no ld.so.cache.
facts::Facts torch_machine() {
  auto f = test::machine_without_gpu();
  f.linker.default_dirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"};
  test::add_env(f, test::framework("torch", "2.4.1+cu121", "12.1", "9.1.0.70"));
  return f;
}

// libtorch_cuda.so as the cu12 wheels link it: cuDNN and cuBLAS from the NVIDIA wheels beside it.
void torch_files(test::MemoryTree& t) {
  t.library(k_torch_lib,
            {"libcudnn.so.9", "libcublas.so.12"},
            {"$ORIGIN/../../nvidia/cudnn/lib", "$ORIGIN/../../nvidia/cublas/lib"});
  t.library(k_site + "/nvidia/cublas/lib/libcublas.so.12");
}

// cuDNN 9's files in `dir` (each with RUNPATH $ORIGIN, as NVIDIA's wheels have them) but
// `missing`; libcudnn_graph.so.9 needs libz.so.1.
void cudnn_files(test::MemoryTree& t, const std::string& dir, std::string_view missing = "") {
  for (const auto& [name, version] : test::k_cudnn9_full) {
    if (name != missing) {
      t.library(dir + "/" + name,
                name == "libcudnn_graph.so.9" ? std::vector<std::string>{"libz.so.1"}
                                              : std::vector<std::string>{},
                {"$ORIGIN"});
    }
  }
}

// The facts of a cuDNN installation whose files are `dir`/<name> themselves (no version links),
// as the tree holds them.
facts::CudnnInstall cudnn_at(const std::string& dir,
                             const std::vector<std::pair<std::string, std::string>>& members,
                             const char* version) {
  auto inst = test::cudnn_install(dir, 9, members, version);
  for (facts::CudnnLibrary& lib : inst.libraries) {
    lib.real_path = dir + "/" + lib.name;
  }
  return inst;
}

std::vector<std::pair<std::string, std::string>> cudnn9_of(const char* version) {
  auto members = test::k_cudnn9_full;
  for (auto& m : members) {
    m.second = version;
  }
  return members;
}

TEST(check_multiple_toolkits, several_toolkits_and_copies_are_listed) {
  auto facts = test::machine_without_gpu();
  facts::CudaToolkit a;
  a.path = "/usr/local/cuda-12.4";
  a.version = test::known_version("12.4");
  facts::CudaToolkit b;
  b.path = "/usr/local/cuda-13.0";
  b.version = test::known_version("13.0");
  facts.cuda_toolkits = {a, b};
  facts.cudnn.push_back(test::cudnn_install("/a", 9, test::k_cudnn9_full, "9.19.0"));
  facts.cudnn.push_back(test::cudnn_install("/b", 9, test::k_cudnn9_full, "9.19.0"));
  const auto findings = run_all(facts);
  const Finding* tk = find_id(findings, k_cuda_multiple_toolkits);
  ASSERT_NE(tk, nullptr);
  EXPECT_EQ(tk->severity, Severity::info);
  EXPECT_EQ(tk->subject, "CUDA toolkits");
  EXPECT_NE(tk->message.find("2 CUDA toolkits are installed: 12.4 at /usr/local/cuda-12.4; 13.0 at "
                             "/usr/local/cuda-13.0"),
            k_npos);
  const Finding* copies = find_id(findings, k_cudnn_multiple_copies);
  ASSERT_NE(copies, nullptr);
  EXPECT_NE(copies->message.find("9.19.0 in /a; 9.19.0 in /b"), k_npos) << copies->message;

  facts.cuda_toolkits.pop_back();
  facts.cudnn.pop_back();
  EXPECT_FALSE(has_id(run_all(facts), k_cuda_multiple_toolkits));
  EXPECT_FALSE(has_id(run_all(facts), k_cudnn_multiple_copies));
}

TEST(check_loader_not_found, a_cuda_library_no_path_holds_is_named_with_every_path_tried) {
  auto f = torch_machine();
  test::MemoryTree t;
  t.library(k_torch_lib, {"libcudnn.so.9", "libcublas.so.12"}, {"$ORIGIN/../../nvidia/cudnn/lib"});
  cudnn_files(t, k_wheel);
  t.library("/lib/x86_64-linux-gnu/libz.so.1");
  t.record(f);
  const auto findings = run_all(f);
  const auto found = all_of(findings, k_loader_cuda_library_not_found);
  ASSERT_EQ(found.size(), 1U);
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.cause_class, CauseClass::library_missing_cuda_runtime);
  EXPECT_EQ(d.subject, "/venv");
  EXPECT_NE(d.message.find(k_context + " cannot load libcublas.so.12 (asked for by " + k_torch_lib
                           + "): none of the 4 paths the loader searches holds a loadable copy"),
            k_npos)
      << d.message;
  ASSERT_FALSE(d.evidence.empty());
  EXPECT_EQ(d.evidence.front().source, "loader");
  EXPECT_EQ(d.evidence.front().value, "DT_NEEDED of " + k_torch_lib);
  EXPECT_TRUE(has_evidence(d, k_wheel + "/libcublas.so.12: absent"));
  EXPECT_TRUE(has_evidence(d, "/usr/lib/x86_64-linux-gnu/libcublas.so.12: absent"));
  EXPECT_TRUE(has_fix_command(d, "/venv/bin/python -m pip install --force-reinstall torch"));
  EXPECT_FALSE(has_fix_command(d, "tensorflow"));
  // Everything else loads.
  EXPECT_FALSE(has_id(findings, k_loader_cudnn_not_found));
  EXPECT_FALSE(has_id(findings, k_loader_cudnn_sublibrary_not_found));
  EXPECT_FALSE(has_id(findings, k_loader_zlib_not_found));

  // With the cuBLAS wheel in place nothing is missing.
  torch_files(t);
  t.record(f);
  EXPECT_FALSE(has_id(run_all(f), k_loader_cuda_library_not_found));
}

TEST(check_loader_not_found, a_sublibrary_missing_beside_the_dispatcher_is_named) {
  auto f = torch_machine();
  test::MemoryTree t;
  torch_files(t);
  cudnn_files(t, k_wheel, "libcudnn_cnn.so.9");
  t.library("/lib/x86_64-linux-gnu/libz.so.1");
  t.record(f);
  const auto findings = run_all(f);
  const auto found = all_of(findings, k_loader_cudnn_sublibrary_not_found);
  ASSERT_EQ(found.size(), 1U);
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.cause_class, CauseClass::library_missing_cudnn_sublibrary);
  EXPECT_EQ(d.subject, "/venv");
  EXPECT_NE(d.message.find("In " + k_context + ", " + k_wheel
                           + "/libcudnn.so.9 opens libcudnn_cnn.so.9 at run time, and none of the"),
            k_npos)
      << d.message;
  EXPECT_NE(d.message.find("CUDNN_STATUS_NOT_INITIALIZED"), k_npos);
  EXPECT_EQ(d.evidence.front().value, "opened at run time by " + k_wheel + "/libcudnn.so.9");
  EXPECT_TRUE(has_evidence(d, k_wheel + "/libcudnn_cnn.so.9: absent"));
  EXPECT_FALSE(has_id(findings, k_loader_cudnn_not_found));
  EXPECT_FALSE(has_id(findings, k_loader_cuda_library_not_found));
}

TEST(check_loader_not_found, cudnn_without_zlib_gets_the_distribution_s_zlib_package) {
  auto f = torch_machine();
  test::MemoryTree t;
  torch_files(t);
  cudnn_files(t, k_wheel);
  t.record(f);
  const auto findings = run_all(f);
  const auto found = all_of(findings, k_loader_zlib_not_found);
  ASSERT_EQ(found.size(), 1U);
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.cause_class, CauseClass::library_missing_zlib);
  EXPECT_EQ(d.subject, "/venv");
  EXPECT_NE(d.message.find("In " + k_context + ", " + k_wheel
                           + "/libcudnn_graph.so.9 needs libz.so.1, and none of the"),
            k_npos)
      << d.message;
  EXPECT_EQ(d.evidence.front().value, "DT_NEEDED of " + k_wheel + "/libcudnn_graph.so.9");
  EXPECT_TRUE(has_evidence(d, "/lib/x86_64-linux-gnu/libz.so.1: absent"));
  // Debian's package, not another distribution's.
  EXPECT_TRUE(has_fix_command(d, "sudo apt install zlib1g"));
  EXPECT_FALSE(has_fix_command(d, "dnf"));
  EXPECT_FALSE(has_id(findings, k_loader_cudnn_dependency_not_found))
      << "the framework's finding covers the cuDNN's own";

  t.library("/lib/x86_64-linux-gnu/libz.so.1");
  t.record(f);
  EXPECT_FALSE(has_id(run_all(f), k_loader_zlib_not_found));
}

TEST(check_loader_not_found, missing_cudnn_points_at_the_copy_the_machine_has) {
  auto f = torch_machine();
  f.cudnn.push_back(test::cudnn_install("/opt/cudnn/lib", 9, test::k_cudnn9_full, "9.19.0"));
  test::MemoryTree t;
  torch_files(t);
  t.record(f);
  const auto findings = run_all(f);
  const auto found = all_of(findings, k_loader_cudnn_not_found);
  ASSERT_EQ(found.size(), 1U);
  const Finding& d = *found.front();
  EXPECT_EQ(d.cause_class, CauseClass::library_missing_cudnn);
  EXPECT_EQ(d.subject, "/venv");
  EXPECT_NE(
      d.message.find(k_context + " cannot load libcudnn.so.9: it asks for it from " + k_torch_lib),
      k_npos)
      << d.message;
  EXPECT_TRUE(has_fix_command(d, "export LD_LIBRARY_PATH=/opt/cudnn/lib:$LD_LIBRARY_PATH"));
  EXPECT_TRUE(has_fix_command(d, "/venv/bin/python -m pip install --force-reinstall torch"));
  // A plain program not finding that cuDNN is normal: no finding for it.
  EXPECT_EQ(findings.end(), std::find_if(findings.begin(), findings.end(), [](const Finding& x) {
              return x.id.starts_with("loader.") && x.subject != "/venv";
            }));
}

TEST(check_loader_not_found, a_cudnn_whose_cuda_libraries_are_missing_is_one_finding_per_dir) {
  auto f = test::machine_without_gpu();
  f.linker.default_dirs = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"};
  const std::string dir = "/opt/cudnn8/lib";
  std::vector<std::pair<std::string, std::string>> members;
  test::MemoryTree t;
  for (const char* name : {"libcudnn.so.8",
                           "libcudnn_ops_infer.so.8",
                           "libcudnn_ops_train.so.8",
                           "libcudnn_cnn_infer.so.8",
                           "libcudnn_cnn_train.so.8",
                           "libcudnn_adv_infer.so.8",
                           "libcudnn_adv_train.so.8"}) {
    members.emplace_back(name, "8.9.7");
    const std::string_view n = name;
    std::vector<std::string> needed;
    if (n == "libcudnn_ops_infer.so.8") {
      needed = {"libcublas.so.11", "libcublasLt.so.11"};
    } else if (n == "libcudnn_cnn_infer.so.8") {
      needed = {"libcublasLt.so.11"};
    }
    t.library(dir + "/" + name, needed, {"$ORIGIN"});
  }
  auto inst = test::cudnn_install(dir, 8, members, "8.9.7");
  for (facts::CudnnLibrary& lib : inst.libraries) {
    lib.real_path = dir + "/" + lib.name;
  }
  f.cudnn.push_back(inst);
  t.record(f);
  const auto findings = run_all(f);
  const auto found = all_of(findings, k_loader_cudnn_dependency_not_found);
  ASSERT_EQ(found.size(), 1U);
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::warning);
  EXPECT_EQ(d.subject, dir);
  EXPECT_NE(d.message.find("libcudnn_cnn_infer.so.8, libcudnn_ops_infer.so.8 in " + dir
                           + " need libcublas.so.11, libcublasLt.so.11 (DT_NEEDED)"),
            k_npos)
      << d.message;
  EXPECT_NE(d.message.find("Error: libcublas.so.11: cannot open shared object file"), k_npos);
  EXPECT_TRUE(has_evidence(d, "/usr/lib/x86_64-linux-gnu/libcublas"));
}

TEST(check_loader_cudnn_split, a_sublibrary_from_ld_library_path_splits_the_set) {
  auto f = torch_machine();
  f.environment["LD_LIBRARY_PATH"] = "/opt/stray/lib";
  f.cudnn.push_back(cudnn_at(k_wheel, cudnn9_of("9.19.0"), "9.19.0"));
  f.cudnn.push_back(cudnn_at("/opt/stray/lib", {{"libcudnn_cnn.so.9", "9.1.0"}}, "9.1.0"));
  test::MemoryTree t;
  torch_files(t);
  cudnn_files(t, k_wheel);
  t.library("/lib/x86_64-linux-gnu/libz.so.1");
  t.library("/opt/stray/lib/libcudnn_cnn.so.9");
  t.record(f);
  const auto findings = run_all(f);
  const auto found = all_of(findings, k_loader_cudnn_set_split);
  ASSERT_EQ(found.size(), 1U) << "once per dispatcher, though two contexts see it";
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.cause_class, CauseClass::version_mismatch_cudnn);
  EXPECT_EQ(d.subject, k_wheel);
  EXPECT_NE(d.message.find("In " + k_context + ", the cuDNN dispatcher " + k_wheel
                           + "/libcudnn.so.9 (9.19.0) would open sub-libraries from elsewhere: "
                             "libcudnn_cnn.so.9 from /opt/stray/lib (9.1.0, through "
                             "LD_LIBRARY_PATH)"),
            k_npos)
      << d.message;
  EXPECT_TRUE(has_evidence(d, "/opt/stray/lib/libcudnn_cnn.so.9: found"));
  EXPECT_TRUE(has_fix_command(d, "unset LD_LIBRARY_PATH"));

  f.environment.erase("LD_LIBRARY_PATH");
  t.record(f);
  EXPECT_FALSE(has_id(run_all(f), k_loader_cudnn_set_split));
}

TEST(check_loader_shadowed, another_release_ahead_of_the_wheel_s_own_is_an_error) {
  auto f = torch_machine();
  f.environment["LD_LIBRARY_PATH"] = "/opt/cudnn/lib";
  f.cudnn.push_back(cudnn_at(k_wheel, cudnn9_of("9.19.0"), "9.19.0"));
  f.cudnn.push_back(cudnn_at("/opt/cudnn/lib", cudnn9_of("9.1.0"), "9.1.0"));
  test::MemoryTree t;
  torch_files(t);
  cudnn_files(t, k_wheel);
  cudnn_files(t, "/opt/cudnn/lib");
  t.library("/lib/x86_64-linux-gnu/libz.so.1");
  t.record(f);
  const auto findings = run_all(f);
  const Finding* d = find_id(findings, k_loader_shadowed_copy);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::error) << "raised: the two copies are different releases";
  EXPECT_EQ(d->subject, "/venv");
  EXPECT_NE(d->message.find(k_context
                            + " would load libcudnn.so.9 from /opt/cudnn/lib/libcudnn.so.9 (9.1.0, "
                              "found through LD_LIBRARY_PATH) instead of the copy its own wheel "
                              "ships in "
                            + k_wheel + "/libcudnn.so.9 (9.19.0)"),
            k_npos)
      << d->message;
  // The framework gets the whole set from one place; a program using the wheel's own cuDNN
  // would take its sub-libraries from LD_LIBRARY_PATH, which is a split of that dispatcher.
  const auto splits = all_of(findings, k_loader_cudnn_set_split);
  ASSERT_EQ(splits.size(), 1U);
  EXPECT_EQ(splits.front()->subject, k_wheel);
  EXPECT_NE(splits.front()->message.find("In a program using the cuDNN in " + k_wheel), k_npos)
      << splits.front()->message;

  // The same release ahead of the wheel's: still worth knowing, but a warning.
  f.cudnn.back() = cudnn_at("/opt/cudnn/lib", cudnn9_of("9.19.0"), "9.19.0");
  const auto same = run_all(f);
  const Finding* w = find_id(same, k_loader_shadowed_copy);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, Severity::warning);
}

TEST(check_loader_stub, the_toolkit_s_stub_on_ld_library_path_shadows_the_driver) {
  auto f = torch_machine();
  f.environment["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.4/lib64/stubs:/opt/lib";
  test::MemoryTree t;
  const std::string stub = "/usr/local/cuda-12.4/lib64/stubs/libcuda.so.1";
  t.library(stub);
  t.library("/opt/lib/libother.so");
  t.library("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  t.record(f);
  const auto findings = run_all(f);
  const auto found = all_of(findings, k_loader_stub_libcuda);
  ASSERT_EQ(found.size(), 1U);
  const Finding& d = *found.front();
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.subject, stub);
  EXPECT_NE(d.message.find("A program that opens libcuda.so.1 gets " + stub
                           + " (found through LD_LIBRARY_PATH)"),
            k_npos)
      << d.message;
  EXPECT_NE(d.message.find("The driver's own library is there too "
                           "(/usr/lib/x86_64-linux-gnu/libcuda.so.1), later in the order."),
            k_npos);
  // The fix keeps the rest of LD_LIBRARY_PATH.
  EXPECT_TRUE(has_fix_command(d, "export LD_LIBRARY_PATH=/opt/lib"));

  f.environment["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.4/lib64/stubs";
  t.record(f);
  const auto without_others = run_all(f);
  const Finding* alone = find_id(without_others, k_loader_stub_libcuda);
  ASSERT_NE(alone, nullptr);
  EXPECT_TRUE(has_fix_command(*alone, "unset LD_LIBRARY_PATH"));
}

} // namespace
} // namespace doctor
