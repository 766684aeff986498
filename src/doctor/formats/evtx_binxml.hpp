// SPDX-License-Identifier: MIT
// Private to the EVTX reader: expands the Binary XML of one record into an element tree.
//
// Binary XML (libyal's "Windows XML Event Log (EVTX)" document, section "Binary XML") is a token
// stream: elements, attributes and text, plus template instances. A record is usually one
// template instance: a reference to a template definition kept once per chunk, and the typed
// values that fill its substitution slots. Names and template definitions are addressed by
// their offset in the 64 KiB chunk, so every offset here is chunk-relative.
#pragma once

#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/event_xml.hpp>
#include <doctor/util/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace doctor::formats::evtx_detail {

// Reads records of one chunk; caches the chunk's name strings by offset.
class BinXmlReader {
public:
  explicit BinXmlReader(std::string_view chunk)
      : m_chunk(chunk)
      , m_bytes(chunk) {}

  // Expands the Binary XML in [offset, offset + size) of the chunk into the children of a
  // synthetic root. Returns an error naming the chunk offset for a bad token, an offset outside
  // the chunk, nesting deeper than 32 templates/elements or more than 100000 tokens.
  Expected<XmlElement> read(std::size_t offset, std::size_t size);

  struct Value {
    std::uint8_t type = 0;
    std::size_t offset = 0;
    std::size_t size = 0;
  };

private:
  struct Context;

  Expected<std::size_t> content(std::size_t pos,
                                std::size_t end,
                                const Context& ctx,
                                XmlElement& parent,
                                std::vector<std::string>* array,
                                int depth,
                                bool& closed);
  Expected<std::size_t>
  element(std::size_t pos, std::size_t end, const Context& ctx, XmlElement& parent, int depth);
  Expected<std::size_t>
  template_instance(std::size_t pos, std::size_t end, XmlElement& parent, int depth);
  Expected<std::size_t> substitute(std::size_t pos,
                                   std::size_t end,
                                   const Context& ctx,
                                   XmlElement& parent,
                                   std::string* attr_value,
                                   std::vector<std::string>* array,
                                   int depth);
  Expected<std::size_t> text_token(std::size_t pos, std::size_t end, std::string& out);
  Expected<std::size_t> name_ref(std::size_t pos, std::size_t end, std::string& name);
  Expected<std::string> name_at(std::uint32_t offset);
  tl::unexpected<Error> fail(std::size_t pos, const std::string& what) const;

  std::string_view m_chunk;
  ByteReader m_bytes; // bounded little-endian reads of m_chunk
  std::unordered_map<std::uint32_t, std::string> m_names;
  std::size_t m_tokens = 0;
};

// Renders a substitution value of a scalar type the way the event log API does ("0x1a",
// "S-1-5-18", "{GUID}", "2024-07-22T10:11:12.1234567Z"); "" for a type it does not render.
std::string render_value(std::uint8_t type, std::string_view bytes);

// Converts UTF-16LE to UTF-8 (unpaired surrogates become U+FFFD), dropping trailing NULs.
std::string utf16_to_utf8(std::string_view bytes);

} // namespace doctor::formats::evtx_detail
