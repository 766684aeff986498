// SPDX-License-Identifier: MIT
// Calendar arithmetic for timestamps read from files (dumps, event logs, kernel logs): proleptic
// Gregorian, UTC, no time zone database. Built on std::chrono's calendar types (year_month_day,
// sys_days), extended by whole 400-year cycles to every date an int64 count can name.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ratio>
#include <string>

namespace doctor::util {

struct CivilDate {
  std::int64_t year = 1970;
  unsigned month = 1; // 1..12
  unsigned day = 1;   // 1..31
};

// A Windows FILETIME count: 100 ns ticks.
using FiletimeTicks = std::chrono::duration<std::int64_t, std::ratio<1, 10'000'000>>;

// FILETIME ticks from its epoch, 1601-01-01, to 1970-01-01 (116444736000000000).
inline constexpr std::uint64_t k_filetime_unix_epoch = static_cast<std::uint64_t>(
    FiletimeTicks(std::chrono::sys_days(std::chrono::year(1970) / 1 / 1)
                  - std::chrono::sys_days(std::chrono::year(1601) / 1 / 1))
        .count());

// Days since 1970-01-01 of a date (negative before it). `month` is 1..12 and `day` 0..31; a day
// past the end of its month counts on into the next one ("Feb 30"), day 0 is the previous
// month's last.
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day);

// The date of a day count since 1970-01-01.
CivilDate civil_from_days(std::int64_t days);

// Microseconds since 1970 of a UTC date and time; nullopt if a field is out of range (years
// 1601..9999, days 1..31 whatever the month: "Feb 30" is March 1 or 2).
std::optional<std::int64_t> utc_usec(std::int64_t year,
                                     unsigned month,
                                     unsigned day,
                                     unsigned hour,
                                     unsigned minute,
                                     unsigned second,
                                     std::uint32_t usec = 0);

// Microseconds since 1970 of a Windows FILETIME (100 ns since 1601, rounded towards 1970);
// nullopt for 0 and for values above INT64_MAX (after the year 30828, the largest FILETIME
// Windows formats).
std::optional<std::int64_t> filetime_to_usec(std::uint64_t filetime);

// "2025-01-21T04:41:44.283575Z" (fraction only when not zero).
std::string iso_utc(std::int64_t usec);

// "2025-01-21 04:41:44 UTC".
std::string readable_utc(std::int64_t usec);

// "2020-12-31" of a time_t.
std::string date_of(std::int64_t unix_seconds);

} // namespace doctor::util
