// SPDX-License-Identifier: MIT
#include "support/facts_fixtures.hpp"

#include <doctor/model/facts_json.hpp>
#include <doctor/model/facts_values.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/hash.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/error.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace doctor {
namespace {

template<typename Set>
bool in(const Set& set, std::string_view v) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

std::string error_of(const facts::Facts& f) {
  auto r = facts::check_values(f);
  return r ? "valid" : r.error().message;
}

TEST(facts_values, the_sets_hold_what_the_platform_writes) {
  using platform::FileKind;
  for (FileKind k : {FileKind::regular,
                     FileKind::directory,
                     FileKind::symlink,
                     FileKind::character_device,
                     FileKind::block_device,
                     FileKind::fifo,
                     FileKind::socket,
                     FileKind::other}) {
    EXPECT_TRUE(in(facts::k_file_kinds, platform::to_string(k))) << platform::to_string(k);
  }
  EXPECT_TRUE(in(facts::k_os_families, platform::to_string(platform::OsFamily::linux)));
  EXPECT_TRUE(in(facts::k_os_families, platform::to_string(platform::OsFamily::windows)));
  EXPECT_TRUE(in(facts::k_digest_algorithms, platform::to_string(platform::HashAlgorithm::md5)));
  EXPECT_TRUE(in(facts::k_digest_algorithms, platform::to_string(platform::HashAlgorithm::sha256)));
  EXPECT_TRUE(in(facts::k_nvml_statuses, facts::NvmlInfo{}.status));
  EXPECT_TRUE(in(facts::k_os_families, facts::CollectionInfo{}.os_family));
  // Every error code, in the order of the enum (internal is the last).
  for (int c = 0; c <= static_cast<int>(ErrorCode::internal); ++c) {
    EXPECT_EQ(facts::k_error_codes.at(static_cast<std::size_t>(c)),
              to_string(static_cast<ErrorCode>(c)));
  }
}

TEST(facts_values, a_read_error_must_be_an_error_code) {
  facts::Facts f;
  facts::BinaryInfo& b = f.binaries.emplace_back();
  b.format = "unknown";
  b.read_error = "eaten";
  EXPECT_EQ(error_of(f),
            "binaries[0].read_error: \"eaten\" is not one of "
                + fmt::format("{}", fmt::join(facts::k_error_codes, ", ")));
  b.read_error = "permission_denied";
  EXPECT_EQ(error_of(f), "valid");
  f.unreadable.emplace_back().error = "";
  EXPECT_NE(error_of(f).find("unreadable[0].error"), std::string::npos);
}

TEST(facts_values, a_machine_as_collected_is_valid) {
  EXPECT_EQ(error_of(test::machine_without_gpu()), "valid");
  EXPECT_EQ(error_of(facts::Facts{}), "valid");
}

TEST(facts_values, each_enumerated_field_refuses_a_value_outside_its_set) {
  auto f = test::machine_without_gpu();
  f.collection.os_family = "Linux";
  EXPECT_EQ(error_of(f), "collection.os_family: \"Linux\" is not one of linux, windows");

  f = test::machine_without_gpu();
  f.driver.kernel_module_type = facts::Fact<std::string>::known("closed", "file:x");
  EXPECT_EQ(error_of(f),
            "driver.kernel_module_type.value: \"closed\" is not one of open, proprietary");

  f = test::machine_without_gpu();
  f.driver.libraries.push_back({"libcuda", "/usr/lib/libcuda.so.1", {}, false});
  f.driver.libraries.push_back({"libCUDA", "/usr/lib/libcuda.so.2", {}, false});
  EXPECT_EQ(error_of(f),
            "driver.libraries[1].name: \"libCUDA\" is not one of libcuda, libnvidia-ml");

  f = test::machine_without_gpu();
  facts::DeviceNode node;
  node.kind = "chardev";
  f.driver.device_nodes = facts::Fact<std::vector<facts::DeviceNode>>::known({node}, "dir:/dev");
  EXPECT_NE(error_of(f).find("driver.device_nodes.value[0].kind: \"chardev\" is not one of"),
            std::string::npos);

  f = test::machine_without_gpu();
  f.driver.nvml.status = "OK";
  EXPECT_NE(error_of(f).find("driver.nvml.status: \"OK\""), std::string::npos);

  f = test::machine_without_gpu();
  f.python_envs.resize(1);
  f.python_envs[0].kind = "virtualenv";
  EXPECT_NE(error_of(f).find("python_envs[0].kind: \"virtualenv\""), std::string::npos);

  f = test::machine_without_gpu();
  f.python_envs.resize(1);
  f.python_envs[0].kind = "venv";
  f.python_envs[0].frameworks.resize(2);
  f.python_envs[0].frameworks[0].name = "torch";
  f.python_envs[0].frameworks[1].name = "pytorch";
  EXPECT_NE(error_of(f).find("python_envs[0].frameworks[1].name: \"pytorch\""), std::string::npos);

  f = test::machine_without_gpu();
  f.binaries.resize(1);
  f.binaries[0].format = "ELF";
  EXPECT_NE(error_of(f).find("binaries[0].format: \"ELF\""), std::string::npos);
  f.binaries[0].format = "elf";
  f.binaries[0].bits = 16;
  EXPECT_EQ(error_of(f), "binaries[0].bits: 16 is not one of 0, 32, 64");

  f = test::machine_without_gpu();
  f.probed_paths.resize(2);
  f.probed_paths[0].kind = ""; // not there
  f.probed_paths[1].kind = "file";
  EXPECT_NE(error_of(f).find("probed_paths[1].kind: \"file\""), std::string::npos);

  f = test::machine_without_gpu();
  f.integrity.files.resize(1);
  f.integrity.files[0].manager = "rpm";
  f.integrity.files[0].algorithm = "sha256";
  EXPECT_NE(error_of(f).find("integrity.files[0].manager: \"rpm\""), std::string::npos);
  f.integrity.files[0].manager = "pip";
  f.integrity.files[0].algorithm = "sha1";
  EXPECT_NE(error_of(f).find("integrity.files[0].algorithm: \"sha1\""), std::string::npos);
}

TEST(facts_values, a_snapshot_with_an_unknown_os_family_is_refused_not_judged) {
  for (const char* family : {"x", "Linux", ""}) {
    auto f = test::machine_without_gpu();
    std::string text = facts::to_json_text(f);
    const std::string from = "\"os_family\": \"linux\"";
    text.replace(text.find(from), from.size(), std::string("\"os_family\": \"") + family + "\"");
    auto back = facts::from_json_text(text);
    ASSERT_FALSE(back) << family;
    EXPECT_EQ(back.error().code, ErrorCode::parse);
    EXPECT_NE(back.error().message.find("collection.os_family"), std::string::npos)
        << back.error().message;
  }
}

TEST(facts_values, values_are_cut_and_made_printable_in_the_message) {
  auto f = test::machine_without_gpu();
  f.collection.os_family = std::string("\x1b[31m") + std::string(500, 'x');
  const std::string e = error_of(f);
  EXPECT_EQ(e.find('\x1b'), std::string::npos);
  EXPECT_LT(e.size(), 200U);
}

} // namespace
} // namespace doctor
