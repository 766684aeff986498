// SPDX-License-Identifier: MIT
#include <doctor/kb/compat.hpp>
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace doctor {
namespace {

using kb::CompatTables;
using kb::Os;

Version v(std::string_view text) {
  auto parsed = Version::parse(text);
  EXPECT_TRUE(parsed) << text;
  return parsed.value_or(Version{});
}

// The tables as embedded in the binary: the tests check the shipped facts, not a fixture.
const CompatTables& tables() {
  static const kb::KnowledgeBase k_kb = [] {
    auto kb = kb::KnowledgeBase::load_embedded();
    EXPECT_TRUE(kb) << kb.error().message;
    return std::move(*kb);
  }();
  return k_kb.compat();
}

std::string opt_str(const std::optional<Version>& version) {
  return version ? version->str() : std::string("(none)");
}

TEST(compat, embedded_tables_are_not_empty) {
  const CompatTables& t = tables();
  EXPECT_GT(t.cuda_drivers().size(), 60U);
  EXPECT_EQ(t.minor_compat().size(), 4U);
  EXPECT_GT(t.branches().size(), 10U);
  EXPECT_GT(t.architectures().size(), 20U);
  EXPECT_GE(t.gpu_models().size(), 318U);
  EXPECT_GT(t.cudnn_releases().size(), 15U);
  EXPECT_GT(t.cudnn_packages().size(), 15U);
  EXPECT_GT(t.framework_builds().size(), 50U);
}

TEST(compat, toolkit_driver_picks_the_newest_release_not_newer) {
  const CompatTables& t = tables();
  const kb::CudaDriverRow* r = t.toolkit_driver(v("12.4"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->cuda.str(), "12.4.0");
  r = t.toolkit_driver(v("12.4.5"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->cuda.str(), "12.4.1");
  EXPECT_EQ(opt_str(r->linux_min), "550.54.15");
  EXPECT_EQ(t.toolkit_driver(v("12.7")), nullptr);
}

TEST(compat, toolkit_driver_falls_back_to_the_oldest_patch_of_the_minor) {
  const kb::CudaDriverRow* r = tables().toolkit_driver(v("10.2"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->cuda.str(), "10.2.89");
  EXPECT_EQ(opt_str(r->linux_min), "440.33");
}

TEST(compat, minimum_driver_of_cuda_12_1_toolkit_and_minor_compat) {
  const CompatTables& t = tables();
  EXPECT_EQ(opt_str(t.minimum_driver(v("12.1"), Os::linux, false)), "530.30.02");
  EXPECT_EQ(opt_str(t.minimum_driver(v("12.1"), Os::windows, false)), "531.14");
  EXPECT_EQ(opt_str(t.minimum_driver(v("12.1"), Os::linux, true)), "525.60.13");
  EXPECT_EQ(opt_str(t.minimum_driver(v("12.1"), Os::windows, true)), "527.41");
}

TEST(compat, minimum_driver_of_cuda_11_8_and_13_0) {
  const CompatTables& t = tables();
  EXPECT_EQ(opt_str(t.minimum_driver(v("11.8"), Os::linux, false)), "520.61.05");
  EXPECT_EQ(opt_str(t.minimum_driver(v("11.8"), Os::windows, false)), "522.06");
  EXPECT_EQ(opt_str(t.minimum_driver(v("11.8"), Os::linux, true)), "450.80.02");
  EXPECT_EQ(opt_str(t.minimum_driver(v("13.0"), Os::linux, false)), "580.65.06");
  EXPECT_EQ(opt_str(t.minimum_driver(v("13.0"), Os::linux, true)), "580.65.06");
  // No Windows toolkit driver for 13.x; the minor-compat floor is known.
  EXPECT_EQ(t.minimum_driver(v("13.0"), Os::windows, false), std::nullopt);
  EXPECT_EQ(opt_str(t.minimum_driver(v("13.0"), Os::windows, true)), "580.88");
}

TEST(compat, minimum_driver_of_cuda_10_has_no_minor_compat) {
  const CompatTables& t = tables();
  EXPECT_EQ(t.minor_compat_for(v("10.2")), nullptr);
  EXPECT_EQ(opt_str(t.minimum_driver(v("10.2"), Os::linux, true)), "440.33");
  EXPECT_EQ(t.minimum_driver(v("7.5"), Os::linux, true), std::nullopt);
}

TEST(compat, minor_compat_for_splits_11_0_from_11_1_to_11_8) {
  const CompatTables& t = tables();
  const kb::MinorCompatRow* r = t.minor_compat_for(v("11.0.3"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(opt_str(r->linux_min), "450.36.06");
  r = t.minor_compat_for(v("11.4"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(opt_str(r->linux_min), "450.80.02");
  EXPECT_EQ(opt_str(r->windows_min), "452.39");
  r = t.minor_compat_for(v("12.9.1"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->cuda_major, 12U);
  EXPECT_NE(r->note.find("PTX"), std::string::npos);
}

TEST(compat, branch_of_matches_the_first_component) {
  const CompatTables& t = tables();
  const kb::DriverBranchRow* b = t.branch_of(v("470.82.01"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->branch, 470U);
  EXPECT_EQ(b->max_cuda.str(), "11.4");
  b = t.branch_of(v("535.104.05"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->kind, "LTS");
  EXPECT_EQ(b->max_cuda.str(), "12.2");
  EXPECT_EQ(b->end_of_life, "2026-06");
  b = t.branch_of(v("580.95.05"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->max_cuda.str(), "13.0");
  EXPECT_EQ(t.branch_of(v("590.44.01"))->max_cuda.str(), "13.1");
  EXPECT_EQ(t.branch_of(v("595.45.04"))->max_cuda.str(), "13.2");
  EXPECT_EQ(t.branch_of(v("610.43.02"))->max_cuda.str(), "13.3");
  EXPECT_EQ(t.branch_of(v("123.45")), nullptr);
}

TEST(compat, architecture_of_pascal_and_blackwell) {
  const CompatTables& t = tables();
  const kb::ArchitectureRow* a = t.architecture(v("6.1"));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->name, "Pascal");
  EXPECT_EQ(opt_str(a->removed_in_cuda), "13.0");
  EXPECT_EQ(a->last_branch, std::optional<unsigned>(580));
  a = t.architecture(v("3.7"));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->last_branch, std::optional<unsigned>(470));
  a = t.architecture(v("12.0"));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->first_branch, std::optional<unsigned>(570));
  EXPECT_TRUE(a->linux_open_modules_only);
  EXPECT_EQ(a->removed_in_cuda, std::nullopt);
  EXPECT_EQ(t.architecture(v("4.0")), nullptr);
}

TEST(compat, gpu_model_by_device_id) {
  const CompatTables& t = tables();
  const kb::GpuModelRow* m = t.gpu_model(0x1b80);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "GeForce GTX 1080");
  EXPECT_EQ(m->chip, "GP104");
  EXPECT_EQ(m->cc.str(), "6.1");
  m = t.gpu_model(0x2b85);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "GeForce RTX 5090");
  EXPECT_EQ(m->cc.str(), "12.0");
  EXPECT_EQ(t.gpu_model(0x0001), nullptr);
}

TEST(compat, gpu_model_prefers_the_subsystem_row) {
  const CompatTables& t = tables();
  const kb::GpuModelRow* m = t.gpu_model(0x25b6, 0x10de, 0x14a9);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "A16");
  m = t.gpu_model(0x25b6, 0x10de, 0x157e);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "A2");
  m = t.gpu_model(0x25b6, 0x10de, 0x0001);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->subsystem_vendor, std::nullopt);
  EXPECT_EQ(m->cc.str(), "8.6");
  m = t.gpu_model(0x249c, 0x1d05, 0x1194);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "GeForce RTX 3060 Laptop GPU");
  EXPECT_EQ(t.gpu_model(0x249c)->name, "GeForce RTX 3080 Laptop GPU");
}

TEST(compat, cudnn_release_ranges) {
  const CompatTables& t = tables();
  const kb::CudnnReleaseRow* r = t.cudnn_release(v("9.11.0"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->min_cc.str(), "7.5");
  r = t.cudnn_release(v("8.9.7"));
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->windows_zlibwapi);
  EXPECT_EQ(r->min_cc.str(), "5.0");
  r = t.cudnn_release(v("9.1.0"));
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->windows_zlibwapi);
  r = t.cudnn_release(v("9.2.0"));
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->windows_zlibwapi);
  r = t.cudnn_release(v("9.10.2"));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->min_cc.str(), "5.0");
  EXPECT_EQ(opt_str(r->max_cc), "12.0");
  EXPECT_EQ(t.cudnn_release(v("6.0")), nullptr);
}

TEST(compat, cudnn_release_rows_do_not_overlap) {
  const CompatTables& t = tables();
  for (const kb::CudnnPackageRow& p : t.cudnn_packages()) {
    const Version version = v(p.version);
    std::size_t covering = 0;
    for (const kb::CudnnReleaseRow& r : t.cudnn_releases()) {
      covering += r.applies_to(version) ? 1 : 0;
    }
    EXPECT_EQ(covering, 1U) << p.name << " " << p.version;
  }
}

TEST(compat, cudnn_packages_for_lists_newest_first) {
  const CompatTables& t = tables();
  const auto rows = t.cudnn_packages_for(9, 12, "pip");
  ASSERT_GE(rows.size(), 3U);
  EXPECT_EQ(rows.front()->version, "9.19.0.56");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GT(v(rows[i - 1]->version), v(rows[i]->version));
    EXPECT_EQ(rows[i]->name, "nvidia-cudnn-cu12");
  }
  const auto cu11 = t.cudnn_packages_for(8, 11, "pip");
  ASSERT_FALSE(cu11.empty());
  EXPECT_EQ(cu11.front()->version, "8.7.0.84");
  EXPECT_TRUE(t.cudnn_packages_for(9, 12, "conda").empty());
  EXPECT_FALSE(t.cudnn_packages_for(9, 13, "conda").empty());
}

TEST(compat, framework_builds_for_tensorflow_on_windows_after_2_10) {
  const auto rows = tables().framework_builds_for("tensorflow", v("2.15"), Os::windows);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_FALSE(rows[0]->gpu_supported);
  EXPECT_NE(rows[0]->note.find("WSL2"), std::string::npos);
  const auto tf210 = tables().framework_builds_for("tensorflow", v("2.10.1"), Os::windows);
  ASSERT_EQ(tf210.size(), 1U);
  EXPECT_TRUE(tf210[0]->gpu_supported);
  EXPECT_EQ(tf210[0]->cuda, "11.2");
  EXPECT_EQ(tf210[0]->cudnn, "8.1");
}

TEST(compat, framework_builds_for_tensorflow_2_15_on_linux) {
  const auto rows = tables().framework_builds_for("tensorflow", v("2.15.1"), Os::linux);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0]->cuda, "12.2");
  EXPECT_EQ(rows[0]->cudnn, "8.9");
  EXPECT_NE(rows[0]->install.find("tensorflow[and-cuda]"), std::string::npos);
  EXPECT_NE(
      std::find(rows[0]->pip_pins.begin(), rows[0]->pip_pins.end(), "nvidia-cudnn-cu12==8.9.4.25"),
      rows[0]->pip_pins.end());
}

TEST(compat, framework_builds_for_torch_2_1_2_on_linux) {
  const auto rows = tables().framework_builds_for("torch", v("2.1.2"), Os::linux);
  const auto cu121 =
      std::find_if(rows.begin(), rows.end(), [](const auto* r) { return r->variant == "cu121"; });
  ASSERT_NE(cu121, rows.end());
  EXPECT_EQ((*cu121)->cuda, "12.1");
  EXPECT_EQ((*cu121)->cudnn, "8.9.2.26");
  EXPECT_EQ((*cu121)->pip_pins, std::vector<std::string>{"nvidia-cudnn-cu12==8.9.2.26"});
  EXPECT_NE((*cu121)->install.find("https://download.pytorch.org/whl/cu121"), std::string::npos);
  EXPECT_NE(std::find((*cu121)->archs.begin(), (*cu121)->archs.end(), "9.0"),
            (*cu121)->archs.end());
  EXPECT_TRUE(tables().framework_builds_for("torch", v("2.1.2"), Os::linux).size() >= 2);
  EXPECT_TRUE(tables().framework_builds_for("jax", v("0.4"), Os::linux).empty());
}

TEST(compat, torch_windows_wheels_list_sm_61_and_have_no_pins) {
  const auto rows = tables().framework_builds_for("torch", v("2.4.1"), Os::windows);
  ASSERT_FALSE(rows.empty());
  for (const auto* r : rows) {
    EXPECT_TRUE(r->pip_pins.empty()) << r->variant;
    EXPECT_NE(std::find(r->archs.begin(), r->archs.end(), "6.1"), r->archs.end()) << r->variant;
  }
}

TEST(compat, nvidia_driver_from_windows_takes_the_last_five_digits) {
  EXPECT_EQ(opt_str(kb::nvidia_driver_from_windows("32.0.15.6094")), "560.94");
  EXPECT_EQ(opt_str(kb::nvidia_driver_from_windows("32.0.15.7657")), "576.57");
  EXPECT_EQ(opt_str(kb::nvidia_driver_from_windows("31.0.15.3734")), "537.34");
  EXPECT_EQ(kb::nvidia_driver_from_windows("560.94"), std::nullopt);
  EXPECT_EQ(kb::nvidia_driver_from_windows("32.0.15.x"), std::nullopt);
  EXPECT_EQ(kb::nvidia_driver_from_windows(""), std::nullopt);
}

TEST(compat, decode_cudnn_version_both_encodings) {
  EXPECT_EQ(opt_str(kb::decode_cudnn_version(8902)), "8.9.2");
  EXPECT_EQ(opt_str(kb::decode_cudnn_version(7605)), "7.6.5");
  EXPECT_EQ(opt_str(kb::decode_cudnn_version(90100)), "9.1.0");
  EXPECT_EQ(opt_str(kb::decode_cudnn_version(91901)), "9.19.1");
  EXPECT_EQ(kb::decode_cudnn_version(0), std::nullopt);
  EXPECT_EQ(kb::decode_cudnn_version(12345), std::nullopt);
}

TEST(compat, decode_cuda_version_from_the_runtime_number) {
  EXPECT_EQ(opt_str(kb::decode_cuda_version(11040)), "11.4");
  EXPECT_EQ(opt_str(kb::decode_cuda_version(12080)), "12.8");
  EXPECT_EQ(opt_str(kb::decode_cuda_version(13000)), "13.0");
  EXPECT_EQ(kb::decode_cuda_version(0), std::nullopt);
  EXPECT_EQ(kb::decode_cuda_version(11041), std::nullopt);
}

TEST(compat, decode_tensorflow_version_spellings) {
  EXPECT_EQ(opt_str(kb::decode_tensorflow_version("64_112")), "11.2");
  EXPECT_EQ(opt_str(kb::decode_tensorflow_version("64_101")), "10.1");
  EXPECT_EQ(opt_str(kb::decode_tensorflow_version("64_8")), "8");
  EXPECT_EQ(opt_str(kb::decode_tensorflow_version("64_92")), "9.2"); // TF 1.x on Windows
  EXPECT_EQ(opt_str(kb::decode_tensorflow_version("64_100")), "10.0");
  EXPECT_EQ(opt_str(kb::decode_tensorflow_version("11.2")), "11.2");
  EXPECT_EQ(kb::decode_tensorflow_version("64_"), std::nullopt);
  EXPECT_EQ(kb::decode_tensorflow_version("cuda"), std::nullopt);
}

TEST(compat, in_version_range_forms) {
  EXPECT_TRUE(kb::in_version_range("", v("1.0")));
  EXPECT_TRUE(kb::in_version_range("2.1-2.3", v("2.3.1")));
  EXPECT_FALSE(kb::in_version_range("2.1-2.3", v("2.4")));
  EXPECT_TRUE(kb::in_version_range("8.9", v("8.9.7")));
  EXPECT_FALSE(kb::in_version_range("8.9", v("8.10")));
  EXPECT_TRUE(kb::in_version_range(">=9.11", v("9.25")));
  EXPECT_TRUE(kb::in_version_range("<=2.10", v("2.10.1")));
  EXPECT_FALSE(kb::in_version_range("x-y", v("1")));
}

// Parse errors: each names the file, the row and the field.

constexpr const char* k_drivers_head =
    R"({"spec": "cudnn-doctor-kb/1", "kind": "cuda_drivers", "minor_compat": [], "branches": [],
        "toolkits": [)";

std::string drivers_with(const std::string& row) {
  return std::string(k_drivers_head) + row + "]}";
}

TEST(compat, parse_rejects_a_row_without_source) {
  const auto t = CompatTables::parse(
      drivers_with(R"({"cuda": "12.4.1", "linux_min": "550.54.15", "source": "s"},
                      {"cuda": "12.4.0", "linux_min": "550.54.14"})"),
      "",
      "",
      "");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("cuda_drivers.json: toolkits[1] (12.4.0)"), std::string::npos)
      << t.error().message;
  EXPECT_NE(t.error().message.find("\"source\""), std::string::npos) << t.error().message;
}

TEST(compat, parse_rejects_an_empty_source) {
  const auto t = CompatTables::parse(
      drivers_with(R"({"cuda": "12.4.1", "linux_min": "550.54.15", "source": ""})"), "", "", "");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("\"source\" is empty"), std::string::npos) << t.error().message;
}

TEST(compat, parse_rejects_a_bad_version_and_names_the_field) {
  const auto t = CompatTables::parse(
      drivers_with(R"({"cuda": "12.4.1", "linux_min": "550.x", "source": "s"})"), "", "", "");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("toolkits[0] (12.4.1): field \"linux_min\""), std::string::npos)
      << t.error().message;
}

TEST(compat, parse_rejects_an_unknown_field) {
  const auto t = CompatTables::parse(
      drivers_with(R"({"cuda": "12.4.1", "linux-min": "550.54.15", "source": "s"})"), "", "", "");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("unknown field \"linux-min\""), std::string::npos)
      << t.error().message;
}

TEST(compat, parse_rejects_a_bad_version_range) {
  const std::string releases =
      R"({"spec": "cudnn-doctor-kb/1", "kind": "cudnn_releases", "packages": [], "releases": [
        {"versions": "9.2-9.1", "cuda": ["12"], "min_cc": "5.0", "source": "s"}]})";
  const auto t = CompatTables::parse("", releases, "", "");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("cudnn_releases.json: releases[0]: field \"versions\""),
            std::string::npos)
      << t.error().message;
}

TEST(compat, parse_rejects_a_bad_pci_id_and_a_duplicate) {
  const std::string head = R"({"spec": "cudnn-doctor-kb/1", "kind": "gpus", "architectures": [],
                               "pci_ids": [)";
  auto t = CompatTables::parse(
      "",
      "",
      "",
      head + R"({"id": "2g85", "chip": "c", "name": "n", "cc": "8.6", "source": "s"}]})");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("gpus.json: pci_ids[0]: field \"id\""), std::string::npos)
      << t.error().message;
  t = CompatTables::parse(
      "", "", "", head + R"({"id": "2b85", "chip": "c", "name": "n", "cc": "8.6", "source": "s"},
                                 {"id": "2B85", "chip": "c", "name": "n", "cc": "8.6", "source": "s"}]})");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("pci_ids[1] (2B85): duplicate"), std::string::npos)
      << t.error().message;
}

TEST(compat, parse_rejects_a_gpu_build_without_cuda) {
  const std::string builds =
      R"({"spec": "cudnn-doctor-kb/1", "kind": "frameworks", "builds": [
        {"framework": "torch", "versions": "2.4", "os": "linux", "variant": "cu121", "source": "s"}]})";
  const auto t = CompatTables::parse("", "", builds, "");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("frameworks.json: builds[0] (torch 2.4 linux cu121)"),
            std::string::npos)
      << t.error().message;
}

TEST(compat, parse_of_empty_inputs_gives_empty_tables) {
  const auto t = CompatTables::parse("", "", "", "");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_TRUE(t->cuda_drivers().empty());
  EXPECT_EQ(t->toolkit_driver(v("12.4")), nullptr);
  EXPECT_EQ(t->minimum_driver(v("12.4"), Os::linux, true), std::nullopt);
}

TEST(compat, parse_files_rejects_a_second_file_of_a_kind) {
  const std::string gpus =
      R"({"spec": "cudnn-doctor-kb/1", "kind": "gpus", "architectures": [], "pci_ids": []})";
  const auto t = CompatTables::parse_files({{"gpus.json", gpus}, {"more_gpus.json", gpus}});
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("more_gpus.json: a second \"gpus\" file"), std::string::npos)
      << t.error().message;
}

TEST(compat, knowledge_base_lists_the_compat_files_with_their_rows) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb) << kb.error().message;
  std::size_t found = 0;
  for (const kb::KbFileInfo& f : kb->files()) {
    if (f.name == "gpus.json") {
      ++found;
      EXPECT_EQ(f.rows, kb->compat().architectures().size() + kb->compat().gpu_models().size());
      EXPECT_EQ(f.origin, "embedded");
    }
    if (f.name == "cuda_drivers.json" || f.name == "cudnn_releases.json"
        || f.name == "frameworks.json") {
      ++found;
      EXPECT_GT(f.rows, 0U) << f.name;
    }
  }
  EXPECT_EQ(found, 4U);
}

TEST(compat, knowledge_base_reports_a_compat_error_with_its_file) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const kb::EmbeddedFile& f : kb::embedded_files()) {
    files.emplace_back(f.name,
                       f.name == "gpus.json"
                           ? R"({"spec": "cudnn-doctor-kb/1", "kind": "gpus", "pci_ids": [],
                                 "architectures": [{"cc": "6.1", "name": "Pascal",
                                                    "first_cuda": "8.0"}]})"
                           : std::string(f.contents));
  }
  const auto loaded = kb::KnowledgeBase::load(files);
  ASSERT_FALSE(loaded);
  EXPECT_NE(
      loaded.error().message.find("gpus.json: architectures[0] (6.1): missing field \"source\""),
      std::string::npos)
      << loaded.error().message;
}

TEST(compat, framework_builds_for_onnxruntime_1_20_on_linux) {
  const auto rows = tables().framework_builds_for("onnxruntime", v("1.20.1"), Os::linux);
  ASSERT_EQ(rows.size(), 2U);
  const auto cuda12 =
      std::find_if(rows.begin(), rows.end(), [](const auto* r) { return r->variant == "cuda12"; });
  ASSERT_NE(cuda12, rows.end());
  EXPECT_EQ((*cuda12)->cuda, "12");
  EXPECT_EQ((*cuda12)->cudnn, "9");
  EXPECT_NE((*cuda12)->install.find("onnxruntime-gpu==1.20"), std::string::npos);
  const auto cuda11 =
      std::find_if(rows.begin(), rows.end(), [](const auto* r) { return r->variant == "cuda11"; });
  ASSERT_NE(cuda11, rows.end());
  EXPECT_EQ((*cuda11)->cuda, "11.8");
  EXPECT_EQ((*cuda11)->cudnn, "8");
  // Not on PyPI: no install command to offer.
  EXPECT_TRUE((*cuda11)->install.empty());
}

TEST(compat, framework_builds_for_onnxruntime_cudnn_differs_by_os) {
  const auto linux_rows = tables().framework_builds_for("onnxruntime", v("1.16.3"), Os::linux);
  const auto windows_rows = tables().framework_builds_for("onnxruntime", v("1.16.3"), Os::windows);
  ASSERT_EQ(linux_rows.size(), 1U);
  ASSERT_EQ(windows_rows.size(), 1U);
  EXPECT_EQ(linux_rows[0]->cuda, "11.8");
  EXPECT_EQ(linux_rows[0]->cudnn, "8.2.4");
  EXPECT_EQ(windows_rows[0]->cudnn, "8.5.0.96");
  // 1.18.1 switched its CUDA 12 build to cuDNN 9; 1.18.0's was cuDNN 8.
  const auto ort1181 = tables().framework_builds_for("onnxruntime", v("1.18.1"), Os::linux);
  const auto ort1180 = tables().framework_builds_for("onnxruntime", v("1.18.0"), Os::linux);
  const auto cudnn_of_cuda12 = [](const auto& rows) {
    const auto it = std::find_if(
        rows.begin(), rows.end(), [](const auto* r) { return r->variant == "cuda12"; });
    return it == rows.end() ? std::string("(none)") : (*it)->cudnn;
  };
  EXPECT_EQ(cudnn_of_cuda12(ort1181), "9");
  EXPECT_EQ(cudnn_of_cuda12(ort1180), "8.9.2.26");
}

TEST(compat, framework_builds_for_jax_and_paddle) {
  const auto jax = tables().framework_builds_for("jax", v("0.4.35"), Os::linux);
  ASSERT_EQ(jax.size(), 1U);
  EXPECT_EQ(jax[0]->cuda, "12.3");
  EXPECT_EQ(jax[0]->cudnn, "9.1");
  EXPECT_NE(jax[0]->install.find("jax[cuda12]"), std::string::npos);
  const auto jax_windows = tables().framework_builds_for("jax", v("0.6.1"), Os::windows);
  ASSERT_EQ(jax_windows.size(), 1U);
  EXPECT_FALSE(jax_windows[0]->gpu_supported);
  EXPECT_TRUE(jax_windows[0]->cuda.empty());
  const auto paddle = tables().framework_builds_for("paddle", v("2.6.2"), Os::linux);
  EXPECT_EQ(paddle.size(), 5U);
  const auto cu120 = std::find_if(
      paddle.begin(), paddle.end(), [](const auto* r) { return r->variant == "cu120"; });
  ASSERT_NE(cu120, paddle.end());
  EXPECT_EQ((*cu120)->cuda, "12.0");
  EXPECT_EQ((*cu120)->cudnn, "8.9.1");
  const auto cu118 = std::find_if(
      paddle.begin(), paddle.end(), [](const auto* r) { return r->variant == "cu118"; });
  ASSERT_NE(cu118, paddle.end());
  EXPECT_EQ((*cu118)->cudnn, "8.6.0");
  EXPECT_EQ(tables().framework_builds_for("paddle", v("2.6.1"), Os::windows).size(), 5U);
}

} // namespace
} // namespace doctor
