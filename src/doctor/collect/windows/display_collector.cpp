// SPDX-License-Identifier: MIT
// The display adapters of a Windows system as its display class key records their drivers, the
// NVIDIA driver packages left in the driver store, and which GPU Windows gives each application.
#include <doctor/collect/windows/registry_read.hpp>
#include <doctor/collect/windows/windows_collectors.hpp>
#include <doctor/kb/compat.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model
using namespace windows;

namespace {

constexpr std::string_view k_display_class =
    "SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";
constexpr std::string_view k_gpu_preferences = "Software\\Microsoft\\DirectX\\UserGpuPreferences";
constexpr std::uint32_t k_nvidia_adapter_vendor = 0x10de;

// The four hex digits after `tag` ("ven_") in a device id ("pci\\ven_10de&dev_2204&…"), or 0.
std::uint32_t id_after(std::string_view device_id, std::string_view tag) {
  const std::string lower = util::to_lower(device_id);
  const auto at = lower.find(tag);
  if (at == std::string::npos || at + tag.size() + 4 > lower.size()) {
    return 0;
  }
  return static_cast<std::uint32_t>(
      util::parse_hex(std::string_view(lower).substr(at + tag.size(), 4)).value_or(0));
}

bool is_adapter_key(std::string_view name) {
  return name.size() == 4 && std::all_of(name.begin(), name.end(), util::is_digit);
}

DisplayAdapter read_adapter(const Registry& r, const std::string& subkey) {
  const auto hklm = RegistryRoot::local_machine;
  const std::string key = fmt::format("{}\\{}", k_display_class, subkey);
  auto text = [&](std::string_view name) { return string_value(r, hklm, key, name).value_or(""); };
  DisplayAdapter a;
  a.key = subkey;
  a.description = text("DriverDesc");
  a.provider = text("ProviderName");
  a.driver_version = text("DriverVersion");
  a.driver_date = text("DriverDate");
  a.inf_path = text("InfPath");
  a.matching_device_id = text("MatchingDeviceId");
  a.vendor_id = id_after(a.matching_device_id, "ven_");
  a.device_id = id_after(a.matching_device_id, "dev_");
  const bool nvidia = a.vendor_id == k_nvidia_adapter_vendor
                      || util::to_lower(a.provider).find("nvidia") != std::string::npos;
  if (!nvidia) {
    a.nvidia_version = Fact<std::string>::unknown("not an NVIDIA adapter");
  } else if (a.driver_version.empty()) {
    a.nvidia_version = Fact<std::string>::unknown(key + " has no DriverVersion");
  } else if (auto v = kb::nvidia_driver_from_windows(a.driver_version)) {
    a.nvidia_version =
        Fact<std::string>::known(v->str(), value_source(r, hklm, key, "DriverVersion"));
  } else {
    a.nvidia_version = Fact<std::string>::unknown(
        fmt::format("DriverVersion {} is not of the form 32.0.15.6094", a.driver_version));
  }
  return a;
}

Fact<std::vector<std::string>> nvidia_driver_packages(const platform::SysRoot& root,
                                                      const std::string& windows_dir) {
  auto repo = root.find_any_case(windows_dir + "/System32/DriverStore/FileRepository");
  auto entries = repo ? root.list_dir(*repo) : tl::unexpected(repo.error());
  if (!entries) {
    return Fact<std::vector<std::string>>::unknown(entries.error().message);
  }
  std::vector<std::string> out;
  for (const platform::DirEntry& e : *entries) {
    if (e.kind == platform::FileKind::directory
        && util::to_lower(e.name).starts_with("nv_dispi.inf_")) {
      out.push_back(windows_path(*repo + "/" + e.name));
    }
  }
  std::sort(out.begin(), out.end());
  return Fact<std::vector<std::string>>::known(std::move(out), "dir:" + *repo);
}

} // namespace

void collect_windows_display(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  WindowsInfo& w = facts.windows;
  if (const auto dir = root.windows_directory()) {
    w.nvidia_driver_packages = nvidia_driver_packages(root, *dir);
  } else {
    w.nvidia_driver_packages = Fact<std::vector<std::string>>::unknown("no Windows directory");
  }
  std::string reason;
  const Registry* r = registry_of(root, reason);
  if (r == nullptr) {
    w.display_adapters = Fact<std::vector<DisplayAdapter>>::unknown(reason);
    w.gpu_preferences = Fact<std::map<std::string, std::string>>::unknown(reason);
    return;
  }
  const auto hklm = RegistryRoot::local_machine;
  auto subkeys = r->subkeys(hklm, k_display_class);
  if (!subkeys && subkeys.error().code != ErrorCode::not_found) {
    w.display_adapters = Fact<std::vector<DisplayAdapter>>::unknown(subkeys.error().message);
  } else {
    std::vector<DisplayAdapter> adapters;
    for (const std::string& k : subkeys ? *subkeys : std::vector<std::string>{}) {
      if (is_adapter_key(k)) {
        adapters.push_back(read_adapter(*r, k));
      }
    }
    std::sort(adapters.begin(), adapters.end(), [](const auto& a, const auto& b) {
      return a.key < b.key;
    });
    w.display_adapters = Fact<std::vector<DisplayAdapter>>::known(std::move(adapters),
                                                                  r->source(hklm, k_display_class));
  }
  const auto hkcu = RegistryRoot::current_user;
  auto prefs = r->values(hkcu, k_gpu_preferences);
  if (!prefs && prefs.error().code != ErrorCode::not_found) {
    w.gpu_preferences = Fact<std::map<std::string, std::string>>::unknown(prefs.error().message);
  } else {
    std::map<std::string, std::string> out;
    for (const RegistryValue& v : prefs ? *prefs : std::vector<RegistryValue>{}) {
      if (v.type == RegistryValue::Type::string && !v.name.empty()) {
        out[v.name] = v.text;
      }
    }
    w.gpu_preferences = Fact<std::map<std::string, std::string>>::known(
        std::move(out), r->source(hkcu, k_gpu_preferences));
  }
}

} // namespace doctor::collect
