// SPDX-License-Identifier: MIT
#include <doctor/formats/event_xml.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/text_decode.hpp>
#include <doctor/util/time.hpp>

#include <fmt/format.h>

#include <cstddef>
#include <cstdio>
#include <utility>

namespace doctor::formats {

namespace {

constexpr std::size_t k_max_xml_depth = 64;
constexpr std::size_t k_max_nodes = 1'000'000;
constexpr std::size_t k_max_attributes = 64;
constexpr std::size_t k_max_user_data = 256;

bool is_xml_name_start(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u == ':' || u >= 0x80;
}

bool is_xml_name_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return is_xml_name_start(c) || (u >= '0' && u <= '9') || u == '-' || u == '.';
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Returns `name` without its namespace prefix ("evt:Event" -> "Event").
std::string local_name(std::string_view name) {
  const auto colon = name.rfind(':');
  return std::string(colon == std::string_view::npos ? name : name.substr(colon + 1));
}

// A single pass over the text with an explicit element stack (no recursion, so nesting cannot
// exhaust the call stack); m_stack[0] is the synthetic document root.
class XmlParser {
public:
  explicit XmlParser(std::string_view text)
      : m_text(text) {}

  Expected<XmlElement> run() {
    m_stack.emplace_back();
    m_raw_names.emplace_back();
    while (m_pos < m_text.size()) {
      auto step = m_text[m_pos] == '<' ? markup() : text();
      if (!step) {
        return tl::unexpected(step.error());
      }
    }
    if (m_stack.size() > 1) {
      return fail("unexpected end of input: <" + m_raw_names.back() + "> is not closed");
    }
    return std::move(m_stack.front());
  }

private:
  tl::unexpected<Error> fail(const std::string& what) const {
    std::size_t line = 1;
    for (std::size_t i = 0; i < m_pos && i < m_text.size(); ++i) {
      line += m_text[i] == '\n' ? 1 : 0;
    }
    return make_error(ErrorCode::parse, "line " + std::to_string(line) + ": " + what);
  }

  bool starts(std::string_view s) const { return m_text.substr(m_pos, s.size()) == s; }

  // Skips to just after `end`; false if `end` never comes.
  bool skip_past(std::string_view end) {
    const auto at = m_text.find(end, m_pos);
    if (at == std::string_view::npos) {
      return false;
    }
    m_pos = at + end.size();
    return true;
  }

  void skip_space() {
    while (m_pos < m_text.size() && is_space(m_text[m_pos])) {
      ++m_pos;
    }
  }

  std::string_view name() {
    const std::size_t start = m_pos;
    if (m_pos < m_text.size() && is_xml_name_start(m_text[m_pos])) {
      ++m_pos;
      while (m_pos < m_text.size() && is_xml_name_char(m_text[m_pos])) {
        ++m_pos;
      }
    }
    return m_text.substr(start, m_pos - start);
  }

  // Appends `raw` to `out` with entity and character references replaced.
  Expected<bool> decode(std::string_view raw, std::string& out) {
    std::size_t i = 0;
    while (i < raw.size()) {
      const auto amp = raw.find('&', i);
      if (amp == std::string_view::npos) {
        out.append(raw.substr(i));
        break;
      }
      out.append(raw.substr(i, amp - i));
      const auto semi = raw.find(';', amp);
      if (semi == std::string_view::npos || semi - amp > 12) {
        return fail("'&' without a reference");
      }
      const auto ref = raw.substr(amp + 1, semi - amp - 1);
      if (ref == "lt") {
        out += '<';
      } else if (ref == "gt") {
        out += '>';
      } else if (ref == "amp") {
        out += '&';
      } else if (ref == "quot") {
        out += '"';
      } else if (ref == "apos") {
        out += '\'';
      } else if (ref.size() > 1 && ref[0] == '#') {
        const bool hex = ref[1] == 'x' || ref[1] == 'X';
        const auto digits = ref.substr(hex ? 2 : 1);
        const auto value =
            hex ? (digits.empty() || digits.substr(0, 2) == "0x" ? std::nullopt
                                                                 : util::parse_hex(digits))
                : util::parse_uint(digits);
        if (!value || *value == 0 || *value > 0x10FFFF || (*value >= 0xD800 && *value < 0xE000)) {
          return fail("bad character reference &" + std::string(ref) + ";");
        }
        util::append_utf8(out, static_cast<std::uint32_t>(*value));
      } else {
        return fail("unknown entity &" + util::sanitize(ref, 20) + ";");
      }
      i = semi + 1;
    }
    return true;
  }

  Expected<bool> text() {
    const auto end = m_text.find('<', m_pos);
    const auto raw = m_text.substr(m_pos, end == std::string_view::npos ? end : end - m_pos);
    m_pos = end == std::string_view::npos ? m_text.size() : end;
    if (m_stack.size() == 1) {
      return true; // text between top-level elements (newlines, a shell prompt) is ignored
    }
    return decode(raw, m_stack.back().text);
  }

  Expected<bool> markup() {
    if (starts("<!--")) {
      if (!skip_past("-->")) {
        return fail("unterminated comment");
      }
      return true;
    }
    if (starts("<![CDATA[")) {
      const std::size_t start = m_pos + 9;
      if (!skip_past("]]>")) {
        return fail("unterminated CDATA section");
      }
      if (m_stack.size() > 1) {
        m_stack.back().text.append(m_text.substr(start, m_pos - 3 - start));
      }
      return true;
    }
    if (starts("<!")) {
      return fail("DOCTYPE and other declarations are not supported");
    }
    if (starts("<?")) {
      if (!skip_past("?>")) {
        return fail("unterminated processing instruction");
      }
      return true;
    }
    if (starts("</")) {
      return end_tag();
    }
    return start_tag();
  }

  Expected<bool> end_tag() {
    m_pos += 2;
    const auto tag = name();
    skip_space();
    if (m_pos >= m_text.size() || m_text[m_pos] != '>') {
      return fail("malformed end tag");
    }
    ++m_pos;
    if (m_stack.size() == 1) {
      return fail("end tag </" + util::sanitize(tag, 40) + "> without a start tag");
    }
    if (tag != m_raw_names.back()) {
      return fail("expected </" + m_raw_names.back() + ">, found </" + util::sanitize(tag, 40)
                  + ">");
    }
    close();
    return true;
  }

  void close() {
    XmlElement done = std::move(m_stack.back());
    m_stack.pop_back();
    m_raw_names.pop_back();
    m_stack.back().children.push_back(std::move(done));
  }

  Expected<bool> start_tag() {
    ++m_pos;
    const auto tag = name();
    if (tag.empty()) {
      return fail("'<' not followed by a tag name");
    }
    if (m_stack.size() > k_max_xml_depth) {
      return fail("elements nested deeper than " + std::to_string(k_max_xml_depth));
    }
    if (++m_nodes > k_max_nodes) {
      return fail("more than " + std::to_string(k_max_nodes) + " elements");
    }
    XmlElement element;
    element.name = local_name(tag);
    while (true) {
      const std::size_t before = m_pos;
      skip_space();
      if (m_pos >= m_text.size()) {
        return fail("unterminated start tag <" + util::sanitize(tag, 40) + ">");
      }
      if (starts("/>") || m_text[m_pos] == '>') {
        const bool empty = m_text[m_pos] == '/';
        m_pos += empty ? 2 : 1;
        m_stack.push_back(std::move(element));
        m_raw_names.emplace_back(tag);
        if (empty) {
          close();
        }
        return true;
      }
      if (m_pos == before) {
        return fail("expected whitespace before an attribute");
      }
      auto attr = attribute();
      if (!attr) {
        return tl::unexpected(attr.error());
      }
      if (element.attributes.size() >= k_max_attributes) {
        return fail("more than " + std::to_string(k_max_attributes) + " attributes");
      }
      element.attributes.push_back(std::move(*attr));
    }
  }

  Expected<std::pair<std::string, std::string>> attribute() {
    const auto attr_name = name();
    if (attr_name.empty()) {
      return fail("malformed attribute");
    }
    skip_space();
    if (m_pos >= m_text.size() || m_text[m_pos] != '=') {
      return fail("attribute " + util::sanitize(attr_name, 40) + " has no value");
    }
    ++m_pos;
    skip_space();
    if (m_pos >= m_text.size() || (m_text[m_pos] != '"' && m_text[m_pos] != '\'')) {
      return fail("attribute value is not quoted");
    }
    const char quote = m_text[m_pos++];
    const auto end = m_text.find(quote, m_pos);
    if (end == std::string_view::npos) {
      return fail("unterminated attribute value");
    }
    const auto raw = m_text.substr(m_pos, end - m_pos);
    if (raw.find('<') != std::string_view::npos) {
      return fail("'<' in an attribute value");
    }
    m_pos = end + 1;
    std::string value;
    auto ok = decode(raw, value);
    if (!ok) {
      return tl::unexpected(ok.error());
    }
    return std::make_pair(local_name(attr_name), std::move(value));
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  std::size_t m_nodes = 0;
  std::vector<XmlElement> m_stack;
  std::vector<std::string> m_raw_names; // tag names as written, to match end tags
};

int to_int(std::string_view s, int fallback) {
  const auto v = util::parse_uint(util::trim(s));
  return v && *v <= 0x7FFFFFFF ? static_cast<int>(*v) : fallback;
}

std::uint32_t to_u32(std::string_view s) {
  const auto v = util::parse_uint(util::trim(s));
  return v && *v <= 0xFFFFFFFFU ? static_cast<std::uint32_t>(*v) : 0;
}

// Collects the leaf elements under <UserData> (whose layout each provider defines) by name.
void collect_leaves(const XmlElement& element, EventRecord& record, std::size_t depth) {
  for (const auto& child : element.children) {
    if (record.data.size() >= k_max_user_data || depth > k_max_xml_depth) {
      return;
    }
    if (child.children.empty()) {
      record.data.emplace_back(child.name, std::string(util::trim(child.text)));
    } else {
      collect_leaves(child, record, depth + 1);
    }
  }
}

void find_events(const XmlElement& element, std::vector<const XmlElement*>& out) {
  for (const auto& child : element.children) {
    if (child.name == "Event") {
      out.push_back(&child);
    } else {
      find_events(child, out);
    }
  }
}

} // namespace

const std::string* XmlElement::attribute(std::string_view attr_name) const {
  for (const auto& [k, v] : attributes) {
    if (k == attr_name) {
      return &v;
    }
  }
  return nullptr;
}

const XmlElement* XmlElement::child(std::string_view child_name) const {
  for (const auto& c : children) {
    if (c.name == child_name) {
      return &c;
    }
  }
  return nullptr;
}

Expected<XmlElement> parse_xml_document(std::string_view text) {
  if (text.size() > k_max_event_xml_bytes) {
    return make_error(ErrorCode::too_large,
                      "event XML larger than " + std::to_string(k_max_event_xml_bytes) + " bytes");
  }
  return XmlParser(text).run();
}

std::optional<std::int64_t> parse_system_time(std::string_view text) {
  text = util::trim(text);
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != ' ')
      || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  const auto num = [&](std::size_t at, std::size_t len) {
    return util::parse_uint(text.substr(at, len));
  };
  const auto y = num(0, 4);
  const auto mo = num(5, 2);
  const auto d = num(8, 2);
  const auto h = num(11, 2);
  const auto mi = num(14, 2);
  const auto s = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !s || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23
      || *mi > 59 || *s > 60) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  std::int64_t usec = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::int64_t scale = 100000;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      usec += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
  }
  const auto rest = text.substr(pos);
  if (!rest.empty() && rest != "Z" && rest != "+00:00") {
    return std::nullopt;
  }
  const auto at = util::utc_usec(static_cast<std::int64_t>(*y),
                                 static_cast<unsigned>(*mo),
                                 static_cast<unsigned>(*d),
                                 static_cast<unsigned>(*h),
                                 static_cast<unsigned>(*mi),
                                 static_cast<unsigned>(*s));
  if (!at) {
    return std::nullopt;
  }
  return *at + usec;
}

std::string format_utc_usec(std::int64_t usec) {
  // Always with the microseconds, as the event log writes them.
  const std::string iso = util::iso_utc(usec - usec % 1'000'000);
  std::int64_t frac = usec % 1'000'000;
  if (frac < 0) {
    frac += 1'000'000;
  }
  return iso.substr(0, iso.size() - 1) + fmt::format(".{:06}Z", frac);
}

EventRecord event_from_element(const XmlElement& event, Origin origin) {
  EventRecord r;
  r.origin = std::move(origin);
  if (const auto* sys = event.child("System")) {
    if (const auto* p = sys->child("Provider")) {
      const auto* name = p->attribute("Name");
      const auto* guid = p->attribute("Guid");
      const auto* source = p->attribute("EventSourceName");
      r.provider = name != nullptr ? *name : "";
      r.provider_guid = guid != nullptr ? *guid : "";
      r.event_source_name = source != nullptr ? *source : "";
    }
    if (const auto* id = sys->child("EventID")) {
      r.event_id = to_u32(id->text);
      if (const auto* q = id->attribute("Qualifiers")) {
        r.qualifiers = to_u32(*q);
      }
    }
    if (const auto* v = sys->child("Version")) {
      r.version = to_int(v->text, 0);
    }
    if (const auto* l = sys->child("Level")) {
      r.level = to_int(l->text, -1);
    }
    if (const auto* rid = sys->child("EventRecordID")) {
      r.record_id = util::parse_uint(util::trim(rid->text)).value_or(0);
    }
    if (const auto* t = sys->child("TimeCreated")) {
      if (const auto* st = t->attribute("SystemTime")) {
        r.time_utc_usec = parse_system_time(*st);
      }
    }
    if (const auto* c = sys->child("Channel")) {
      r.channel = std::string(util::trim(c->text));
    }
    if (const auto* c = sys->child("Computer")) {
      r.computer = std::string(util::trim(c->text));
    }
  }
  if (const auto* data = event.child("EventData")) {
    for (const auto& child : data->children) {
      if (child.name == "Data") {
        const auto* n = child.attribute("Name");
        r.data.emplace_back(n != nullptr ? *n : "", std::string(util::trim(child.text)));
      } else if (child.name == "Binary") {
        r.binary = std::string(util::trim(child.text));
      }
    }
  }
  if (const auto* user = event.child("UserData")) {
    collect_leaves(*user, r, 0);
  }
  return r;
}

Expected<std::vector<EventRecord>> parse_event_xml(std::string_view text,
                                                   const std::string& source) {
  if (text.size() > k_max_event_xml_bytes) {
    return make_error(ErrorCode::too_large,
                      source + ": event XML larger than " + std::to_string(k_max_event_xml_bytes)
                          + " bytes");
  }
  // The whole input may be one line (wevtutil prints an event per line, a paste may join them),
  // so the line cap must not cut it.
  const auto decoded = util::decode_all(text, text.size() + 64);
  std::string utf8;
  utf8.reserve(text.size());
  for (const auto& line : decoded.lines) {
    if (&line != &decoded.lines.front()) {
      utf8 += '\n';
    }
    utf8 += line.text;
  }
  auto root = parse_xml_document(utf8);
  if (!root) {
    return make_error(root.error().code, source + ": " + root.error().message);
  }
  std::vector<const XmlElement*> events;
  find_events(*root, events);
  if (events.empty()) {
    return make_error(ErrorCode::parse, source + ": no <Event> element found");
  }
  std::vector<EventRecord> records;
  records.reserve(events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    records.push_back(event_from_element(*events[i], {source, "event " + std::to_string(i + 1)}));
  }
  return records;
}

} // namespace doctor::formats
