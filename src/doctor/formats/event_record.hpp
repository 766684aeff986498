// SPDX-License-Identifier: MIT
// One Windows event as read from an XML export, an .evtx file or the live event log, before any
// mapping decides whether it matters.
#pragma once

#include <doctor/formats/provenance.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace doctor::formats {

// The fields of <Event><System> we use, the event's data and where it was read. The localised
// message (<RenderingInfo>) is never kept: it depends on the reader's language and on message
// tables that are often missing (nvlddmkm), while <Data> is what the event really carries.
struct EventRecord {
  std::string channel;           // "System", "Application"
  std::string provider;          // <Provider Name=…>
  std::string provider_guid;     // <Provider Guid=…>, "" for classic sources
  std::string event_source_name; // <Provider EventSourceName=…> ("BugCheck")
  std::uint32_t event_id = 0;
  std::uint32_t qualifiers = 0; // <EventID Qualifiers=…>, 0 when absent
  int level = -1;               // 1 critical, 2 error, 3 warning, 4 information; -1 when absent
  int version = 0;
  std::uint64_t record_id = 0;
  std::optional<std::int64_t> time_utc_usec; // <TimeCreated SystemTime=…>
  std::string computer;
  // <EventData><Data Name=…> in order (name "" when positional); <UserData> leaf elements by
  // element name.
  std::vector<std::pair<std::string, std::string>> data;
  std::string binary; // <Binary> hex text, if any
  Origin origin;      // the source file and "event N" (XML) or "record N" (EVTX)
};

} // namespace doctor::formats
