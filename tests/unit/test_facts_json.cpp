// SPDX-License-Identifier: MIT
#include "support/facts_fixtures.hpp"

#include <doctor/model/facts_json.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

facts::Facts rich_facts() {
  auto f = test::machine_without_gpu();
  f.collection.tool_version = "0.1.0";
  f.collection.collected_at = "2026-11-29T00:00:00Z";
  f.collection.errors.push_back({"python", "bad"});
  f.environment["LD_LIBRARY_PATH"] = "/opt/cudnn/lib";
  f.os.glibc_version = test::known_version("2.36", "file:/lib/x86_64-linux-gnu/libc.so.6");
  f.os.memory_total = facts::Fact<std::uint64_t>::known(25276510208ULL, "file:/proc/meminfo");
  f.driver.libraries.push_back(
      {"libnvidia-ml", "/usr/lib/libnvidia-ml.so.535.261.03", test::known("535.261.03"), false});
  f.driver.nvml.library = test::known("/usr/lib/libnvidia-ml.so.1");
  f.driver.nvml.init_result = facts::Fact<std::int64_t>::known(9, "nvml:nvmlInit_v2");
  facts::PciScan scan;
  scan.devices_scanned = 7;
  scan.nvidia_gpus.push_back(test::nvidia_gpu("0000:01:00.0", 0x2330, "nvidia"));
  f.pci = facts::Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  f.linker.cache = facts::Fact<std::vector<facts::LdCacheEntry>>::known(
      {{"libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "x86-64"}},
      "file:/etc/ld.so.cache");
  f.linker.default_dirs = {"/lib", "/usr/lib"};
  facts::CudaToolkit tk;
  tk.path = "/usr/local/cuda-13.0";
  tk.aliases = {"/usr/local/cuda"};
  tk.version = test::known_version("13.0");
  tk.runtime_version = facts::Fact<Version>::unknown("no versioned name");
  f.cuda_toolkits.push_back(tk);
  f.cudnn.push_back(test::cudnn_install("/usr/local/cuda-13.0/lib",
                                        9,
                                        {{"libcudnn.so.9", "9.19.0"}, {"libcudnn_ops.so.9", ""}},
                                        "9.19.0"));
  facts::PythonEnv env;
  env.prefix = "/venv";
  env.kind = "venv";
  env.packages.push_back(
      {"torch", "2.5.1+cu124", "/venv/lib/python3.11/site-packages/torch-2.5.1.dist-info"});
  facts::Framework torch;
  torch.name = "torch";
  torch.version = test::known("2.5.1+cu124");
  torch.cuda_build = facts::Fact<bool>::known(true, "file:torch/version.py");
  torch.cuda_archs = facts::Fact<std::vector<std::string>>::unknown("not recorded");
  env.frameworks.push_back(torch);
  f.python_envs.push_back(env);
  // The probes' section (snapshot --probe): the stub libcuda and a crashed cuDNN child.
  f.probe.ran = true;
  facts::ProbeRun cuda;
  cuda.probe = "cuda";
  cuda.status = "answered";
  cuda.library = {"libcuda.so.1",
                  "/opt/stubs/libcuda.so.1",
                  "/usr/local/cuda/lib64/stubs/libcuda.so",
                  "LD_LIBRARY_PATH",
                  "a program",
                  {}};
  cuda.calls.push_back({"cuInit", 34, "CUDA_ERROR_STUB_LIBRARY", "", "doctor"});
  facts::ProbeDevice dev;
  dev.name = test::known("NVIDIA H200");
  dev.context = facts::Fact<facts::ProbeCall>::unknown("cuInit failed");
  cuda.devices = facts::Fact<std::vector<facts::ProbeDevice>>::known({dev}, "cuda");
  cuda.computations.push_back({"sgemm", "mismatch", "first difference", 128, 1, "0.5"});
  facts::ProbeRun cudnn;
  cudnn.probe = "cudnn";
  cudnn.status = "crashed";
  cudnn.signal = 11;
  cudnn.stderr_tail = "boom";
  f.probe.runs = {cuda, cudnn};
  // The host's hardware errors: EDAC, WHEA and the machine checks of the kernel log.
  facts::EdacController mc{"mc0", "Skylake Socket#0 IMC#0", 214, 1, {}};
  mc.dimms.push_back({"dimm2", "CPU_SrcID#0_MC#0_Chan#1_DIMM#0", 214, 1});
  f.host_hardware.edac = facts::Fact<std::vector<facts::EdacController>>::known(
      {mc}, "dir:/sys/devices/system/edac/mc");
  f.host_hardware.whea = facts::Fact<facts::WheaErrors>::unknown("WHEA is Windows' own");
  facts::MachineChecks mce;
  mce.log = "journal";
  mce.boot = "0b7c1f0e2d4a4e6f9a1b2c3d4e5f6a7b";
  mce.lines_read = 1812;
  mce.events = 3;
  mce.corrected = 1;
  mce.uncorrected = 1;
  mce.unclassified = 1;
  mce.at_boot = 1;
  mce.cpus = {0, 14};
  mce.banks = {4, 7};
  mce.first = "2024-05-02T13:20:44.064265Z (0.064265 s after boot)";
  mce.last = "2024-05-02T15:47:36Z";
  mce.lines = {"mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 4: a600000000020408"};
  f.host_hardware.machine_checks =
      facts::Fact<facts::MachineChecks>::known(mce, "journal:boot " + mce.boot);
  return f;
}

TEST(facts_json, round_trip_is_lossless) {
  const auto original = rich_facts();
  const std::string text = facts::to_json_text(original);
  auto back = facts::from_json_text(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, original);
  EXPECT_EQ(facts::to_json_text(*back), text);
}

TEST(facts_json, round_trip_gives_the_same_findings) {
  const auto original = rich_facts();
  auto back = facts::from_json_text(facts::to_json_text(original));
  ASSERT_TRUE(back);
  EXPECT_EQ(test::run_all(*back), test::run_all(original));
}

TEST(facts_json, machine_checks_are_in_the_snapshot_and_judged_from_it) {
  const auto original = rich_facts();
  const std::string text = facts::to_json_text(original);
  EXPECT_NE(text.find("\"machine_checks\""), std::string::npos);
  auto back = facts::from_json_text(text);
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->host_hardware.machine_checks);
  EXPECT_EQ(back->host_hardware.machine_checks->cpus, (std::vector<std::uint64_t>{0, 14}));
  EXPECT_EQ(back->host_hardware.machine_checks.source(),
            "journal:boot 0b7c1f0e2d4a4e6f9a1b2c3d4e5f6a7b");
  EXPECT_TRUE(test::has_id(test::run_all(*back), "hardware.machine_check_errors"));
}

TEST(facts_json, names_that_are_not_utf8_keep_their_bytes_through_a_snapshot) {
  // A folder name may be any bytes: the snapshot must give back the same facts, not U+FFFD.
  auto f = rich_facts();
  const std::string odd = "/opt/cudnn-\xff\xfe-\xe4\xb8";
  f.cuda_toolkits[0].path = odd;
  f.cuda_toolkits[0].aliases = {"/usr/local/cuda", odd + "/alias"};
  f.linker.default_dirs = {odd, "/usr/lib"};
  const std::string text = facts::to_json_text(f);
  EXPECT_NE(text.find("\"path\": \"/opt/cudnn-\\\\xff\\\\xfe-\\\\xe4\\\\xb8\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"path_bytes\": \"2f6f70742f6375646e6e2dfffe2de4b8\""), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(text).dump().find("\\ufffd"), std::string::npos);
  auto back = facts::from_json_text(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->cuda_toolkits[0].path, odd);
  EXPECT_EQ(back->cuda_toolkits[0].aliases, f.cuda_toolkits[0].aliases);
  EXPECT_EQ(back->linker.default_dirs, f.linker.default_dirs);
  EXPECT_EQ(*back, f);
}

TEST(facts_json, a_bytes_member_that_is_not_hexadecimal_is_refused) {
  auto f = rich_facts();
  f.cuda_toolkits[0].path = "/opt/\xff";
  std::string text = facts::to_json_text(f);
  const auto at = text.find("\"path_bytes\": \"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at + 15, 2, "zz");
  auto back = facts::from_json_text(text);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message.find("\"*_bytes\" member"), std::string::npos)
      << back.error().message;
}

TEST(facts_json, versions_keep_their_spelling_and_unknowns_their_reason) {
  const std::string text = facts::to_json_text(rich_facts());
  EXPECT_NE(text.find("\"535.261.03\""), std::string::npos);
  EXPECT_NE(text.find("\"unknown\": \"no versioned name\""), std::string::npos);
}

TEST(facts_json, rejects_non_json_and_other_schemas_clearly) {
  auto junk = facts::from_json_text("\x89PNG\r\n");
  ASSERT_FALSE(junk);
  EXPECT_EQ(junk.error().code, ErrorCode::parse);
  EXPECT_NE(junk.error().message.find("not JSON"), std::string::npos);

  auto other = facts::from_json_text(R"({"collection": {"schema": "cudnn-doctor-snapshot/99"}})");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, ErrorCode::unsupported);
  EXPECT_NE(other.error().message.find("snapshot/99"), std::string::npos);

  auto not_snapshot = facts::from_json_text(R"([1, 2, 3])");
  ASSERT_FALSE(not_snapshot);
  EXPECT_NE(not_snapshot.error().message.find("not a cudnn-doctor snapshot"), std::string::npos);
}

TEST(facts_json, wrong_types_and_bad_versions_are_errors_not_crashes) {
  auto wrong = facts::from_json_text(
      R"({"collection": {"schema": "cudnn-doctor-snapshot/1"}, "cuda_toolkits": "nope"})");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::parse);

  auto bad_version = facts::from_json_text(
      R"({"collection": {"schema": "cudnn-doctor-snapshot/1"},
          "os": {"glibc_version": {"value": "two.36", "source": "x"}}})");
  ASSERT_FALSE(bad_version);
  EXPECT_NE(bad_version.error().message.find("not a version"), std::string::npos);

  auto bad_fact = facts::from_json_text(
      R"({"collection": {"schema": "cudnn-doctor-snapshot/1"}, "os": {"id": {"oops": 1}}})");
  ASSERT_FALSE(bad_fact);
}

TEST(facts_json, missing_fields_default_to_not_collected) {
  auto minimal = facts::from_json_text(R"({"collection": {"schema": "cudnn-doctor-snapshot/1"}})");
  ASSERT_TRUE(minimal) << minimal.error().message;
  EXPECT_FALSE(minimal->pci.has_value());
  EXPECT_EQ(minimal->pci.reason(), "not collected");
  EXPECT_TRUE(minimal->cudnn.empty());
}

std::string snapshot_error(const std::string& body) {
  auto r =
      facts::from_json_text(R"({"collection": {"schema": "cudnn-doctor-snapshot/1"})" + body + "}");
  return r ? "read" : r.error().message;
}

TEST(facts_json, numbers_must_fit_their_field_and_errors_name_it) {
  EXPECT_EQ(snapshot_error(R"(, "driver": {"nvml": {"devices": {"value": [{"index": 0,
      "memory_total": {"value": 1e999999, "source": "nvml"}}]}}})"),
            "malformed snapshot: driver.nvml.devices.value[0].memory_total.value: the number "
            "1e999999 is out of range");
  EXPECT_EQ(snapshot_error(R"(, "user": {"uid": {"value": 4294967296, "source": "x"}})"),
            "malformed snapshot: user.uid.value: 4294967296 is out of range (0 to 4294967295)");
  EXPECT_EQ(snapshot_error(R"(, "os": {"cpu_count": {"value": -1, "source": "x"}})"),
            "malformed snapshot: os.cpu_count.value: -1 is out of range (0 to "
            "18446744073709551615)");
  EXPECT_EQ(
      snapshot_error(R"(, "driver": {"nvml": {"init_result": {"value": 9223372036854775808}}})"),
      "malformed snapshot: driver.nvml.init_result.value: 9223372036854775808 is out of range "
      "(-9223372036854775808 to 9223372036854775807)");
  EXPECT_EQ(snapshot_error(R"(, "pci": {"value": {"devices_scanned": 1.0}})"),
            "malformed snapshot: pci.value.devices_scanned: 1.0 is not an integer (every number "
            "here is a whole number)");
  EXPECT_EQ(snapshot_error(R"(, "user": {"gids": {"value": [0, 4294967295, 4294967296]}})"),
            "malformed snapshot: user.gids.value[2]: 4294967296 is out of range (0 to "
            "4294967295)");
}

TEST(facts_json, wrong_types_name_the_field) {
  EXPECT_EQ(snapshot_error(R"(, "binaries": [{"path": "/a"}, {"path": 7}])"),
            "malformed snapshot: binaries[1].path: expected a string, found an integer");
  EXPECT_EQ(snapshot_error(R"(, "integrity": {"requested": "yes"})"),
            "malformed snapshot: integrity.requested: expected true or false, found a string");
  EXPECT_EQ(snapshot_error(R"(, "environment": {"PATH": "/bin", "a\u001bb": 1})"),
            "malformed snapshot: environment[\"a?b\"]: expected a string, found an integer");
  EXPECT_EQ(snapshot_error(R"(, "integrity": {"files": [{"expected_size": "1"}]})"),
            "malformed snapshot: integrity.files[0].expected_size: expected an integer, found a "
            "string");
}

TEST(facts_json, the_document_bounds_hold_for_snapshots) {
  std::string deep(64, '[');
  EXPECT_NE(snapshot_error(", \"x\": " + deep).find("nested deeper than 16 levels"),
            std::string::npos);
  std::string many = ", \"probed_paths\": [";
  for (std::size_t i = 0; i <= facts::k_snapshot_limits.max_objects; ++i) {
    many += i == 0 ? "{}" : ",{}";
  }
  many += "]";
  EXPECT_NE(snapshot_error(many).find("objects in the document"), std::string::npos);
  EXPECT_EQ(snapshot_error(R"(, "os": {"id": {"unknown": "a"}, "id": {"unknown": "b"}})"),
            "malformed snapshot: os: the key \"id\" appears twice");
}

} // namespace
} // namespace doctor
