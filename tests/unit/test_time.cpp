// SPDX-License-Identifier: MIT
#include <doctor/util/time.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace doctor::util {
namespace {

constexpr std::int64_t k_usec_per_sec = 1000000;

TEST(time, days_from_civil_counts_leap_days_of_the_gregorian_calendar) {
  EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
  EXPECT_EQ(days_from_civil(1969, 12, 31), -1);
  // 2000 is a leap year (divisible by 400), 1900 and 2100 are not (divisible by 100), 2024 is.
  EXPECT_EQ(days_from_civil(2000, 2, 29), 11016);
  EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
  EXPECT_EQ(days_from_civil(1900, 2, 28), -25509);
  EXPECT_EQ(days_from_civil(1900, 3, 1), -25508);
  EXPECT_EQ(days_from_civil(2100, 3, 1) - days_from_civil(2100, 2, 28), 1);
  EXPECT_EQ(days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 28), 2);
  EXPECT_EQ(days_from_civil(2024, 2, 29), 19782);
  EXPECT_EQ(days_from_civil(2001, 1, 1) - days_from_civil(2000, 1, 1), 366);
  EXPECT_EQ(days_from_civil(2101, 1, 1) - days_from_civil(2100, 1, 1), 365);
}

TEST(time, days_from_civil_runs_on_past_the_end_of_a_month) {
  // Callers check only 1..31: "Feb 30" is two days after Feb 28 of a common year.
  EXPECT_EQ(days_from_civil(2023, 2, 30), days_from_civil(2023, 3, 2));
  EXPECT_EQ(days_from_civil(2023, 2, 30), 19418);
  EXPECT_EQ(days_from_civil(2024, 4, 31), days_from_civil(2024, 5, 1));
  EXPECT_EQ(days_from_civil(2024, 3, 0), days_from_civil(2024, 2, 29));
}

TEST(time, days_from_civil_and_back_outside_the_years_of_std_chrono) {
  // The FILETIME epoch, the last FILETIME Windows formats, and years std::chrono::year cannot
  // hold (it stops at 32767).
  EXPECT_EQ(days_from_civil(1601, 1, 1), -134774);
  EXPECT_EQ(days_from_civil(9999, 12, 31), 2932896);
  EXPECT_EQ(days_from_civil(30828, 9, 14), 10540425);
  EXPECT_EQ(days_from_civil(100000, 1, 1), 35804722);
  EXPECT_EQ(days_from_civil(0, 3, 1), -719468);
  EXPECT_EQ(days_from_civil(-4713, 11, 24), -2440588); // the Julian day epoch, proleptic
  const struct {
    std::int64_t days;
    std::int64_t year;
    unsigned month;
    unsigned day;
  } cases[] = {
      {0, 1970, 1, 1},
      {-1, 1969, 12, 31},
      {-134774, 1601, 1, 1},
      {-719468, 0, 3, 1},
      {2932896, 9999, 12, 31},
      {100000000, 275760, 9, 13},
      {-100000000, -271821, 4, 20},
  };
  for (const auto& c : cases) {
    const CivilDate d = civil_from_days(c.days);
    EXPECT_EQ(d.year, c.year) << c.days;
    EXPECT_EQ(d.month, c.month) << c.days;
    EXPECT_EQ(d.day, c.day) << c.days;
  }
}

TEST(time, civil_from_days_inverts_days_from_civil_across_400_year_cycles) {
  // Every 7th day over about 5500 years, from before year 0 to past 32767 (where std::chrono's
  // years end), in steps that cross every cycle boundary.
  for (std::int64_t days = -1'500'000; days <= 10'000'000; days += 7 * 137) {
    const CivilDate d = civil_from_days(days);
    ASSERT_GE(d.month, 1U);
    ASSERT_LE(d.month, 12U);
    ASSERT_GE(d.day, 1U);
    ASSERT_LE(d.day, 31U);
    ASSERT_EQ(days_from_civil(d.year, d.month, d.day), days) << d.year << "-" << d.month;
  }
}

TEST(time, utc_usec_checks_each_field) {
  EXPECT_EQ(utc_usec(1970, 1, 1, 0, 0, 0), 0);
  EXPECT_EQ(utc_usec(2000, 2, 29, 0, 0, 0), std::int64_t{951782400} * k_usec_per_sec);
  EXPECT_EQ(utc_usec(2025, 1, 21, 4, 41, 44, 283575), std::int64_t{1737434504283575});
  EXPECT_EQ(utc_usec(1601, 1, 1, 0, 0, 0), std::int64_t{-11644473600} * k_usec_per_sec);
  EXPECT_EQ(utc_usec(9999, 12, 31, 23, 59, 59, 999999), std::int64_t{253402300799999999});
  // A leap second is accepted and counts as the next minute's first.
  EXPECT_EQ(utc_usec(2016, 12, 31, 23, 59, 60), utc_usec(2017, 1, 1, 0, 0, 0));
  EXPECT_EQ(utc_usec(2023, 2, 30, 0, 0, 0), utc_usec(2023, 3, 2, 0, 0, 0));
  EXPECT_EQ(utc_usec(1600, 12, 31, 0, 0, 0), std::nullopt);
  EXPECT_EQ(utc_usec(10000, 1, 1, 0, 0, 0), std::nullopt);
  EXPECT_EQ(utc_usec(2024, 0, 1, 0, 0, 0), std::nullopt);
  EXPECT_EQ(utc_usec(2024, 13, 1, 0, 0, 0), std::nullopt);
  EXPECT_EQ(utc_usec(2024, 1, 0, 0, 0, 0), std::nullopt);
  EXPECT_EQ(utc_usec(2024, 1, 32, 0, 0, 0), std::nullopt);
  EXPECT_EQ(utc_usec(2024, 1, 1, 24, 0, 0), std::nullopt);
  EXPECT_EQ(utc_usec(2024, 1, 1, 0, 60, 0), std::nullopt);
  EXPECT_EQ(utc_usec(2024, 1, 1, 0, 0, 61), std::nullopt);
  EXPECT_EQ(utc_usec(2024, 1, 1, 0, 0, 0, 1000000), std::nullopt);
}

TEST(time, filetime_counts_100_ns_ticks_from_1601) {
  EXPECT_EQ(k_filetime_unix_epoch, 116444736000000000ULL);
  EXPECT_EQ(filetime_to_usec(0), std::nullopt);
  EXPECT_EQ(filetime_to_usec(k_filetime_unix_epoch), 0);
  // Ticks below a microsecond round towards 1970, on both sides of it.
  EXPECT_EQ(filetime_to_usec(k_filetime_unix_epoch + 5), 0);
  EXPECT_EQ(filetime_to_usec(k_filetime_unix_epoch - 15), -1);
  EXPECT_EQ(filetime_to_usec(1), std::int64_t{-11644473599999999});
  EXPECT_EQ(filetime_to_usec(10), std::int64_t{-11644473599999999});
  EXPECT_EQ(iso_utc(*filetime_to_usec(10)), "1601-01-01T00:00:00.000001Z");
  // 2024-07-22 10:11:12.123 UTC, as an event log writes it.
  EXPECT_EQ(iso_utc(*filetime_to_usec(133661166721230000ULL)), "2024-07-22T10:11:12.123000Z");
  // The largest FILETIME Windows formats, and one past it.
  EXPECT_EQ(filetime_to_usec(0x7FFFFFFFFFFFFFFFULL), std::int64_t{910692730085477580});
  EXPECT_EQ(iso_utc(*filetime_to_usec(0x7FFFFFFFFFFFFFFFULL)), "30828-09-14T02:48:05.477580Z");
  EXPECT_EQ(filetime_to_usec(0x8000000000000000ULL), std::nullopt);
  EXPECT_EQ(filetime_to_usec(std::numeric_limits<std::uint64_t>::max()), std::nullopt);
}

TEST(time, iso_utc_shows_a_fraction_only_when_there_is_one) {
  EXPECT_EQ(iso_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(iso_utc(1737434504283575), "2025-01-21T04:41:44.283575Z");
  EXPECT_EQ(iso_utc(std::int64_t{951782400} * k_usec_per_sec), "2000-02-29T00:00:00Z");
  EXPECT_EQ(iso_utc(std::int64_t{951868799} * k_usec_per_sec), "2000-02-29T23:59:59Z");
}

TEST(time, negative_and_far_times_are_dates_too) {
  EXPECT_EQ(iso_utc(-1), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(iso_utc(-k_usec_per_sec), "1969-12-31T23:59:59Z");
  EXPECT_EQ(readable_utc(-1), "1969-12-31 23:59:59 UTC");
  EXPECT_EQ(iso_utc(std::numeric_limits<std::int64_t>::max()), "294247-01-10T04:00:54.775807Z");
  EXPECT_EQ(iso_utc(std::numeric_limits<std::int64_t>::min()), "-290308-12-21T19:59:05.224192Z");
  EXPECT_EQ(readable_utc(std::numeric_limits<std::int64_t>::min()), "-290308-12-21 19:59:05 UTC");
  EXPECT_EQ(iso_utc(std::int64_t{-62167219200} * k_usec_per_sec), "0000-01-01T00:00:00Z");
  EXPECT_EQ(iso_utc(std::int64_t{-62167219201} * k_usec_per_sec), "-001-12-31T23:59:59Z");
}

TEST(time, readable_utc_drops_the_fraction) {
  EXPECT_EQ(readable_utc(1737434504283575), "2025-01-21 04:41:44 UTC");
  EXPECT_EQ(readable_utc(0), "1970-01-01 00:00:00 UTC");
}

TEST(time, date_of_a_time_t) {
  EXPECT_EQ(date_of(0), "1970-01-01");
  EXPECT_EQ(date_of(-1), "1969-12-31");
  EXPECT_EQ(date_of(-86400), "1969-12-31");
  EXPECT_EQ(date_of(-86401), "1969-12-30");
  EXPECT_EQ(date_of(951782400), "2000-02-29");
  EXPECT_EQ(date_of(1609459199), "2020-12-31");
  EXPECT_EQ(date_of(4294967295), "2106-02-07"); // the largest unsigned 32-bit time stamp
  EXPECT_EQ(date_of(std::numeric_limits<std::int64_t>::max()), "292277026596-12-04");
}

} // namespace
} // namespace doctor::util
