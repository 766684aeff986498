// SPDX-License-Identifier: MIT
// The NVIDIA driver's user-mode libraries in System32 (nvcuda.dll, the CUDA driver, and
// nvml.dll), with the version their version resource gives, decoded to NVIDIA's numbering.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/kb/compat.hpp>

#include <fmt/format.h>

#include <utility>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

void collect_windows_driver(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  const std::string system32 = windows_system_root(root) + "\\System32";
  // Named by their role, as on Linux (DriverLibrary::name): the CUDA driver and NVML.
  constexpr std::pair<const char*, const char*> k_files[] = {{"nvcuda.dll", "libcuda"},
                                                             {"nvml.dll", "libnvidia-ml"}};
  for (const auto& [file, role] : k_files) {
    const std::string path = fmt::format("{}\\{}", system32, file);
    add_windows_probe(root, facts, path);
    auto info = read_windows_binary(root, path);
    if (!info) {
      continue;
    }
    DriverLibrary lib;
    lib.name = role;
    lib.path = info->path;
    if (!info->read_error.empty()) {
      lib.version = Fact<std::string>::unknown(info->read_error_message);
    } else if (auto v = kb::nvidia_driver_from_windows(info->file_version)) {
      lib.version = Fact<std::string>::known(
          v->str(), fmt::format("pe:{} FileVersion {}", info->path, info->file_version));
    } else if (!info->file_version.empty()) {
      // Never the Windows form itself: checks compare NVIDIA's numbering.
      lib.version = Fact<std::string>::unknown(
          fmt::format("{}'s FileVersion \"{}\" is not of the a.b.c.d form NVIDIA's drivers use",
                      info->path,
                      info->file_version));
    } else {
      lib.version =
          Fact<std::string>::unknown(fmt::format("{} has no version resource", info->path));
    }
    facts.driver.libraries.push_back(std::move(lib));
    add_windows_binary(facts, std::move(*info));
  }
  const std::string linux_only = "a Linux kernel driver fact; Windows has none";
  facts.driver.kernel_module_version = Fact<std::string>::unknown(linux_only);
  facts.driver.nouveau_loaded = Fact<bool>::unknown(linux_only);
}

} // namespace doctor::collect
