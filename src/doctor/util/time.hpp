// SPDX-License-Identifier: MIT
// Calendar arithmetic for timestamps read from files (dumps, event logs, kernel logs): proleptic
// Gregorian, UTC, no time zone database.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace doctor::util {

struct CivilDate {
  std::int64_t year = 1970;
  unsigned month = 1; // 1..12
  unsigned day = 1;   // 1..31
};

// Days since 1970-01-01 of a date (negative before it).
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day);

// The date of a day count since 1970-01-01.
CivilDate civil_from_days(std::int64_t days);

// Microseconds since 1970 of a UTC date and time; nullopt if a field is out of range.
std::optional<std::int64_t> utc_usec(std::int64_t year,
                                     unsigned month,
                                     unsigned day,
                                     unsigned hour,
                                     unsigned minute,
                                     unsigned second,
                                     std::uint32_t usec = 0);

// Microseconds since 1970 of a Windows FILETIME (100 ns since 1601); nullopt for 0 and for values
// that overflow.
std::optional<std::int64_t> filetime_to_usec(std::uint64_t filetime);

// "2025-01-21T04:41:44.283575Z" (fraction only when not zero).
std::string iso_utc(std::int64_t usec);

// "2025-01-21 04:41:44 UTC".
std::string readable_utc(std::int64_t usec);

// "2020-12-31" of a time_t.
std::string date_of(std::int64_t unix_seconds);

} // namespace doctor::util
