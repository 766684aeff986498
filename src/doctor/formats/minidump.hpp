// SPDX-License-Identifier: MIT
// User-mode minidumps (MDMP: WER LocalDumps, ProcDump, crashpad): the exception record, the
// module list and the system info, enough to name the faulting module and offset of an
// application crash (python.exe in cudnn_cnn_infer64_8.dll) without symbols. Pure byte parsing.
#pragma once

#include <doctor/formats/provenance.hpp>
#include <doctor/util/error.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::formats {

// A module of the crashed process (MINIDUMP_MODULE).
struct MiniDumpModule {
  std::string path; // as recorded, "C:\Python310\python.exe"
  std::string name; // base name, "python.exe"; "" when the name could not be read
  std::uint64_t base = 0;
  std::uint32_t size = 0;
  std::uint32_t timestamp = 0;
  std::string version; // "10.0.19041.1" from VS_FIXEDFILEINFO, "" if none
};

// What a minidump says about its crash, as read.
struct MiniDump {
  std::optional<std::int64_t> time_utc_usec;   // header TimeDateStamp
  std::optional<std::uint32_t> exception_code; // nullopt without an exception stream
  std::uint64_t exception_address = 0;
  std::vector<std::uint64_t> exception_info; // ExceptionInformation[NumberParameters]
  std::uint32_t thread_id = 0;
  std::vector<MiniDumpModule> modules;
  std::optional<std::size_t> faulting_module; // index of the module holding exception_address
  std::uint16_t arch = 0;                     // PROCESSOR_ARCHITECTURE_*: 0 x86, 9 x64, 12 arm64
  std::uint32_t os_major = 0, os_minor = 0, os_build = 0;
  std::uint32_t platform_id = 0;
  std::vector<std::string> warnings; // what could not be read ("module list truncated …")
};

// Parses a user-mode minidump. Returns a parse error if the MDMP signature is missing (naming a
// kernel dump as such), the header is truncated or the stream directory lies outside the file;
// damaged streams only add warnings.
Expected<MiniDump> parse_minidump(std::string_view bytes);

// Returns the name of a PROCESSOR_ARCHITECTURE_* value: "x86", "arm", "x64", "arm64", or
// "arch N" for others.
std::string processor_arch_name(std::uint16_t arch);

} // namespace doctor::formats
