// SPDX-License-Identifier: MIT
// The NVIDIA driver's user-mode libraries in System32 (nvcuda.dll, the CUDA driver, and
// nvml.dll), with the version their version resource gives, decoded to NVIDIA's numbering.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/kb/compat.hpp>

#include <fmt/format.h>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

void collect_windows_driver(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  const std::string system32 = windows_system_root(root) + "\\System32";
  for (const char* name : {"nvcuda", "nvml"}) {
    const std::string path = fmt::format("{}\\{}.dll", system32, name);
    add_windows_probe(root, facts, path);
    auto info = read_windows_binary(root, path);
    if (!info) {
      continue;
    }
    DriverLibrary lib;
    lib.name = name;
    lib.path = info->path;
    if (!info->read_error.empty()) {
      lib.version = Fact<std::string>::unknown(info->read_error_message);
    } else if (auto v = kb::nvidia_driver_from_windows(info->file_version)) {
      lib.version = Fact<std::string>::known(
          v->str(), fmt::format("pe:{} FileVersion {}", info->path, info->file_version));
    } else if (!info->file_version.empty()) {
      lib.version = Fact<std::string>::known(info->file_version,
                                             fmt::format("pe:{} FileVersion", info->path));
    } else {
      lib.version = Fact<std::string>::unknown(
          fmt::format("{} has no version resource", info->path));
    }
    facts.driver.libraries.push_back(std::move(lib));
    add_windows_binary(facts, std::move(*info));
  }
  facts.driver.nvml.status = "not_attempted";
  facts.driver.nvml.detail = "the isolated NVML probe is not run on Windows by this build";
  const std::string linux_only = "a Linux kernel driver fact; Windows has none";
  facts.driver.kernel_module_version = Fact<std::string>::unknown(linux_only);
  facts.driver.nouveau_loaded = Fact<bool>::unknown(linux_only);
}

} // namespace doctor::collect
