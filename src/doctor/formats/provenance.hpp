// SPDX-License-Identifier: MIT
// When and where a record was read, as the source itself says: what every reader of logs, event
// logs and dumps hands on with its records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace doctor::formats {

// When something happened, as far as the evidence tells. Kernel logs often know only the time
// since boot, syslog lines a date without a year: `label` keeps the time as written.
struct When {
  std::optional<std::int64_t> utc_usec;    // absolute UTC time, microseconds since 1970
  std::optional<std::int64_t> uptime_usec; // time since boot, when the source gives it
  std::string boot;                        // boot id (journal) or "" when unknown
  std::string label;                       // the time as written in the source ("Feb 15 17:37:45")
};

// Where a record was read.
struct Origin {
  std::string source;  // the file as given, or "/dev/kmsg", "journal", "eventlog:System"
  std::string locator; // "line 42", "record 1187", "header"; empty if none
};

} // namespace doctor::formats
