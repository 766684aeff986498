// SPDX-License-Identifier: MIT
// The Visual C++ 2015-2022 runtime that cuDNN, CUDA and the frameworks' DLLs import: the
// redistributables the registry records as installed, and the runtime DLLs in System32 with their
// versions.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>

#include <fmt/format.h>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr const char* k_runtimes_key = "SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes";

} // namespace

void collect_windows_vc_runtime(const platform::SysRoot& root,
                                const CollectOptions&,
                                Facts& facts) {
  if (facts.windows.vc_runtimes) {
    // collect_windows_software read the redistributables' key already.
  } else if (root.registry() == nullptr) {
    facts.windows.vc_runtimes =
        Fact<std::vector<VcRuntime>>::unknown("the registry of this machine cannot be read here");
  } else {
    std::vector<VcRuntime> runtimes;
    for (const char* arch : {"arm64", "x64", "x86"}) {
      const std::string key = fmt::format("{}\\{}", k_runtimes_key, arch);
      const auto installed =
          registry_number(root, platform::RegistryRoot::local_machine, key, "Installed");
      const auto version =
          registry_text(root, platform::RegistryRoot::local_machine, key, "Version");
      if (!installed && !version) {
        continue; // no redistributable of this architecture
      }
      runtimes.push_back(
          VcRuntime{arch, version ? *version : std::string(), installed && *installed != 0});
    }
    facts.windows.vc_runtimes = Fact<std::vector<VcRuntime>>::known(
        std::move(runtimes),
        registry_source(root, platform::RegistryRoot::local_machine, k_runtimes_key, "*"));
  }
  const std::string system32 = windows_system_root(root) + "\\System32";
  for (const char* name : {"msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll"}) {
    const std::string path = fmt::format("{}\\{}", system32, name);
    add_windows_probe(root, facts, path);
    if (auto info = read_windows_binary(root, path)) {
      add_windows_binary(facts, std::move(*info));
    }
  }
}

} // namespace doctor::collect
