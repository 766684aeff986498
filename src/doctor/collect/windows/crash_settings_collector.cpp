// SPDX-License-Identifier: MIT
// How Windows treats a GPU that stops answering (GraphicsDrivers' TDR settings) and whether and
// where it writes a crash dump (CrashControl).
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>

#include <fmt/format.h>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr const char* k_graphics_drivers = "SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers";
constexpr const char* k_crash_control = "SYSTEM\\CurrentControlSet\\Control\\CrashControl";

// A number that, when absent, means the Windows default `what`.
Fact<std::uint64_t>
setting(const platform::SysRoot& root, const char* key, const char* name, const char* what) {
  auto v = registry_number(root, platform::RegistryRoot::local_machine, key, name);
  if (!v && v.reason().ends_with("is not set")) {
    return Fact<std::uint64_t>::unknown(fmt::format("not set (Windows default {})", what));
  }
  return v;
}

} // namespace

void collect_windows_crash_settings(const platform::SysRoot& root,
                                    const CollectOptions&,
                                    Facts& facts) {
  if (root.registry() == nullptr) {
    const std::string why = "the registry of this machine cannot be read here";
    facts.windows.tdr = Fact<TdrSettings>::unknown(why);
    facts.windows.crash_dumps = Fact<CrashDumpSettings>::unknown(why);
    return;
  }
  TdrSettings tdr;
  tdr.tdr_level = setting(root, k_graphics_drivers, "TdrLevel", "3: recover");
  tdr.tdr_delay = setting(root, k_graphics_drivers, "TdrDelay", "2 s");
  tdr.tdr_ddi_delay = setting(root, k_graphics_drivers, "TdrDdiDelay", "5 s");
  facts.windows.tdr = Fact<TdrSettings>::known(
      tdr,
      registry_source(root, platform::RegistryRoot::local_machine, k_graphics_drivers, "Tdr*"));
  CrashDumpSettings dumps;
  dumps.crash_dump_enabled = setting(root, k_crash_control, "CrashDumpEnabled", "7: automatic");
  dumps.minidump_dir =
      registry_text(root, platform::RegistryRoot::local_machine, k_crash_control, "MinidumpDir");
  dumps.dump_file =
      registry_text(root, platform::RegistryRoot::local_machine, k_crash_control, "DumpFile");
  facts.windows.crash_dumps = Fact<CrashDumpSettings>::known(
      dumps, registry_source(root, platform::RegistryRoot::local_machine, k_crash_control, "*"));
}

} // namespace doctor::collect
