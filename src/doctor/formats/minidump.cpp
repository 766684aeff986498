// SPDX-License-Identifier: MIT
#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/dump_strings.hpp>
#include <doctor/formats/minidump.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <array>
#include <charconv>

namespace doctor::formats {
namespace {

constexpr std::uint32_t k_header_version = 0xA793; // MINIDUMP_VERSION, low 16 bits
constexpr std::uint64_t k_max_streams = 4096;
constexpr std::uint64_t k_max_modules = 4096;
constexpr std::uint64_t k_module_bytes = 108; // MINIDUMP_MODULE, packed
constexpr std::uint32_t k_max_name_bytes = 64 * 1024;
constexpr std::uint32_t k_decoded_name_bytes = 2048;
constexpr std::uint32_t k_fixed_file_info_signature = 0xFEEF04BD;
constexpr std::size_t k_max_exception_params = 15;

constexpr std::uint32_t k_stream_module_list = 4;
constexpr std::uint32_t k_stream_exception = 6;
constexpr std::uint32_t k_stream_system_info = 7;

// A stream's place in the file (MINIDUMP_LOCATION_DESCRIPTOR).
struct Location {
  std::uint64_t size = 0;
  std::uint64_t rva = 0;
};

// MINIDUMP_STRING: u32 length in bytes, then UTF-16LE text.
std::optional<std::string>
read_string(const ByteReader& v, std::string_view bytes, std::uint64_t at) {
  if (at == 0 || !v.has(at, 4)) {
    return std::nullopt;
  }
  const auto len = static_cast<std::uint32_t>(v.uint(at, 4));
  if (len > k_max_name_bytes || !v.has(at + 4, len)) {
    return std::nullopt;
  }
  // Real paths stay far below the cap; a hostile list of 4096 modules sharing one huge name must
  // not cost gigabytes of decoding.
  return detail::printable_utf16(bytes.substr(at + 4, std::min(len, k_decoded_name_bytes)));
}

// VS_FIXEDFILEINFO: dwFileVersionMS/LS at +8/+12 as "a.b.c.d"; "" without the signature.
std::string fixed_version(const ByteReader& v, std::uint64_t at) {
  if (v.uint(at, 4) != k_fixed_file_info_signature) {
    return "";
  }
  const std::uint64_t ms = v.uint(at + 8, 4);
  const std::uint64_t ls = v.uint(at + 12, 4);
  return std::to_string(ms >> 16U) + "." + std::to_string(ms & 0xFFFFU) + "."
         + std::to_string(ls >> 16U) + "." + std::to_string(ls & 0xFFFFU);
}

void read_exception(const ByteReader& v, Location loc, MiniDump& dump) {
  if (loc.size < 0x28) {
    dump.warnings.push_back("exception stream too small (" + std::to_string(loc.size) + " bytes)");
    return;
  }
  dump.thread_id = static_cast<std::uint32_t>(v.uint(loc.rva, 4));
  dump.exception_code = static_cast<std::uint32_t>(v.uint(loc.rva + 0x08, 4));
  dump.exception_address = v.uint(loc.rva + 0x18, 8);
  const std::uint64_t declared = v.uint(loc.rva + 0x20, 4);
  const std::uint64_t fit = (loc.size - 0x28) / 8;
  const std::uint64_t n = std::min({declared, fit, std::uint64_t{k_max_exception_params}});
  if (n < declared) {
    dump.warnings.push_back("exception record declares " + std::to_string(declared)
                            + " parameters, read " + std::to_string(n));
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    dump.exception_info.push_back(v.uint(loc.rva + 0x28 + 8 * i, 8));
  }
}

void read_system_info(const ByteReader& v, Location loc, MiniDump& dump) {
  if (loc.size < 0x18) {
    dump.warnings.push_back("system info stream too small (" + std::to_string(loc.size)
                            + " bytes)");
    return;
  }
  dump.arch = static_cast<std::uint16_t>(v.uint(loc.rva, 2));
  dump.os_major = static_cast<std::uint32_t>(v.uint(loc.rva + 0x08, 4));
  dump.os_minor = static_cast<std::uint32_t>(v.uint(loc.rva + 0x0C, 4));
  dump.os_build = static_cast<std::uint32_t>(v.uint(loc.rva + 0x10, 4));
  dump.platform_id = static_cast<std::uint32_t>(v.uint(loc.rva + 0x14, 4));
}

void read_modules(const ByteReader& v, std::string_view bytes, Location loc, MiniDump& dump) {
  if (loc.size < 4) {
    dump.warnings.emplace_back("module list stream too small");
    return;
  }
  const std::uint64_t declared = v.uint(loc.rva, 4);
  // Some writers pad the count to 8 bytes; the stream size tells.
  const std::uint64_t first = loc.size == 8 + declared * k_module_bytes ? 8 : 4;
  const std::uint64_t fit = (loc.size - std::min(loc.size, first)) / k_module_bytes;
  const std::uint64_t n = std::min({declared, fit, k_max_modules});
  if (n < declared) {
    dump.warnings.push_back("module list truncated: " + std::to_string(declared)
                            + " modules declared, " + std::to_string(n) + " read");
  }
  std::size_t unnamed = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t at = loc.rva + first + i * k_module_bytes;
    MiniDumpModule m;
    m.base = v.uint(at, 8);
    m.size = static_cast<std::uint32_t>(v.uint(at + 0x08, 4));
    m.timestamp = static_cast<std::uint32_t>(v.uint(at + 0x10, 4));
    if (auto path = read_string(v, bytes, v.uint(at + 0x14, 4))) {
      m.path = std::move(*path);
      m.name = detail::dump_file_name(m.path);
    } else {
      ++unnamed;
    }
    m.version = fixed_version(v, at + 0x18);
    dump.modules.push_back(std::move(m));
  }
  if (unnamed > 0) {
    dump.warnings.push_back(std::to_string(unnamed) + " module names unreadable");
  }
}

} // namespace

Expected<MiniDump> parse_minidump(std::string_view bytes) {
  const std::string_view sig = bytes.substr(0, 8);
  if (sig == "PAGEDU64" || sig == "PAGEDUMP") {
    return make_error(ErrorCode::parse,
                      "a kernel dump (" + std::string(sig) + "), not a user-mode minidump");
  }
  if (bytes.substr(0, 4) != "MDMP") {
    return make_error(ErrorCode::parse, "not a user-mode minidump: no MDMP signature");
  }
  if (bytes.size() < 32) {
    return make_error(ErrorCode::parse,
                      "truncated minidump: " + std::to_string(bytes.size())
                          + " bytes, the header needs 32");
  }
  const ByteReader v(bytes);
  MiniDump dump;
  if ((v.uint(4, 4) & 0xFFFFU) != k_header_version) {
    dump.warnings.push_back("unexpected minidump version " + util::hex(v.uint(4, 4)));
  }
  const std::uint64_t stamp = v.uint(0x14, 4);
  if (stamp != 0) {
    dump.time_utc_usec = static_cast<std::int64_t>(stamp) * 1000000;
  }
  std::uint64_t count = v.uint(8, 4);
  const std::uint64_t dir = v.uint(0x0C, 4);
  if (count > 0 && !v.has(dir, 12)) {
    return make_error(ErrorCode::parse,
                      "truncated minidump: stream directory at " + util::hex(dir)
                          + " outside the file");
  }
  if (count == 0) {
    dump.warnings.emplace_back("no streams");
  }
  if (count > k_max_streams) {
    dump.warnings.push_back(std::to_string(count) + " streams over the cap: read the first "
                            + std::to_string(k_max_streams));
    count = k_max_streams;
  }
  std::optional<Location> modules;
  std::optional<Location> exception;
  std::optional<Location> system_info;
  std::size_t outside = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = dir + 12 * i;
    if (!v.has(at, 12)) {
      dump.warnings.push_back("stream directory truncated: " + std::to_string(i) + " of "
                              + std::to_string(count) + " entries inside the file");
      break;
    }
    const std::uint64_t type = v.uint(at, 4);
    const Location loc{v.uint(at + 4, 4), v.uint(at + 8, 4)};
    if (!v.has(loc.rva, loc.size)) {
      ++outside;
      continue;
    }
    std::optional<Location>* slot = type == k_stream_module_list   ? &modules
                                    : type == k_stream_exception   ? &exception
                                    : type == k_stream_system_info ? &system_info
                                                                   : nullptr;
    if (slot != nullptr && !slot->has_value()) {
      *slot = loc;
    }
  }
  if (outside > 0) {
    dump.warnings.push_back(std::to_string(outside) + " streams lie outside the file");
  }
  if (system_info) {
    read_system_info(v, *system_info, dump);
  }
  if (exception) {
    read_exception(v, *exception, dump);
  }
  if (modules) {
    read_modules(v, bytes, *modules, dump);
  }
  if (dump.exception_code) {
    for (std::size_t i = 0; i < dump.modules.size(); ++i) {
      const MiniDumpModule& m = dump.modules[i];
      if (dump.exception_address >= m.base && dump.exception_address - m.base < m.size) {
        dump.faulting_module = i;
        break;
      }
    }
  }
  return dump;
}

std::string processor_arch_name(std::uint16_t arch) {
  switch (arch) {
  case 0:
    return "x86";
  case 5:
    return "arm";
  case 9:
    return "x64";
  case 12:
    return "arm64";
  default:
    return "arch " + std::to_string(arch);
  }
}

} // namespace doctor::formats
