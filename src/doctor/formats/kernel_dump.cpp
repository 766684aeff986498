// SPDX-License-Identifier: MIT
#include <doctor/formats/byte_reader.hpp>
#include <doctor/formats/dump_strings.hpp>
#include <doctor/formats/kernel_dump.hpp>
#include <doctor/formats/pe.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/time.hpp>

#include <algorithm>
#include <charconv>

namespace doctor::formats {
namespace {

// Unused header bytes are pre-filled with "PAGE"; a field holding the fill is not set.
constexpr std::uint32_t k_fill32 = 0x45474150;
constexpr std::uint64_t k_fill64 = 0x4547415045474150;
constexpr std::uint32_t k_dump_type_triage = 4;
constexpr std::uint64_t k_triage = 0x2000; // TRIAGE_DUMP64, right after the 64-bit header
constexpr std::size_t k_max_drivers = 4096;
constexpr std::uint32_t k_max_name_wchars = 1024;
constexpr std::uint64_t k_max_stack_bytes = 0x10000; // real stacks are <= 16 KiB
constexpr std::uint64_t k_entry_bytes = 0x90;        // Win10/11 DUMP_DRIVER_ENTRY64, x64 and ARM64
constexpr std::uint64_t k_max_entry_bytes = 0x200;
constexpr std::uint32_t k_triage_overflowed = 0x100;

// Where DUMP_HEADER64 and DUMP_HEADER32 keep the fields read here.
struct Layout {
  std::uint64_t header_size;
  std::uint64_t machine;
  std::uint64_t processors;
  std::uint64_t code;
  std::uint64_t params;
  unsigned param_width;
  std::uint64_t context;
  std::uint64_t dump_type;
  std::uint64_t system_time;
  std::uint64_t uptime;
};
constexpr Layout k_layout64{0x2000, 0x30, 0x34, 0x38, 0x40, 8, 0x348, 0xF98, 0xFA8, 0x1030};
constexpr Layout k_layout32{0x1000, 0x20, 0x24, 0x28, 0x2C, 4, 0x320, 0xF88, 0xFC0, 0xFB8};

bool is_kernel_name(std::string_view name) {
  const std::string n = util::to_lower(name);
  return n == "ntoskrnl.exe" || n == "ntkrnlmp.exe" || n == "ntkrnlpa.exe" || n == "ntkrpamp.exe"
         || n == "ntkrla57.exe";
}

// The string pool [begin, end) of a triage dump: DUMP_STRING records (u32 length in WCHARs,
// UTF-16LE text, NUL). Returns nullopt when the record does not lie inside the pool.
std::optional<std::string> pool_string(const ByteReader& v,
                                       std::string_view bytes,
                                       std::uint64_t at,
                                       std::uint64_t begin,
                                       std::uint64_t end) {
  if (at < begin || at >= end || end - at < 4 || !v.has(at, 4)) {
    return std::nullopt;
  }
  const auto wchars = static_cast<std::uint32_t>(v.uint(at, 4));
  if (wchars > k_max_name_wchars || 2ULL * wchars > end - at - 4 || !v.has(at + 4, 2ULL * wchars)) {
    return std::nullopt;
  }
  return detail::printable_utf16(bytes.substr(at + 4, 2ULL * wchars));
}

// Entry stride: the string pool normally follows the driver list directly, which gives the
// stride of this build's DUMP_DRIVER_ENTRY64 (0x90 on 19041/22000, larger on older builds).
std::uint64_t driver_stride(std::uint64_t list, std::uint64_t count, std::uint64_t pool) {
  if (pool > list && (pool - list) % count == 0) {
    const std::uint64_t stride = (pool - list) / count;
    if (stride >= k_entry_bytes && stride <= k_max_entry_bytes && stride % 8 == 0) {
      return stride;
    }
  }
  return k_entry_bytes;
}

void read_drivers(const ByteReader& v, std::string_view bytes, KernelDump& dump) {
  const std::uint64_t list = v.uint(k_triage + 0x30, 4);
  std::uint64_t count = v.uint(k_triage + 0x34, 4);
  const std::uint64_t pool = v.uint(k_triage + 0x38, 4);
  const std::uint64_t pool_end = std::min(pool + v.uint(k_triage + 0x3C, 4), v.size());
  if (count == 0 || count == k_fill32) {
    return;
  }
  if (count > k_max_drivers) {
    dump.warnings.push_back("driver count " + std::to_string(count) + " over the cap of "
                            + std::to_string(k_max_drivers) + ": read the first "
                            + std::to_string(k_max_drivers));
    count = k_max_drivers;
  }
  const std::uint64_t stride = driver_stride(list, count, pool);
  std::size_t unnamed = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t entry = list + i * stride;
    if (!v.has(entry, k_entry_bytes)) {
      dump.warnings.push_back("driver list truncated: " + std::to_string(i) + " of "
                              + std::to_string(count) + " entries inside the file");
      break;
    }
    DumpModule m;
    if (auto path = pool_string(v, bytes, v.uint(entry, 4), pool, pool_end)) {
      m.path = std::move(*path);
      m.name = detail::dump_file_name(m.path);
    } else {
      ++unnamed;
    }
    m.base = v.uint(entry + 0x38, 8);
    m.size = static_cast<std::uint32_t>(v.uint(entry + 0x48, 4));
    const auto stamp = static_cast<std::uint32_t>(v.uint(entry + 0x88, 4));
    m.timestamp = stamp == k_fill32 ? 0 : stamp;
    dump.modules.push_back(std::move(m));
  }
  if (unnamed > 0) {
    dump.warnings.push_back(std::to_string(unnamed)
                            + " driver names outside the string pool or unreadable");
  }
  if (!dump.modules.empty() && !dump.modules[0].name.empty()
      && !is_kernel_name(dump.modules[0].name)) {
    dump.warnings.push_back("driver entry 0 is " + dump.modules[0].name + ", not the kernel");
  }
  const std::uint64_t broken = v.uint(k_triage + 0x40, 4);
  if (broken != 0 && broken != k_fill32) {
    if (broken >= list && (broken - list) % stride == 0
        && (broken - list) / stride < dump.modules.size()) {
      dump.broken_driver = static_cast<std::size_t>((broken - list) / stride);
    } else {
      dump.warnings.push_back("broken driver offset " + util::hex(broken)
                              + " is not a driver entry");
    }
  }
}

// Stack scan: every aligned u64 of the saved stack that falls inside a module other than the
// kernel and hal.dll is a candidate return address; modules are kept in first-seen order.
void scan_stack(const ByteReader& v, KernelDump& dump) {
  const std::uint64_t at = v.uint(k_triage + 0x28, 4);
  std::uint64_t size = v.uint(k_triage + 0x2C, 4);
  if (size == 0 || at == 0 || at == k_fill32 || size == k_fill32 || dump.modules.empty()) {
    return;
  }
  if (size > k_max_stack_bytes || !v.has(at, size)) {
    dump.warnings.push_back("saved stack (" + std::to_string(size) + " bytes at " + util::hex(at)
                            + ") not inside the file: scanned what is");
    size = std::min({size, k_max_stack_bytes, at < v.size() ? v.size() - at : 0});
  }
  for (std::uint64_t off = 0; off + 8 <= size; off += 8) {
    const std::uint64_t word = v.uint(at + off, 8);
    for (std::size_t i = 1; i < dump.modules.size(); ++i) {
      const DumpModule& m = dump.modules[i];
      if (word < m.base || word - m.base >= m.size) {
        continue;
      }
      if (util::to_lower(m.name) != "hal.dll"
          && std::find(dump.stack_modules.begin(), dump.stack_modules.end(), i)
                 == dump.stack_modules.end()) {
        dump.stack_modules.push_back(i);
        dump.stack_addresses.push_back(word);
      }
      break;
    }
  }
}

void read_triage(const ByteReader& v, std::string_view bytes, KernelDump& dump) {
  if (dump.bits != 64) {
    dump.warnings.emplace_back(
        "32-bit triage body not read (its driver list layout is unverified)");
    return;
  }
  if (!v.has(k_triage, 0x80)) {
    dump.warnings.emplace_back("triage header truncated: no driver list");
    return;
  }
  const std::uint64_t valid = v.uint(k_triage + 0x08, 4);
  if (!v.has(valid, 4) || bytes.substr(valid, 4) != "TRGD") {
    dump.warnings.emplace_back("triage validity marker TRGD missing: the dump may be incomplete");
  }
  const auto options = static_cast<std::uint32_t>(v.uint(k_triage + 0x44, 4));
  if (options != 0xFFFFFFFF && (options & k_triage_overflowed) != 0) {
    dump.warnings.emplace_back("driver list truncated by the kernel (triage overflow flag)");
  }
  read_drivers(v, bytes, dump);
  scan_stack(v, dump);
}

} // namespace

Expected<KernelDump> parse_kernel_dump(std::string_view bytes) {
  if (bytes.substr(0, 4) == "MDMP") {
    return make_error(ErrorCode::parse, "not a kernel dump: a user-mode minidump (MDMP)");
  }
  const std::string_view sig = bytes.substr(0, 8);
  if (sig != "PAGEDU64" && sig != "PAGEDUMP") {
    return make_error(ErrorCode::parse, "not a kernel dump: no PAGEDU64 or PAGEDUMP signature");
  }
  KernelDump dump;
  dump.bits = sig == "PAGEDU64" ? 64 : 32;
  const Layout& l = dump.bits == 64 ? k_layout64 : k_layout32;
  if (bytes.size() < l.header_size) {
    return make_error(ErrorCode::parse,
                      "truncated kernel dump: " + std::to_string(bytes.size())
                          + " bytes, the header needs " + std::to_string(l.header_size));
  }
  const ByteReader v(bytes);
  dump.major_version = static_cast<std::uint32_t>(v.uint(0x08, 4));
  dump.os_build = static_cast<std::uint32_t>(v.uint(0x0C, 4));
  dump.machine = static_cast<std::uint32_t>(v.uint(l.machine, 4));
  dump.processors = static_cast<std::uint32_t>(v.uint(l.processors, 4));
  dump.bugcheck_code = static_cast<std::uint32_t>(v.uint(l.code, 4));
  for (std::size_t i = 0; i < dump.params.size(); ++i) {
    dump.params[i] = v.uint(l.params + i * l.param_width, l.param_width);
  }
  dump.dump_type = static_cast<std::uint32_t>(v.uint(l.dump_type, 4));
  const std::uint64_t filetime = v.uint(l.system_time, 8);
  if (filetime != k_fill64 && filetime > util::k_filetime_unix_epoch) {
    dump.crash_time_utc_usec =
        static_cast<std::int64_t>((filetime - util::k_filetime_unix_epoch) / 10);
  }
  const std::uint64_t uptime = v.uint(l.uptime, 8);
  if (uptime != k_fill64 && uptime < (1ULL << 62U)) {
    dump.uptime_usec = static_cast<std::int64_t>(uptime / 10);
  }
  // Rip of an x64 CONTEXT at +0xF8, Pc of an ARM64 one at +0x108, Eip of an x86 one at +0xB8.
  std::optional<std::uint64_t> ip;
  if (dump.bits == 64 && dump.machine == 0x8664) {
    ip = v.uint(l.context + 0xF8, 8);
  } else if (dump.bits == 64 && dump.machine == 0xAA64) {
    ip = v.uint(l.context + 0x108, 8);
  } else if (dump.bits == 32 && dump.machine == 0x14C) {
    ip = v.uint(l.context + 0xB8, 4);
  }
  if (ip && *ip != 0 && *ip != k_fill64 && *ip != k_fill32) {
    dump.context_ip = ip;
  }
  if (dump.dump_type == k_dump_type_triage) {
    read_triage(v, bytes, dump);
  }
  return dump;
}

std::optional<ModuleHit> module_at(const KernelDump& dump, std::uint64_t address) {
  for (const DumpModule& m : dump.modules) {
    if (address >= m.base && address - m.base < m.size) {
      return ModuleHit{&m, address - m.base};
    }
  }
  return std::nullopt;
}

std::uint32_t masked_code(std::uint32_t code) {
  // Only small codes have "_M" twins; 0xDEADDEAD (MANUALLY_INITIATED_CRASH1) keeps its bit 28.
  if ((code & 0xF0000000U) == 0x10000000U && (code & 0x0FFFFFFFU) < 0x10000U) {
    return code & 0x0FFFFFFFU;
  }
  return code;
}

std::string dump_type_name(std::uint32_t dump_type) {
  switch (dump_type) {
  case 1:
    return "full";
  case 2:
  case 8:
    return "kernel";
  case 4:
    return "triage";
  case 5:
    return "full_bitmap";
  case 6:
    return "kernel_bitmap";
  case 9:
    return "kernel_user";
  case 0xA:
    return "complete";
  default:
    return "type " + std::to_string(dump_type);
  }
}

std::string machine_name(std::uint32_t machine) {
  return pe_machine_name(machine);
}

Blame blame(const KernelDump& dump, std::optional<unsigned> address_param) {
  if (address_param && *address_param >= 1 && *address_param <= 4) {
    if (auto hit = module_at(dump, dump.params[*address_param - 1])) {
      return Blame{hit, "parameter " + std::to_string(*address_param)};
    }
  }
  if (dump.broken_driver && *dump.broken_driver < dump.modules.size()) {
    return Blame{ModuleHit{&dump.modules[*dump.broken_driver], 0}, "broken driver entry"};
  }
  if (!dump.stack_modules.empty() && dump.stack_modules[0] < dump.modules.size()) {
    const DumpModule& m = dump.modules[dump.stack_modules[0]];
    const std::uint64_t first = dump.stack_addresses.empty() ? m.base : dump.stack_addresses[0];
    return Blame{ModuleHit{&m, first - m.base}, "stack scan"};
  }
  return Blame{};
}

} // namespace doctor::formats
