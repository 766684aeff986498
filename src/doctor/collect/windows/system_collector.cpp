// SPDX-License-Identifier: MIT
// The Windows system itself from its registry: edition and build, page files, the PATHs the
// registry defines, and the settings that decide what a GPU timeout or a blue screen leaves
// behind.
#include <doctor/collect/windows/registry_read.hpp>
#include <doctor/collect/windows/windows_collectors.hpp>
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model
using namespace windows;

namespace {

constexpr std::string_view k_graphics_drivers =
    "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers";
constexpr std::string_view k_crash_control = "SYSTEM\\CurrentControlSet\\Control\\CrashControl";
constexpr std::string_view k_machine_environment =
    "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment";

// Windows 11 kept "Windows 10 …" as its ProductName; build 22000 is the first Windows 11.
std::string corrected_product_name(std::string name, const Fact<std::string>& build) {
  const auto number = build ? util::parse_uint(*build) : std::nullopt;
  if (number && *number >= 22000 && name.starts_with("Windows 10")) {
    name.replace(0, 10, "Windows 11");
  }
  return name;
}

// "10.0.22631.4037" from CurrentMajor/MinorVersionNumber, CurrentBuild and UBR.
Fact<std::string> windows_build(const Registry& r, const Fact<std::string>& build) {
  if (!build) {
    return build;
  }
  auto major =
      number_fact(r, RegistryRoot::local_machine, k_current_version, "CurrentMajorVersionNumber");
  auto minor =
      number_fact(r, RegistryRoot::local_machine, k_current_version, "CurrentMinorVersionNumber");
  std::string text =
      major && minor
          ? fmt::format("{}.{}", *major, *minor)
          : string_value(r, RegistryRoot::local_machine, k_current_version, "CurrentVersion")
                .value_or("10.0");
  text += "." + *build;
  if (auto ubr = number_fact(r, RegistryRoot::local_machine, k_current_version, "UBR")) {
    text += fmt::format(".{}", *ubr);
  }
  return Fact<std::string>::known(text, build.source());
}

std::string architecture_of(std::string_view processor) {
  const std::string p = util::to_lower(processor);
  if (p == "amd64") {
    return "x86_64";
  }
  if (p == "arm64") {
    return "aarch64";
  }
  return p == "x86" ? "i386" : p;
}

} // namespace

void collect_windows_os(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  WindowsInfo& w = facts.windows;
  if (const auto dir = root.windows_directory()) {
    w.windows_dir = windows_path(*dir);
    facts.os.id = Fact<std::string>::known("windows", "file:" + *dir + "/System32");
  }
  std::string reason;
  const Registry* r = registry_of(root, reason);
  if (r == nullptr) {
    w.product_name = w.edition_id = w.display_version = w.build =
        Fact<std::string>::unknown(reason);
    w.known_dlls = Fact<std::vector<std::string>>::unknown(reason);
    w.safe_dll_search_mode = Fact<bool>::unknown(reason);
    w.system32 = w.windows_dir + "\\System32";
    facts.os.pretty_name = facts.os.version_id = Fact<std::string>::unknown(reason);
    return;
  }
  const auto hklm = RegistryRoot::local_machine;
  auto build = string_fact(*r, hklm, k_current_version, "CurrentBuildNumber");
  if (!build) {
    build = string_fact(*r, hklm, k_current_version, "CurrentBuild");
  }
  w.product_name = string_fact(*r, hklm, k_current_version, "ProductName");
  if (w.product_name) {
    w.product_name.value() = corrected_product_name(*w.product_name, build);
  }
  w.edition_id = string_fact(*r, hklm, k_current_version, "EditionID");
  w.display_version = string_fact(*r, hklm, k_current_version, "DisplayVersion");
  if (!w.display_version) {
    w.display_version = string_fact(*r, hklm, k_current_version, "ReleaseId");
  }
  w.build = windows_build(*r, build);
  if (auto system_root = string_value(*r, hklm, k_current_version, "SystemRoot")) {
    w.windows_dir = *system_root;
  }
  w.system32 = w.windows_dir + "\\System32";
  facts.os.pretty_name = w.product_name;
  facts.os.version_id = w.build;
  facts.os.kernel_release = w.build; // the NT kernel carries the build number
  if (auto processor = string_fact(*r, hklm, k_machine_environment, "PROCESSOR_ARCHITECTURE")) {
    facts.os.architecture =
        Fact<std::string>::known(architecture_of(*processor), processor.source());
  } else {
    facts.os.architecture = processor;
  }

  const std::string known_key = std::string(k_session_manager) + "\\KnownDLLs";
  if (auto values = r->values(hklm, known_key)) {
    std::vector<std::string> dlls;
    for (const RegistryValue& v : *values) {
      if (v.type == RegistryValue::Type::string && !v.text.empty()) {
        dlls.push_back(v.text);
      }
    }
    std::sort(dlls.begin(), dlls.end());
    w.known_dlls =
        Fact<std::vector<std::string>>::known(std::move(dlls), r->source(hklm, known_key));
  } else {
    w.known_dlls = Fact<std::vector<std::string>>::unknown(values.error().message);
  }
  auto safe = number_fact(
      *r, hklm, k_session_manager, "SafeDllSearchMode", "not set (Windows default: enabled)");
  w.safe_dll_search_mode =
      safe ? Fact<bool>::known(*safe != 0, safe.source()) : Fact<bool>::unknown(safe.reason());
}

void collect_windows_memory(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  WindowsInfo& w = facts.windows;
  w.automatic_page_file =
      Fact<bool>::unknown("Win32_ComputerSystem answers only on the running machine");
  std::string reason;
  const Registry* r = registry_of(root, reason);
  if (r == nullptr) {
    w.page_files = Fact<std::vector<PageFile>>::unknown(reason);
    return;
  }
  auto v = r->value(RegistryRoot::local_machine, k_memory_management, "PagingFiles");
  if (!v) {
    w.page_files = v.error().code == ErrorCode::not_found
                       ? Fact<std::vector<PageFile>>::known(
                           {}, r->source(RegistryRoot::local_machine, k_memory_management))
                       : Fact<std::vector<PageFile>>::unknown(v.error().message);
    return;
  }
  std::vector<std::string> entries = v->strings;
  if (v->type == RegistryValue::Type::string || v->type == RegistryValue::Type::expand_string) {
    entries = {v->text};
  }
  w.page_files = Fact<std::vector<PageFile>>::known(
      parse_paging_files(entries),
      value_source(*r, RegistryRoot::local_machine, k_memory_management, "PagingFiles"));
}

void collect_windows_environment(const platform::SysRoot& root,
                                 const CollectOptions&,
                                 Facts& facts) {
  WindowsInfo& w = facts.windows;
  std::string reason;
  const Registry* r = registry_of(root, reason);
  if (r == nullptr) {
    w.machine_path = w.user_path = Fact<std::string>::unknown(reason);
    return;
  }
  w.machine_path = string_fact(*r, RegistryRoot::local_machine, k_machine_environment, "Path");
  w.user_path = string_fact(*r, RegistryRoot::current_user, "Environment", "Path");
}

void collect_windows_crash_settings(const platform::SysRoot& root,
                                    const CollectOptions&,
                                    Facts& facts) {
  WindowsInfo& w = facts.windows;
  std::string reason;
  const Registry* r = registry_of(root, reason);
  if (r == nullptr) {
    w.tdr = Fact<TdrSettings>::unknown(reason);
    w.crash_dumps = Fact<CrashDumpSettings>::unknown(reason);
    return;
  }
  const auto hklm = RegistryRoot::local_machine;
  // A key that is missing is an answer (every value at its default); one that cannot be read is
  // not.
  auto readable = [&](std::string_view key) -> std::optional<std::string> {
    auto values = r->values(hklm, key);
    if (!values && values.error().code != ErrorCode::not_found) {
      return values.error().message;
    }
    return std::nullopt;
  };
  if (auto error = readable(k_graphics_drivers)) {
    w.tdr = Fact<TdrSettings>::unknown(*error);
  } else {
    TdrSettings tdr;
    tdr.tdr_level = number_fact(
        *r, hklm, k_graphics_drivers, "TdrLevel", "not set (Windows default 3: recover)");
    tdr.tdr_delay =
        number_fact(*r, hklm, k_graphics_drivers, "TdrDelay", "not set (Windows default 2 s)");
    tdr.tdr_ddi_delay =
        number_fact(*r, hklm, k_graphics_drivers, "TdrDdiDelay", "not set (Windows default 5 s)");
    w.tdr = Fact<TdrSettings>::known(tdr, r->source(hklm, k_graphics_drivers));
  }
  if (auto error = readable(k_crash_control)) {
    w.crash_dumps = Fact<CrashDumpSettings>::unknown(*error);
  } else {
    CrashDumpSettings dumps;
    dumps.crash_dump_enabled = number_fact(
        *r, hklm, k_crash_control, "CrashDumpEnabled", "not set (Windows default 7: automatic)");
    dumps.minidump_dir = string_fact(*r,
                                     hklm,
                                     k_crash_control,
                                     "MinidumpDir",
                                     "not set (Windows default %SystemRoot%\\Minidump)");
    dumps.dump_file = string_fact(*r,
                                  hklm,
                                  k_crash_control,
                                  "DumpFile",
                                  "not set (Windows default %SystemRoot%\\MEMORY.DMP)");
    w.crash_dumps = Fact<CrashDumpSettings>::known(dumps, r->source(hklm, k_crash_control));
  }
}

} // namespace doctor::collect
