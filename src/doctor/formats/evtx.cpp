// SPDX-License-Identifier: MIT
#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/event_xml.hpp>
#include <doctor/formats/evtx.hpp>
#include <doctor/formats/evtx_binxml.hpp>
#include <doctor/util/time.hpp>

#include <cstdint>
#include <utility>

namespace doctor::formats {

namespace {

constexpr std::size_t k_file_header_size = 4096;
constexpr std::size_t k_chunk_size = 65536;
constexpr std::size_t k_chunk_header_size = 512;
constexpr std::size_t k_record_header_size = 24;
constexpr std::size_t k_max_warnings = 100;
constexpr std::string_view k_file_magic{"ElfFile\0", 8};
constexpr std::string_view k_chunk_magic{"ElfChnk\0", 8};
constexpr std::uint32_t k_record_magic = 0x00002A2A;

class Warnings {
public:
  explicit Warnings(std::vector<std::string>& out)
      : m_out(out) {}

  // Adds the count of warnings left out, if any.
  void finish() {
    if (m_dropped > 0) {
      m_out.push_back(std::to_string(m_dropped) + " more warnings not shown");
    }
  }

  void add(std::string w) {
    if (m_out.size() < k_max_warnings) {
      m_out.push_back(std::move(w));
    } else {
      ++m_dropped;
    }
  }

private:
  std::vector<std::string>& m_out;
  std::size_t m_dropped = 0;
};

const XmlElement* find_event(const XmlElement& root) {
  for (const auto& c : root.children) {
    if (c.name == "Event") {
      return &c;
    }
  }
  return nullptr;
}

void read_chunk(std::string_view chunk,
                std::size_t number,
                const std::string& source,
                EvtxRead& out,
                Warnings& warnings) {
  const std::string where = "chunk " + std::to_string(number);
  const ByteReader bytes(chunk);
  // Records lie between the chunk header and the free space; a bad free-space offset means
  // "read to the end of the chunk".
  std::size_t limit = bytes.uint(48, 4);
  if (limit < k_chunk_header_size || limit > chunk.size()) {
    limit = chunk.size();
  }
  evtx_detail::BinXmlReader reader(chunk);
  std::size_t pos = k_chunk_header_size;
  while (limit - pos >= k_record_header_size) {
    if (bytes.uint(pos, 4) != k_record_magic) {
      warnings.add(where + ": no record at offset " + std::to_string(pos)
                   + ", rest of the chunk skipped");
      return;
    }
    const std::size_t size = bytes.uint(pos + 4, 4);
    const std::uint64_t record_id = bytes.uint(pos + 8, 8);
    if (size < k_record_header_size + 4 || size > limit - pos) {
      warnings.add(where + ": record " + std::to_string(record_id) + " has a bad size ("
                   + std::to_string(size) + "), rest of the chunk skipped");
      return;
    }
    const std::string locator = "record " + std::to_string(record_id);
    std::string prefix = where;
    prefix.append(", ").append(locator).append(": ");
    auto root = reader.read(pos + k_record_header_size, size - k_record_header_size - 4);
    const XmlElement* event = root ? find_event(*root) : nullptr;
    if (!root) {
      warnings.add(prefix + root.error().message);
    } else if (event == nullptr) {
      warnings.add(prefix + "no <Event> element");
    } else {
      EventRecord r = event_from_element(*event, {source, locator});
      if (r.record_id == 0) {
        r.record_id = record_id;
      }
      if (!r.time_utc_usec) {
        // The record header's written time (FILETIME) stands in for a missing TimeCreated.
        const std::uint64_t ft = bytes.uint(pos + 16, 8);
        r.time_utc_usec = static_cast<std::int64_t>(ft / 10)
                          - static_cast<std::int64_t>(util::k_filetime_unix_epoch / 10);
      }
      out.records.push_back(std::move(r));
    }
    pos += size;
  }
}

} // namespace

Expected<EvtxRead> parse_evtx(std::string_view bytes, const std::string& source) {
  if (bytes.substr(0, k_file_magic.size()) != k_file_magic) {
    return make_error(ErrorCode::parse, source + ": not an evtx file: no ElfFile signature");
  }
  EvtxRead out;
  Warnings warnings(out.warnings);
  if (bytes.size() <= k_file_header_size) {
    warnings.add("no chunks after the file header");
  }
  std::size_t number = 0;
  for (std::size_t at = k_file_header_size; at < bytes.size(); at += k_chunk_size, ++number) {
    const std::string_view chunk = bytes.substr(at, k_chunk_size);
    const std::string where = "chunk " + std::to_string(number);
    if (chunk.substr(0, k_chunk_magic.size()) != k_chunk_magic) {
      if (chunk.find_first_not_of('\0') != std::string_view::npos) {
        warnings.add(where + ": bad magic, skipped");
      }
      continue;
    }
    if (chunk.size() < k_chunk_size) {
      warnings.add(where + ": truncated to " + std::to_string(chunk.size()) + " bytes");
    }
    if (chunk.size() < k_chunk_header_size) {
      continue;
    }
    read_chunk(chunk, number, source, out, warnings);
  }
  warnings.finish();
  return out;
}

} // namespace doctor::formats
