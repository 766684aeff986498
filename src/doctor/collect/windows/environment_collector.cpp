// SPDX-License-Identifier: MIT
// The environment on Windows: the GPU-relevant variables as the doctor's process has them (names
// compared without regard to case, as Windows does), every CUDA_PATH_V<major>_<minor>, and PATH
// as the machine and user registry keys define it, which consoles opened before a change do not
// see yet.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/util/strings.hpp>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr const char* k_machine_environment =
    "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment";
constexpr const char* k_user_environment = "Environment";

std::string ascii_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') {
      c = static_cast<char>(c - 'a' + 'A');
    }
  }
  return out;
}

} // namespace

void collect_windows_process_environment(const platform::SysRoot& root,
                                         const CollectOptions&,
                                         Facts& facts) {
  for (const std::string& name : relevant_environment_variables()) {
    if (auto value = windows_env(root, name)) {
      facts.environment[name] = *value;
    }
  }
  for (const auto& [name, value] : root.env().all()) {
    const std::string upper = ascii_upper(name);
    if (upper.starts_with("CUDA_PATH_V") || upper == "SYSTEMROOT" || upper == "PROGRAMFILES"
        || upper == "USERPROFILE" || upper == "LOCALAPPDATA") {
      facts.environment[upper] = value;
    }
  }
  facts.windows.machine_path =
      registry_text(root, platform::RegistryRoot::local_machine, k_machine_environment, "Path");
  facts.windows.user_path =
      registry_text(root, platform::RegistryRoot::current_user, k_user_environment, "Path");
}

} // namespace doctor::collect
