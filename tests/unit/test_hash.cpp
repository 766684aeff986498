// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/hash_cache.hpp>
#include <doctor/platform/hash.hpp>

#include <gtest/gtest.h>

#include <string>

namespace doctor {
namespace {

using platform::hash_bytes;
using platform::hash_file;
using platform::HashAlgorithm;

constexpr const char* k_sha256_abc =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr const char* k_sha256_empty =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// FIPS 180-2's "one million a" vector: longer than one read block.
constexpr const char* k_sha256_million_a =
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

TEST(hash, sha256_of_known_vectors) {
  EXPECT_EQ(hash_bytes("abc", HashAlgorithm::sha256).value(), k_sha256_abc);
  EXPECT_EQ(hash_bytes("", HashAlgorithm::sha256).value(), k_sha256_empty);
}

TEST(hash, md5_of_known_vectors) {
  EXPECT_EQ(hash_bytes("abc", HashAlgorithm::md5).value(), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(hash_bytes("", HashAlgorithm::md5).value(), "d41d8cd98f00b204e9800998ecf8427e");
}

TEST(hash, file_digests_match_known_vectors) {
  test::TempDir t;
  t.write("/abc", "abc");
  t.write("/empty", "");
  t.write("/million", std::string(1000000, 'a'));
  EXPECT_EQ(hash_file(t.at("/abc"), HashAlgorithm::sha256).value(), k_sha256_abc);
  EXPECT_EQ(hash_file(t.at("/abc"), HashAlgorithm::md5).value(),
            "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(hash_file(t.at("/empty"), HashAlgorithm::sha256).value(), k_sha256_empty);
  EXPECT_EQ(hash_file(t.at("/empty"), HashAlgorithm::md5).value(),
            "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(hash_file(t.at("/million"), HashAlgorithm::sha256).value(), k_sha256_million_a);
  EXPECT_EQ(hash_file(t.at("/million"), HashAlgorithm::md5).value(),
            "7707d6ae4e027c70eea2a935c2296f21");
}

TEST(hash, file_digest_equals_digest_of_its_bytes_across_block_boundaries) {
  test::TempDir t;
  std::string data;
  for (std::size_t i = 0; i < 3 * 512 * 1024 + 7; ++i) {
    data.push_back(static_cast<char>((i * 131) % 251));
  }
  t.write("/blob", data);
  EXPECT_EQ(hash_file(t.at("/blob"), HashAlgorithm::sha256).value(),
            hash_bytes(data, HashAlgorithm::sha256).value());
}

TEST(hash, missing_file_and_directory_are_errors) {
  test::TempDir t;
  t.mkdir("/dir");
  const auto missing = hash_file(t.at("/nope"), HashAlgorithm::sha256);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_FALSE(hash_file(t.at("/dir"), HashAlgorithm::sha256));
}

TEST(hash, unreadable_file_is_a_permission_error) {
  if (test::running_as_root()) {
    GTEST_SKIP() << "root reads every file";
  }
  test::TempDir t;
  t.write("/secret", "x");
  std::filesystem::permissions(t.at("/secret"), std::filesystem::perms::none);
  const auto r = hash_file(t.at("/secret"), HashAlgorithm::sha256);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::permission_denied);
}

TEST(hash, pip_digest_converts_urlsafe_base64_to_hex) {
  EXPECT_EQ(collect::hex_from_pip_digest("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0"),
            k_sha256_abc);
  EXPECT_EQ(collect::hex_from_pip_digest("47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"),
            k_sha256_empty);
  // '-' and '_' are the urlsafe digits 62 and 63; padding is optional.
  EXPECT_EQ(collect::hex_from_pip_digest("-_8"), "fbff");
  EXPECT_EQ(collect::hex_from_pip_digest("-_8="), "fbff");
  EXPECT_FALSE(collect::hex_from_pip_digest(""));
  EXPECT_FALSE(collect::hex_from_pip_digest("a"));
  EXPECT_FALSE(collect::hex_from_pip_digest("ab!d"));
}

TEST(hash, recorded_digests_of_each_manager_parse) {
  const auto pip =
      collect::parse_recorded_digest("sha256=ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
  ASSERT_TRUE(pip);
  EXPECT_EQ(pip->algorithm, HashAlgorithm::sha256);
  EXPECT_EQ(pip->hex, k_sha256_abc);
  const auto conda = collect::parse_recorded_digest(
      "sha256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD");
  ASSERT_TRUE(conda);
  EXPECT_EQ(conda->hex, k_sha256_abc);
  const auto dpkg = collect::parse_recorded_digest("md5:900150983cd24fb0d6963f7d28e17f72");
  ASSERT_TRUE(dpkg);
  EXPECT_EQ(dpkg->algorithm, HashAlgorithm::md5);
  EXPECT_EQ(dpkg->hex, "900150983cd24fb0d6963f7d28e17f72");
}

TEST(hash, recorded_digests_without_a_usable_value_are_rejected) {
  EXPECT_FALSE(collect::parse_recorded_digest(""));
  EXPECT_FALSE(collect::parse_recorded_digest("sha1=qZk-NkcGgWq6PiVxeFDCbJzQ2J0"));
  EXPECT_FALSE(collect::parse_recorded_digest("sha256=AbC_-1"));                       // too short
  EXPECT_FALSE(collect::parse_recorded_digest("md5:900150983cd24fb0d6963f7d28e17f7")); // 31 digits
  EXPECT_FALSE(collect::parse_recorded_digest("md5:zz0150983cd24fb0d6963f7d28e17f72"));
  EXPECT_FALSE(collect::parse_recorded_digest("sha256"));
}

} // namespace
} // namespace doctor
