// SPDX-License-Identifier: MIT
#include <doctor/util/time.hpp>

#include <fmt/format.h>

namespace doctor::util {

namespace {

constexpr std::int64_t k_usec_per_day = std::int64_t{86400} * 1000000;
// FILETIME ticks (100 ns) between 1601-01-01 and 1970-01-01.
constexpr std::uint64_t k_filetime_epoch = 116444736000000000ULL;

// Floor division for negative day counts.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

} // namespace

// Howard Hinnant's days_from_civil: eras of 400 years, March-based years.
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
  const std::int64_t y = year - (month <= 2 ? 1 : 0);
  const std::int64_t era = floor_div(y, 400);
  const std::int64_t yoe = y - era * 400;
  const std::int64_t mp = month > 2 ? month - 3 : month + 9;
  const std::int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilDate civil_from_days(std::int64_t days) {
  const std::int64_t z = days + 719468;
  const std::int64_t era = floor_div(z, 146097);
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const auto d = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  const auto m = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  return CivilDate{yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

std::optional<std::int64_t> utc_usec(std::int64_t year,
                                     unsigned month,
                                     unsigned day,
                                     unsigned hour,
                                     unsigned minute,
                                     unsigned second,
                                     std::uint32_t usec) {
  if (year < 1601 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23
      || minute > 59 || second > 60 || usec > 999999) {
    return std::nullopt;
  }
  const std::int64_t days = days_from_civil(year, month, day);
  return days * k_usec_per_day + ((std::int64_t{hour} * 60 + minute) * 60 + second) * 1000000
         + usec;
}

std::optional<std::int64_t> filetime_to_usec(std::uint64_t filetime) {
  // Up to the year 30828, the largest FILETIME Windows formats.
  if (filetime == 0 || filetime > 0x7FFFFFFFFFFFFFFFULL) {
    return std::nullopt;
  }
  const auto ticks = static_cast<std::int64_t>(filetime);
  return (ticks - static_cast<std::int64_t>(k_filetime_epoch)) / 10;
}

std::string iso_utc(std::int64_t usec) {
  const std::int64_t days = floor_div(usec, k_usec_per_day);
  const std::int64_t rest = usec - days * k_usec_per_day;
  const CivilDate d = civil_from_days(days);
  const std::int64_t secs = rest / 1000000;
  const std::int64_t frac = rest % 1000000;
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                                d.year,
                                d.month,
                                d.day,
                                secs / 3600,
                                secs / 60 % 60,
                                secs % 60);
  if (frac != 0) {
    out += fmt::format(".{:06}", frac);
  }
  return out + "Z";
}

std::string readable_utc(std::int64_t usec) {
  const std::int64_t days = floor_div(usec, k_usec_per_day);
  const std::int64_t secs = (usec - days * k_usec_per_day) / 1000000;
  const CivilDate d = civil_from_days(days);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
                     d.year,
                     d.month,
                     d.day,
                     secs / 3600,
                     secs / 60 % 60,
                     secs % 60);
}

std::string date_of(std::int64_t unix_seconds) {
  const CivilDate d = civil_from_days(floor_div(unix_seconds, 86400));
  return fmt::format("{:04}-{:02}-{:02}", d.year, d.month, d.day);
}

} // namespace doctor::util
