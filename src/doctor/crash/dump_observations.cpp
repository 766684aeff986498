// SPDX-License-Identifier: MIT
#include <doctor/crash/dump_observations.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/time.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace doctor::crash {

using formats::DumpModule;
using formats::KernelDump;
using formats::MiniDump;
using formats::MiniDumpModule;

Observation observe_minidump(const MiniDump& dump, const Origin& origin) {
  Observation o;
  o.kind = ObservationKind::app_crash;
  o.platform = Platform::windows; // a Windows user-mode minidump
  o.when.utc_usec = dump.time_utc_usec;
  o.origin = origin;
  if (o.origin.locator.empty()) {
    o.origin.locator = "exception stream";
  }
  const std::string process = dump.modules.empty() ? "" : dump.modules[0].name;
  if (!process.empty()) {
    o.set("process", process);
  }
  const std::string who = process.empty() ? "minidump" : process;
  if (!dump.exception_code) {
    o.lines.push_back(who + ": no exception record (not a crash dump, or a damaged one)");
    if (dump.os_build != 0) {
      o.set("os_build", std::to_string(dump.os_build));
    }
    return o;
  }
  const std::uint32_t code = *dump.exception_code;
  o.code = util::hex(code);
  std::string at = util::hex(dump.exception_address);
  if (dump.faulting_module && *dump.faulting_module < dump.modules.size()) {
    const MiniDumpModule& m = dump.modules[*dump.faulting_module];
    const std::string name = m.name.empty() ? "unnamed module" : m.name;
    const std::string offset = util::hex(dump.exception_address - m.base);
    o.set("module", name);
    o.set("module_offset", offset);
    if (!m.version.empty()) {
      o.set("module_version", m.version);
    }
    if (!m.path.empty()) {
      o.set("module_path", m.path);
    }
    at = name + "+" + offset;
  }
  o.set("exception_address", util::hex(dump.exception_address));
  // Access violations and in-page errors: [0] is the access kind, [1] the address touched.
  if ((code == 0xC0000005 || code == 0xC0000006) && dump.exception_info.size() >= 2) {
    const std::uint64_t kind = dump.exception_info[0];
    const char* verb = kind == 0 ? "read" : kind == 1 ? "write" : kind == 8 ? "execute" : nullptr;
    if (verb != nullptr) {
      o.set("access", std::string(verb) + " at " + util::hex(dump.exception_info[1]));
    }
  }
  if (dump.os_build != 0) {
    o.set("os_build", std::to_string(dump.os_build));
  }
  if (dump.platform_id != 0) { // the system info stream was read
    o.set("arch", formats::processor_arch_name(dump.arch));
  }
  o.lines.push_back(who + ": exception " + util::upper_hex(code) + " at " + at);
  return o;
}

Observation observe_kernel_dump(const KernelDump& dump,
                                const Origin& origin,
                                std::optional<unsigned> address_param) {
  Observation o;
  o.kind = ObservationKind::bugcheck;
  o.platform = Platform::windows; // a Windows kernel dump
  o.code = util::hex(formats::masked_code(dump.bugcheck_code));
  o.when.utc_usec = dump.crash_time_utc_usec;
  o.when.uptime_usec = dump.uptime_usec;
  o.origin = origin;
  if (o.origin.locator.empty()) {
    o.origin.locator = "header";
  }
  o.set("raw_code", util::hex(dump.bugcheck_code));
  for (std::size_t i = 0; i < dump.params.size(); ++i) {
    o.set("param" + std::to_string(i + 1), util::hex(dump.params[i]));
  }
  o.set("os_build", std::to_string(dump.os_build));
  o.set("arch", formats::machine_name(dump.machine));
  o.set("dump_type", formats::dump_type_name(dump.dump_type));

  const formats::Blame b = formats::blame(dump, address_param);
  std::string at;
  if (b.hit && b.hit->module != nullptr) {
    const DumpModule& m = *b.hit->module;
    const std::string name = m.name.empty() ? "unnamed module" : m.name;
    const bool has_offset = b.how != "broken driver entry";
    o.set("module", name);
    if (has_offset) {
      o.set("module_offset", util::hex(b.hit->offset));
    }
    // Since Windows 10 many system drivers carry a build hash instead of a link time; a "date"
    // after the crash is such a hash and is left out.
    if (m.timestamp != 0) {
      const auto seconds = static_cast<std::int64_t>(m.timestamp);
      if (!dump.crash_time_utc_usec || seconds <= *dump.crash_time_utc_usec / 1000000) {
        o.set("module_timestamp", util::date_of(seconds));
      }
      o.set("module_timestamp_raw", util::hex(m.timestamp));
    }
    if (!m.path.empty()) {
      o.set("module_path", m.path);
    }
    o.set("blamed_by", b.how);
    at = " at " + name + (has_offset ? "+" + util::hex(b.hit->offset) : "");
  }
  std::vector<std::string> stack;
  for (std::size_t i : dump.stack_modules) {
    if (i < dump.modules.size() && !dump.modules[i].name.empty()) {
      stack.push_back(dump.modules[i].name);
    }
  }
  if (!stack.empty()) {
    o.set("stack_drivers", util::join(stack, ", "));
  }
  // Exception-code bug checks keep the NTSTATUS in P1, sign-extended on x64.
  const std::uint32_t code = formats::masked_code(dump.bugcheck_code);
  const bool status_p1 = code == 0x1E || code == 0x3B || code == 0x7E || code == 0x8E;
  const std::uint64_t p1 = dump.params[0];
  if (status_p1 && (p1 >> 32U == 0 || p1 >> 32U == 0xFFFFFFFF)) {
    o.set("exception_code", util::hex(p1 & 0xFFFFFFFFU));
  }
  std::string line = "BugCheck " + util::upper_hex(dump.bugcheck_code) + " (";
  for (std::size_t i = 0; i < dump.params.size(); ++i) {
    const std::uint64_t p =
        i == 0 && o.field("exception_code") != nullptr ? p1 & 0xFFFFFFFFU : dump.params[i];
    line += (i == 0 ? "" : ", ") + util::hex(p);
  }
  o.lines.push_back(line + ")" + at);
  return o;
}

} // namespace doctor::crash
