// SPDX-License-Identifier: MIT
#include <doctor/util/version.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

TEST(version, parses_dotted_numbers_and_keeps_spelling) {
  const auto v = Version::parse("535.261.03");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major(), 535U);
  EXPECT_EQ(v->part(2), 3U);
  EXPECT_EQ(v->str(), "535.261.03");
}

TEST(version, rejects_junk) {
  EXPECT_FALSE(Version::parse(""));
  EXPECT_FALSE(Version::parse("1..2"));
  EXPECT_FALSE(Version::parse("1.2.x"));
  EXPECT_FALSE(Version::parse(".1"));
  EXPECT_FALSE(Version::parse("1.2."));
  EXPECT_FALSE(Version::parse("1234567890.1"));
  EXPECT_FALSE(Version::parse("1.2.3.4.5.6.7"));
}

TEST(version, compares_numerically_with_missing_parts_as_zero) {
  EXPECT_LT(*Version::parse("9.2"), *Version::parse("9.10"));
  EXPECT_EQ(*Version::parse("13.0"), *Version::parse("13.0.0"));
  EXPECT_GT(*Version::parse("8.9.7"), *Version::parse("8.9"));
}

TEST(version, prefix_parsing_stops_at_local_labels) {
  EXPECT_EQ(Version::parse_prefix("2.5.1+cu124")->str(), "2.5.1");
  EXPECT_EQ(Version::parse_prefix("12.4.")->str(), "12.4");
  EXPECT_FALSE(Version::parse_prefix("cu124"));
}

TEST(version, truncated_keeps_the_first_parts_and_pads_with_zero) {
  EXPECT_EQ(Version::parse("12.4.1")->truncated(2).str(), "12.4");
  EXPECT_EQ(Version::parse("13")->truncated(3).str(), "13.0.0");
  EXPECT_TRUE(Version::parse("11.8.89")->truncated(2) <= *Version::parse("11.8"));
}

TEST(version, starts_with_and_prefix) {
  const auto v = *Version::parse("9.19.0");
  EXPECT_TRUE(v.starts_with(*Version::parse("9.19")));
  EXPECT_FALSE(v.starts_with(*Version::parse("9.1")));
  EXPECT_EQ(v.prefix(2), "9.19");
}

} // namespace
} // namespace doctor
