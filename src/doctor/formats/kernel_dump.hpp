// SPDX-License-Identifier: MIT
// Windows kernel crash dumps (C:\Windows\Minidump\*.dmp, MEMORY.DMP): the DUMP_HEADER64/32 at the
// start of the file (bug check code and parameters, build, times) and, for small "triage" dumps,
// the driver list, the broken-driver entry and the saved stack of the faulting thread. Pure byte
// parsing, no symbols: enough to say which driver a stop error points at, like BlueScreenView.
#pragma once

#include <doctor/formats/provenance.hpp>
#include <doctor/util/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::formats {

// A loaded driver as listed in a triage dump.
struct DumpModule {
  std::string name; // base name, "nvlddmkm.sys"; "" when its string could not be read
  std::string path; // as in the string pool, "\SystemRoot\System32\DriverStore\…\nvlddmkm.sys"
  std::uint64_t base = 0;
  std::uint32_t size = 0;
  std::uint32_t timestamp = 0; // PE link time (time_t), or a reproducible-build hash
};

// What a kernel dump says about its crash, as read.
struct KernelDump {
  unsigned bits = 64;              // 64 for PAGEDU64, 32 for PAGEDUMP
  std::uint32_t major_version = 0; // 0xF retail, 0xC checked
  std::uint32_t os_build = 0;      // MinorVersion: 19041, 22000…
  std::uint32_t machine = 0;       // 0x8664, 0xAA64, 0x14C
  std::uint32_t processors = 0;
  std::uint32_t bugcheck_code = 0; // as stored, e.g. 0x1000007E
  std::array<std::uint64_t, 4> params{};
  std::uint32_t dump_type = 0; // 1 full, 2 kernel, 4 triage, 5/6 bitmap …
  std::optional<std::int64_t> crash_time_utc_usec;
  std::optional<std::int64_t> uptime_usec;
  std::vector<DumpModule> modules;          // triage dumps: the driver list; empty otherwise
  std::optional<std::size_t> broken_driver; // index into modules (BrokenDriverOffset)
  // Modules holding words of the saved stack, first seen first, without the kernel (entry 0) and
  // hal.dll; stack_addresses holds the first such word of each, in the same order.
  std::vector<std::size_t> stack_modules;
  std::vector<std::uint64_t> stack_addresses;
  std::optional<std::uint64_t> context_ip; // Rip/Pc/Eip of the header context
  std::vector<std::string> warnings;       // what could not be read ("driver list truncated …")
};

// Parses a kernel dump. Returns a parse error if the signature is not PAGEDU64/PAGEDUMP (naming a
// user-mode MDMP minidump as such) or the header is truncated; damage past the header only adds
// warnings.
Expected<KernelDump> parse_kernel_dump(std::string_view bytes);

// A module and the offset of an address inside it.
struct ModuleHit {
  const DumpModule* module = nullptr;
  std::uint64_t offset = 0;
};

// Returns the first module whose [base, base + size) holds `address`, or nullopt.
std::optional<ModuleHit> module_at(const KernelDump& dump, std::uint64_t address);

// Returns `code` without the 0x10000000 flag of the "_M" variants (0x1000007E -> 0x7E); codes
// that are not such a variant (0xDEADDEAD) come back unchanged.
std::uint32_t masked_code(std::uint32_t code);

// Returns the name of a DumpType ("triage", "kernel", "full", "type 7" for unknown ones).
std::string dump_type_name(std::uint32_t dump_type);

// Returns "x64", "arm64", "x86" or "machine 0x…" for a MachineImageType.
std::string machine_name(std::uint32_t machine);

// Which module a stop error points at, and how it was found.
struct Blame {
  std::optional<ModuleHit> hit;
  std::string how; // "parameter 2", "broken driver entry", "stack scan", or "" when none
};

// Returns the blame, in BlueScreenView's order: (a) the module holding params[address_param - 1]
// when the catalogue names an address parameter (1..4), else (b) the broken driver entry, else
// (c) the first stack module, else none. The hit points into `dump.modules`.
Blame blame(const KernelDump& dump, std::optional<unsigned> address_param);

} // namespace doctor::formats
