// SPDX-License-Identifier: MIT
#include <doctor/util/time.hpp>

#include <fmt/format.h>

namespace doctor::util {

namespace {

namespace chr = std::chrono;

// The Gregorian calendar repeats every 400 years, which are 146097 days. std::chrono::year holds
// -32767..32767 only, so a date is moved by whole cycles into the 400 years from 1970, converted
// there, and moved back: every int64 day count and year stays exact.
constexpr std::int64_t k_cycle_years = 400;
constexpr std::int64_t k_cycle_days = 146097;
constexpr std::int64_t k_base_year = 1970;

static_assert(chr::sys_days(chr::year(2370) / 1 / 1) - chr::sys_days(chr::year(1970) / 1 / 1)
              == chr::days(k_cycle_days));
static_assert(k_filetime_unix_epoch == 116444736000000000ULL);

using Usec = chr::duration<std::int64_t, std::micro>;

// Floor division: rounds towards minus infinity.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

constexpr std::int64_t k_usec_per_day = std::int64_t{86400} * 1000000;

// The date and the time of day of `usec`.
struct Split {
  CivilDate date;
  chr::hh_mm_ss<Usec> time{Usec(0)};
};

// Splits with a remainder that never overflows, so every int64 is a time.
Split split_usec(std::int64_t usec) {
  std::int64_t days = usec / k_usec_per_day;
  std::int64_t rest = usec % k_usec_per_day;
  if (rest < 0) {
    rest += k_usec_per_day;
    --days;
  }
  return Split{civil_from_days(days), chr::hh_mm_ss<Usec>(Usec(rest))};
}

} // namespace

std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
  const std::int64_t cycles = floor_div(year - k_base_year, k_cycle_years);
  const chr::year_month_day date{
      chr::year(static_cast<int>(year - cycles * k_cycle_years)), chr::month(month), chr::day(day)};
  // An invalid day (Feb 30, or 0) converts as the first of the month plus day - 1.
  return chr::sys_days(date).time_since_epoch().count() + cycles * k_cycle_days;
}

CivilDate civil_from_days(std::int64_t days) {
  const std::int64_t cycles = floor_div(days, k_cycle_days);
  const chr::year_month_day date{chr::sys_days(chr::days(days - cycles * k_cycle_days))};
  return CivilDate{static_cast<int>(date.year()) + cycles * k_cycle_years,
                   static_cast<unsigned>(date.month()),
                   static_cast<unsigned>(date.day())};
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
  const Usec since = chr::days(days_from_civil(year, month, day)) + chr::hours(hour)
                     + chr::minutes(minute) + chr::seconds(second) + Usec(usec);
  return since.count();
}

std::optional<std::int64_t> filetime_to_usec(std::uint64_t filetime) {
  if (filetime == 0 || filetime > 0x7FFFFFFFFFFFFFFFULL) {
    return std::nullopt;
  }
  const FiletimeTicks since_1970 =
      FiletimeTicks(static_cast<std::int64_t>(filetime)) - FiletimeTicks(k_filetime_unix_epoch);
  // duration_cast truncates towards zero: before 1970 the result rounds up.
  return chr::duration_cast<Usec>(since_1970).count();
}

std::string iso_utc(std::int64_t usec) {
  const Split s = split_usec(usec);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                                s.date.year,
                                s.date.month,
                                s.date.day,
                                s.time.hours().count(),
                                s.time.minutes().count(),
                                s.time.seconds().count());
  if (s.time.subseconds().count() != 0) {
    out += fmt::format(".{:06}", s.time.subseconds().count());
  }
  return out + "Z";
}

std::string readable_utc(std::int64_t usec) {
  const Split s = split_usec(usec);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
                     s.date.year,
                     s.date.month,
                     s.date.day,
                     s.time.hours().count(),
                     s.time.minutes().count(),
                     s.time.seconds().count());
}

std::string date_of(std::int64_t unix_seconds) {
  const CivilDate d = civil_from_days(floor_div(unix_seconds, 86400));
  return fmt::format("{:04}-{:02}-{:02}", d.year, d.month, d.day);
}

} // namespace doctor::util
