// SPDX-License-Identifier: MIT
// Reads Windows events from their XML form: `wevtutil qe … /f:xml` output (a run of <Event>
// elements with no root), <Events> wrappers, PowerShell's Get-WinEvent ToXml() and the rendered
// XML of the event log API, in UTF-8 or UTF-16 (PowerShell's Out-File).
//
// The XML reader is small and strict: elements, attributes, text, the five predefined entities,
// character references, CDATA, comments and processing instructions. A DOCTYPE is refused (no
// entity games), and depth, node count and input size are capped.
#pragma once

#include <doctor/formats/event_record.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doctor::formats {

// An XML element as the event readers see it: the local name (prefix removed), attributes in
// order, the character data directly inside it, and child elements. The EVTX reader builds the
// same tree from Binary XML, so both paths share event_from_element().
struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string text;
  std::vector<XmlElement> children;

  // Returns the value of attribute `attr_name`, or nullptr.
  const std::string* attribute(std::string_view attr_name) const;
  // Returns the first child element named `child_name`, or nullptr.
  const XmlElement* child(std::string_view child_name) const;
};

// The largest XML input accepted, in bytes.
inline constexpr std::size_t k_max_event_xml_bytes = std::size_t{64} * 1024 * 1024;

// Parses `text` (UTF-8, no encoding detection) into a synthetic root element whose children are
// the top-level elements. Returns an error naming the line for malformed XML, a DOCTYPE, an
// unknown entity, nesting deeper than 64 or more than a million nodes.
Expected<XmlElement> parse_xml_document(std::string_view text);

// Fills an EventRecord from an <Event> element; missing fields keep their defaults.
EventRecord event_from_element(const XmlElement& event, Origin origin);

// Converts "2024-07-22T10:11:12.1234567Z" (also with a space for T, no fraction, or "+00:00")
// into microseconds since 1970 UTC; nullopt if the text is not such a time.
std::optional<std::int64_t> parse_system_time(std::string_view text);

// Formats microseconds since 1970 as "2024-07-22T10:11:12.123456Z".
std::string format_utc_usec(std::int64_t usec);

// Parses every <Event> element of `text` (at any depth, so <Events> wrappers work), decoding
// UTF-16 and other encodings first. Each record's origin is `source` and "event N" (1-based, in
// input order). Returns an error if the XML is malformed or holds no <Event>.
Expected<std::vector<EventRecord>> parse_event_xml(std::string_view text,
                                                   const std::string& source);

} // namespace doctor::formats
