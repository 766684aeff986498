// SPDX-License-Identifier: MIT
#include <doctor/formats/evtx_binxml.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/time.hpp>

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace doctor::formats::evtx_detail {

namespace {

constexpr int k_max_binxml_depth = 32;
constexpr std::size_t k_max_tokens = 100'000;
constexpr std::uint32_t k_max_substitutions = 4096;
constexpr std::size_t k_max_array_items = 1024;

// Token numbers; 0x40 on 0x01/0x05/0x06 marks "has attributes" / "more data follows".
constexpr std::uint8_t k_end_of_stream = 0x00;
constexpr std::uint8_t k_open_start = 0x01;
constexpr std::uint8_t k_close_start = 0x02;
constexpr std::uint8_t k_close_empty = 0x03;
constexpr std::uint8_t k_end_element = 0x04;
constexpr std::uint8_t k_value = 0x05;
constexpr std::uint8_t k_attribute = 0x06;
constexpr std::uint8_t k_cdata = 0x07;
constexpr std::uint8_t k_char_ref = 0x08;
constexpr std::uint8_t k_entity_ref = 0x09;
constexpr std::uint8_t k_pi_target = 0x0A;
constexpr std::uint8_t k_pi_data = 0x0B;
constexpr std::uint8_t k_template_instance = 0x0C;
constexpr std::uint8_t k_normal_substitution = 0x0D;
constexpr std::uint8_t k_optional_substitution = 0x0E;
constexpr std::uint8_t k_fragment_header = 0x0F;
constexpr std::uint8_t k_flag = 0x40;

// Value types (the substitution descriptors' "value type").
constexpr std::uint8_t k_type_string = 0x01;
constexpr std::uint8_t k_type_ansi = 0x02;
constexpr std::uint8_t k_type_binxml = 0x21;
constexpr std::uint8_t k_type_array = 0x80;

std::string filetime_text(std::uint64_t ft) {
  // Seconds relative to 1970 (negative before), then the 100 ns remainder as 7 digits.
  const auto ticks = static_cast<std::int64_t>(ft / 10'000'000ULL)
                     - static_cast<std::int64_t>(util::k_filetime_unix_epoch / 10'000'000ULL);
  std::string s = format_utc_usec(ticks * 1'000'000);
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%07lluZ", static_cast<unsigned long long>(ft % 10'000'000ULL));
  return s.substr(0, s.size() - 8) + frac;
}

std::string systemtime_text(std::string_view b) {
  const ByteReader v(b);
  char buf[48];
  std::snprintf(buf,
                sizeof buf,
                "%04u-%02u-%02uT%02u:%02u:%02u.%03u0000Z",
                static_cast<unsigned>(v.uint(0, 2)),
                static_cast<unsigned>(v.uint(2, 2)),
                static_cast<unsigned>(v.uint(6, 2)),
                static_cast<unsigned>(v.uint(8, 2)),
                static_cast<unsigned>(v.uint(10, 2)),
                static_cast<unsigned>(v.uint(12, 2)),
                static_cast<unsigned>(v.uint(14, 2)));
  return buf;
}

std::string guid_text(std::string_view b) {
  const ByteReader v(b);
  char buf[48];
  std::snprintf(buf,
                sizeof buf,
                "{%08llx-%04llx-%04llx-%02x%02x-%02x%02x%02x%02x%02x%02x}",
                static_cast<unsigned long long>(v.uint(0, 4)),
                static_cast<unsigned long long>(v.uint(4, 2)),
                static_cast<unsigned long long>(v.uint(6, 2)),
                static_cast<unsigned char>(b[8]),
                static_cast<unsigned char>(b[9]),
                static_cast<unsigned char>(b[10]),
                static_cast<unsigned char>(b[11]),
                static_cast<unsigned char>(b[12]),
                static_cast<unsigned char>(b[13]),
                static_cast<unsigned char>(b[14]),
                static_cast<unsigned char>(b[15]));
  return buf;
}

// The size of the SID at the start of `b`, or 0 if it does not fit.
std::size_t sid_size(std::string_view b) {
  if (b.size() < 8) {
    return 0;
  }
  const std::size_t n = 8 + 4 * static_cast<std::size_t>(static_cast<unsigned char>(b[1]));
  return n <= b.size() ? n : 0;
}

std::string sid_text(std::string_view b) {
  const std::size_t n = sid_size(b);
  if (n == 0) {
    return "";
  }
  const ByteReader v(b);
  // The identifier authority is a 48-bit big-endian number, the sub-authorities little-endian.
  const std::uint64_t authority = ByteReader(b, ByteOrder::big).uint(2, 6);
  std::string s = "S-" + std::to_string(static_cast<unsigned char>(b[0])) + "-"
                  + (authority >> 32U != 0 ? util::hex(authority) : std::to_string(authority));
  for (std::size_t at = 8; at + 4 <= n; at += 4) {
    s += "-" + std::to_string(v.uint(at, 4));
  }
  return s;
}

std::string latin1_to_utf8(std::string_view b) {
  std::string out;
  for (const char c : b) {
    if (c == '\0') {
      break;
    }
    util::append_utf8(out, static_cast<unsigned char>(c));
  }
  return out;
}

// The width of one item of a fixed-size array type (the base type, without 0x80); 0 if variable.
std::size_t item_width(std::uint8_t base) {
  switch (base) {
  case 0x03:
  case 0x04:
    return 1;
  case 0x05:
  case 0x06:
    return 2;
  case 0x07:
  case 0x08:
  case 0x0B:
  case 0x0D:
  case 0x14:
    return 4;
  case 0x09:
  case 0x0A:
  case 0x0C:
  case 0x10:
  case 0x11:
  case 0x15:
    return 8;
  case 0x0F:
  case 0x12:
    return 16;
  default:
    return 0;
  }
}

std::vector<std::string> render_array(std::uint8_t base, std::string_view b) {
  std::vector<std::string> items;
  if (base == k_type_string) {
    std::size_t start = 0;
    for (std::size_t i = 0; i + 1 < b.size() && items.size() < k_max_array_items; i += 2) {
      if (b[i] == '\0' && b[i + 1] == '\0') {
        items.push_back(utf16_to_utf8(b.substr(start, i - start)));
        start = i + 2;
      }
    }
    if (start + 1 < b.size() && items.size() < k_max_array_items) {
      items.push_back(utf16_to_utf8(b.substr(start)));
    }
  } else if (base == k_type_ansi) {
    std::size_t start = 0;
    while (start < b.size() && items.size() < k_max_array_items) {
      auto nul = b.find('\0', start);
      nul = nul == std::string_view::npos ? b.size() : nul;
      items.push_back(latin1_to_utf8(b.substr(start, nul - start)));
      start = nul + 1;
    }
  } else if (base == 0x13) {
    while (!b.empty() && items.size() < k_max_array_items) {
      const std::size_t n = sid_size(b);
      if (n == 0) {
        break;
      }
      items.push_back(sid_text(b.substr(0, n)));
      b.remove_prefix(n);
    }
  } else if (const std::size_t w = item_width(base); w != 0) {
    for (std::size_t at = 0; at + w <= b.size() && items.size() < k_max_array_items; at += w) {
      items.push_back(render_value(base, b.substr(at, w)));
    }
  } else {
    items.push_back(render_value(0x0E, b));
  }
  return items;
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) {
    s += s.empty() ? i : ", " + i;
  }
  return s;
}

} // namespace

struct BinXmlReader::Context {
  const std::vector<Value>* values = nullptr;
  bool dependency_id = true; // element headers carry a 2-byte dependency id (in templates)
};

// A UTF-16 string value ends at its first NUL.
std::string utf16_to_utf8(std::string_view bytes) {
  std::size_t n = 0;
  while (n + 1 < bytes.size() && (bytes[n] != '\0' || bytes[n + 1] != '\0')) {
    n += 2;
  }
  return util::utf16le_to_utf8(bytes.substr(0, n));
}

std::string render_value(std::uint8_t type, std::string_view b) {
  const ByteReader v(b);
  const std::size_t w = item_width(type);
  if (w != 0 && b.size() < w) {
    return "";
  }
  switch (type) {
  case k_type_string:
    return utf16_to_utf8(b);
  case k_type_ansi:
    return latin1_to_utf8(b);
  case 0x03:
    return std::to_string(static_cast<std::int8_t>(v.uint(0, 1)));
  case 0x04:
    return std::to_string(v.uint(0, 1));
  case 0x05:
    return std::to_string(static_cast<std::int16_t>(v.uint(0, 2)));
  case 0x06:
    return std::to_string(v.uint(0, 2));
  case 0x07:
    return std::to_string(static_cast<std::int32_t>(v.uint(0, 4)));
  case 0x08:
    return std::to_string(v.uint(0, 4));
  case 0x09:
    return std::to_string(static_cast<std::int64_t>(v.uint(0, 8)));
  case 0x0A:
    return std::to_string(v.uint(0, 8));
  case 0x0B: {
    float f = 0;
    std::memcpy(&f, b.data(), sizeof f);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(f));
    return buf;
  }
  case 0x0C: {
    double d = 0;
    std::memcpy(&d, b.data(), sizeof d);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
  }
  case 0x0D:
    return v.uint(0, 4) != 0 ? "true" : "false";
  case 0x0E: {
    static constexpr char k_digits[] = "0123456789ABCDEF";
    std::string s;
    for (const char c : b) {
      s += k_digits[static_cast<unsigned char>(c) >> 4U];
      s += k_digits[static_cast<unsigned char>(c) & 0xFU];
    }
    return s;
  }
  case 0x0F:
    return guid_text(b);
  case 0x10:
    return util::hex(v.uint(0, b.size() >= 8 ? 8 : 4));
  case 0x11:
    return filetime_text(v.uint(0, 8));
  case 0x12:
    return systemtime_text(b);
  case 0x13:
    return sid_text(b);
  case 0x14:
    return util::hex(v.uint(0, 4));
  case 0x15:
    return util::hex(v.uint(0, 8));
  default:
    return "";
  }
}

tl::unexpected<Error> BinXmlReader::fail(std::size_t pos, const std::string& what) const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "offset 0x%zx: ", pos);
  return make_error(ErrorCode::parse, buf + what);
}

Expected<std::string> BinXmlReader::name_at(std::uint32_t offset) {
  if (const auto it = m_names.find(offset); it != m_names.end()) {
    return it->second;
  }
  if (offset > m_chunk.size() || m_chunk.size() - offset < 8) {
    return fail(offset, "name outside the chunk");
  }
  const std::size_t chars = m_bytes.uint(offset + 6, 2);
  if (chars == 0 || m_chunk.size() - offset - 8 < chars * 2) {
    return fail(offset, "bad name string");
  }
  std::string name = utf16_to_utf8(m_chunk.substr(offset + 8, chars * 2));
  m_names.emplace(offset, name);
  return name;
}

// A name reference is a chunk offset; when it points just past itself the name string follows
// inline (its first use in the chunk) and is skipped.
Expected<std::size_t> BinXmlReader::name_ref(std::size_t pos, std::size_t end, std::string& name) {
  if (end - pos < 4) {
    return fail(pos, "truncated name reference");
  }
  const auto offset = static_cast<std::uint32_t>(m_bytes.uint(pos, 4));
  pos += 4;
  auto n = name_at(offset);
  if (!n) {
    return tl::unexpected(n.error());
  }
  name = std::move(*n);
  if (offset == pos) {
    const std::size_t size = 8 + 2 * m_bytes.uint(offset + 6, 2) + 2;
    if (end - pos < size) {
      return fail(pos, "truncated inline name");
    }
    pos += size;
  }
  return pos;
}

Expected<XmlElement> BinXmlReader::read(std::size_t offset, std::size_t size) {
  if (offset > m_chunk.size() || m_chunk.size() - offset < size) {
    return fail(offset, "record data outside the chunk");
  }
  m_tokens = 0;
  XmlElement root;
  bool closed = false;
  // Elements written directly in a record (not in a template) have no dependency id.
  const Context ctx{nullptr, false};
  auto r = content(offset, offset + size, ctx, root, nullptr, 0, closed);
  if (!r) {
    return tl::unexpected(r.error());
  }
  return root;
}

// Reads one token that produces text (value, CDATA, character or entity reference) into `out`;
// processing instructions are read and dropped.
Expected<std::size_t> BinXmlReader::text_token(std::size_t pos, std::size_t end, std::string& out) {
  const auto base = static_cast<std::uint8_t>(m_chunk[pos] & ~k_flag);
  if (base == k_char_ref) {
    if (end - pos < 3) {
      return fail(pos, "truncated character reference");
    }
    util::append_utf8(out, static_cast<std::uint32_t>(m_bytes.uint(pos + 1, 2)));
    return pos + 3;
  }
  if (base == k_entity_ref || base == k_pi_target) {
    std::string name;
    auto next = name_ref(pos + 1, end, name);
    if (next && base == k_entity_ref) {
      out += name == "lt"     ? "<"
             : name == "gt"   ? ">"
             : name == "amp"  ? "&"
             : name == "quot" ? "\""
             : name == "apos" ? "'"
                              : "";
    }
    return next;
  }
  // Value: token, type (always a string here), u16 length; CDATA and PI data: token, u16 length.
  const std::size_t head = base == k_value ? 4 : 3;
  if (end - pos < head || (base == k_value && m_chunk[pos + 1] != k_type_string)) {
    return fail(pos, "bad value token");
  }
  const std::size_t bytes = 2 * m_bytes.uint(pos + head - 2, 2);
  if (end - pos - head < bytes) {
    return fail(pos, "truncated text");
  }
  if (base != k_pi_data) {
    out += utf16_to_utf8(m_chunk.substr(pos + head, bytes));
  }
  return pos + head + bytes;
}

Expected<std::size_t> BinXmlReader::content(std::size_t pos,
                                            std::size_t end,
                                            const Context& ctx,
                                            XmlElement& parent,
                                            std::vector<std::string>* array,
                                            int depth,
                                            bool& closed) {
  closed = false;
  while (pos < end) {
    if (++m_tokens > k_max_tokens) {
      return fail(pos, "more than " + std::to_string(k_max_tokens) + " tokens");
    }
    const auto token = static_cast<std::uint8_t>(m_chunk[pos]);
    const auto base = static_cast<std::uint8_t>(token & ~k_flag);
    Expected<std::size_t> next = pos;
    switch (base) {
    case k_end_of_stream:
      return pos + 1;
    case k_end_element:
      closed = true;
      return pos + 1;
    case k_fragment_header:
      next = end - pos >= 4 ? Expected<std::size_t>(pos + 4) : fail(pos, "truncated header");
      break;
    case k_open_start:
      next = element(pos, end, ctx, parent, depth + 1);
      break;
    case k_value:
    case k_cdata:
    case k_pi_data:
    case k_char_ref:
    case k_entity_ref:
    case k_pi_target:
      next = text_token(pos, end, parent.text);
      break;
    case k_template_instance:
      next = template_instance(pos, end, parent, depth + 1);
      break;
    case k_normal_substitution:
    case k_optional_substitution:
      next = substitute(pos, end, ctx, parent, nullptr, array, depth);
      break;
    default:
      return fail(pos, "unexpected token 0x" + util::hex(token).substr(2));
    }
    if (!next) {
      return next;
    }
    pos = *next;
  }
  return pos;
}

Expected<std::size_t> BinXmlReader::element(
    std::size_t pos, std::size_t end, const Context& ctx, XmlElement& parent, int depth) {
  if (depth > k_max_binxml_depth) {
    return fail(pos, "elements nested deeper than " + std::to_string(k_max_binxml_depth));
  }
  const bool has_attributes = (static_cast<std::uint8_t>(m_chunk[pos]) & k_flag) != 0;
  // Template definitions put a 2-byte dependency id before the data size; elements written
  // directly in a record or in a nested fragment do not (as omerbenamram/evtx reads them). Take the
  // expected layout, and the other one if its name offset is implausible: names are defined
  // before, or right at, their first use.
  std::size_t after = 0;
  for (const bool with_id : {ctx.dependency_id, !ctx.dependency_id}) {
    const std::size_t head = 1 + (with_id ? 2 : 0) + 4;
    if (end - pos < head + 4) {
      continue;
    }
    const auto offset = m_bytes.uint(pos + head, 4);
    if (offset <= pos + head + 4 && name_at(static_cast<std::uint32_t>(offset))) {
      after = pos + head;
      break;
    }
  }
  if (after == 0) {
    return fail(pos, "bad element header");
  }
  XmlElement el;
  auto next = name_ref(after, end, el.name);
  if (!next) {
    return next;
  }
  pos = *next;
  if (has_attributes) {
    if (end - pos < 4) {
      return fail(pos, "truncated attribute list");
    }
    pos += 4;
  }
  std::vector<std::string> array;
  while (true) {
    if (pos >= end) {
      return fail(pos, "element <" + el.name + "> not closed");
    }
    const auto token = static_cast<std::uint8_t>(m_chunk[pos] & ~k_flag);
    if (token == k_attribute) {
      std::pair<std::string, std::string> attr;
      next = name_ref(pos + 1, end, attr.first);
      if (!next) {
        return next;
      }
      pos = *next;
      while (pos < end) {
        const auto t = static_cast<std::uint8_t>(m_chunk[pos] & ~k_flag);
        if (t == k_normal_substitution || t == k_optional_substitution) {
          next = substitute(pos, end, ctx, parent, &attr.second, nullptr, depth);
        } else if (t == k_value || t == k_char_ref || t == k_entity_ref) {
          next = text_token(pos, end, attr.second);
        } else {
          break;
        }
        if (!next) {
          return next;
        }
        pos = *next;
      }
      el.attributes.push_back(std::move(attr));
    } else if (token == k_close_start) {
      bool closed = false;
      next = content(pos + 1, end, ctx, el, &array, depth, closed);
      if (!next) {
        return next;
      }
      if (!closed) {
        return fail(*next, "element <" + el.name + "> not closed");
      }
      pos = *next;
      break;
    } else if (token == k_close_empty) {
      ++pos;
      break;
    } else {
      return fail(pos, "unexpected token in <" + el.name + ">");
    }
  }
  if (array.empty()) {
    parent.children.push_back(std::move(el));
  } else {
    // An array substitution repeats its element once per item, as the event log renders it.
    for (auto& item : array) {
      XmlElement copy = el;
      copy.text = std::move(item);
      parent.children.push_back(std::move(copy));
    }
  }
  return pos;
}

Expected<std::size_t>
BinXmlReader::template_instance(std::size_t pos, std::size_t end, XmlElement& parent, int depth) {
  if (depth > k_max_binxml_depth) {
    return fail(pos, "templates nested deeper than " + std::to_string(k_max_binxml_depth));
  }
  if (end - pos < 10) {
    return fail(pos, "truncated template instance");
  }
  const auto definition = static_cast<std::size_t>(m_bytes.uint(pos + 6, 4));
  std::size_t cursor = pos + 10;
  if (definition > m_chunk.size() || m_chunk.size() - definition < 24) {
    return fail(pos, "template definition outside the chunk");
  }
  const std::size_t body_size = m_bytes.uint(definition + 20, 4);
  if (definition == cursor) {
    // The definition is inline (first use in the chunk): skip its header and body.
    if (end - cursor < 24 || end - cursor - 24 < body_size) {
      return fail(pos, "truncated template definition");
    }
    cursor += 24 + body_size;
  }
  if (end - cursor < 4) {
    return fail(cursor, "truncated substitution count");
  }
  const auto count = static_cast<std::uint32_t>(m_bytes.uint(cursor, 4));
  cursor += 4;
  if (count > k_max_substitutions || end - cursor < std::size_t{count} * 4) {
    return fail(cursor, "bad substitution count " + std::to_string(count));
  }
  std::vector<Value> values(count);
  std::size_t data = cursor + std::size_t{count} * 4;
  for (std::size_t i = 0; i < count; ++i) {
    values[i].size = m_bytes.uint(cursor + 4 * i, 2);
    values[i].type = static_cast<std::uint8_t>(m_chunk[cursor + 4 * i + 2]);
    values[i].offset = data;
    if (end - data < values[i].size) {
      return fail(data, "substitution value " + std::to_string(i) + " past the record");
    }
    data += values[i].size;
  }
  const std::size_t body = definition + 24;
  const std::size_t body_end =
      m_chunk.size() - body < body_size ? m_chunk.size() : body + body_size;
  const Context ctx{&values, true};
  bool closed = false;
  auto r = content(body, body_end, ctx, parent, nullptr, depth, closed);
  if (!r) {
    return r;
  }
  return data;
}

Expected<std::size_t> BinXmlReader::substitute(std::size_t pos,
                                               std::size_t end,
                                               const Context& ctx,
                                               XmlElement& parent,
                                               std::string* attr_value,
                                               std::vector<std::string>* array,
                                               int depth) {
  if (end - pos < 4) {
    return fail(pos, "truncated substitution");
  }
  const std::size_t index = m_bytes.uint(pos + 1, 2);
  pos += 4;
  if (ctx.values == nullptr || index >= ctx.values->size()) {
    return pos;
  }
  const Value& v = (*ctx.values)[index];
  if (v.type == 0 || v.size == 0) {
    return pos;
  }
  const std::string_view bytes = m_chunk.substr(v.offset, v.size);
  if (v.type == k_type_binxml) {
    if (attr_value == nullptr) {
      // A nested fragment (UserData, some EventData): its elements become children here.
      bool closed = false;
      const Context nested{nullptr, false};
      auto r = content(v.offset, v.offset + v.size, nested, parent, nullptr, depth + 1, closed);
      if (!r) {
        return r;
      }
    }
    return pos;
  }
  if ((v.type & k_type_array) != 0) {
    auto items = render_array(static_cast<std::uint8_t>(v.type & ~k_type_array), bytes);
    if (attr_value != nullptr) {
      *attr_value += join(items);
    } else if (array != nullptr) {
      *array = std::move(items);
    } else {
      parent.text += join(items);
    }
    return pos;
  }
  (attr_value != nullptr ? *attr_value : parent.text) += render_value(v.type, bytes);
  return pos;
}

} // namespace doctor::formats::evtx_detail
