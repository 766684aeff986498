// SPDX-License-Identifier: MIT
// Random bytes through the event XML reader and the event mapping: parse_event_xml must return
// records or an error, never crash, and every Observation it leads to must name its provider
// and event id first and keep its lines bounded.
#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/event_xml.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto records = doctor::formats::parse_event_xml(bytes, "fuzz");
  if (!records) {
    check(!records.error().message.empty());
    return 0;
  }
  check(!records->empty());
  for (const auto& o : doctor::crash::observe_events(*records)) {
    check(o.fields.size() >= 2 && o.fields[0].first == "provider"
          && o.fields[1].first == "event_id");
    for (const auto& line : o.lines) {
      check(line.size() <= 310);
    }
  }
  return 0;
}
