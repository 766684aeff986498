// SPDX-License-Identifier: MIT
// The display adapters and their drivers as the display class key records them, the per-app GPU
// preferences, NVIDIA's PCI devices from the PnP enumeration (there even without a driver), and
// the NVIDIA display driver packages left in the driver store.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/kb/compat.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using platform::RegistryRoot;

constexpr const char* k_display_class_guid = "{4d36e968-e325-11ce-bfc1-08002be10318}";
constexpr const char* k_class_key = "SYSTEM\\CurrentControlSet\\Control\\Class";
constexpr const char* k_pci_enum = "SYSTEM\\CurrentControlSet\\Enum\\PCI";
constexpr const char* k_gpu_preferences = "Software\\Microsoft\\DirectX\\UserGpuPreferences";
constexpr std::uint32_t k_nvidia_vendor = 0x10de;

bool is_display_adapter_key(std::string_view name) {
  return name.size() == 4
         && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string
display_value_text(const platform::Registry& reg, std::string_view key, std::string_view name) {
  auto v = reg.value(RegistryRoot::local_machine, key, name);
  if (!v) {
    return {};
  }
  if (v->type == platform::RegistryValue::Type::multi_string) {
    return v->strings.empty() ? std::string() : util::sanitize(v->strings.front(), 512);
  }
  return util::sanitize(v->text, 512);
}

void read_display_adapters(const platform::SysRoot& root, WindowsInfo& win) {
  const std::string class_key = fmt::format("{}\\{}", k_class_key, k_display_class_guid);
  const platform::Registry* reg = root.registry();
  if (reg == nullptr) {
    win.display_adapters = Fact<std::vector<DisplayAdapter>>::unknown(
        registry_reason(root, Error{}, RegistryRoot::local_machine, class_key, ""));
    return;
  }
  auto keys = reg->subkeys(RegistryRoot::local_machine, class_key);
  if (!keys) {
    win.display_adapters = Fact<std::vector<DisplayAdapter>>::unknown(
        keys.error().code == ErrorCode::not_found
            ? fmt::format("HKLM\\{} does not exist", class_key)
            : keys.error().message);
    return;
  }
  std::vector<DisplayAdapter> adapters;
  for (const std::string& name : *keys) {
    if (!is_display_adapter_key(name)) {
      continue; // "Properties", which only SYSTEM may read
    }
    const std::string key = fmt::format("{}\\{}", class_key, name);
    DisplayAdapter a;
    a.key = name;
    a.description = display_value_text(*reg, key, "DriverDesc");
    a.provider = display_value_text(*reg, key, "ProviderName");
    a.driver_version = display_value_text(*reg, key, "DriverVersion");
    a.driver_date = display_value_text(*reg, key, "DriverDate");
    a.inf_path = display_value_text(*reg, key, "InfPath");
    a.matching_device_id = util::to_lower(display_value_text(*reg, key, "MatchingDeviceId"));
    if (auto ids = parse_pci_hardware_id(a.matching_device_id)) {
      a.vendor_id = ids->vendor_id;
      a.device_id = ids->device_id;
    }
    const bool nvidia = a.vendor_id == k_nvidia_vendor
                        || util::to_lower(a.provider).find("nvidia") != std::string::npos;
    if (!nvidia) {
      a.nvidia_version = Fact<std::string>::unknown(fmt::format(
          "{} is not an NVIDIA driver", a.provider.empty() ? "the driver" : a.provider));
    } else if (auto v = kb::nvidia_driver_from_windows(a.driver_version)) {
      a.nvidia_version =
          Fact<std::string>::known(v->str(),
                                   fmt::format("{}:HKLM\\{}\\DriverVersion {}",
                                               reg->source(RegistryRoot::local_machine, key),
                                               key,
                                               a.driver_version));
    } else {
      a.nvidia_version = Fact<std::string>::unknown(
          fmt::format("DriverVersion \"{}\" is not of the form a.b.c.d NVIDIA's drivers use",
                      a.driver_version));
    }
    if (a.description.empty() && a.driver_version.empty()) {
      continue; // a key of a removed device
    }
    adapters.push_back(std::move(a));
  }
  win.display_adapters = Fact<std::vector<DisplayAdapter>>::known(
      std::move(adapters),
      fmt::format("{}:HKLM\\{}", reg->source(RegistryRoot::local_machine, class_key), class_key));
}

void read_gpu_preferences(const platform::SysRoot& root, WindowsInfo& win) {
  const platform::Registry* reg = root.registry();
  if (reg == nullptr) {
    win.gpu_preferences = Fact<std::map<std::string, std::string>>::unknown(
        registry_reason(root, Error{}, RegistryRoot::current_user, k_gpu_preferences, ""));
    return;
  }
  auto values = reg->values(RegistryRoot::current_user, k_gpu_preferences);
  const std::string source = fmt::format(
      "{}:HKCU\\{}", reg->source(RegistryRoot::current_user, k_gpu_preferences), k_gpu_preferences);
  if (!values) {
    if (values.error().code == ErrorCode::not_found) {
      // No application has a preference: Windows decides for every one.
      win.gpu_preferences = Fact<std::map<std::string, std::string>>::known({}, source);
    } else {
      win.gpu_preferences =
          Fact<std::map<std::string, std::string>>::unknown(values.error().message);
    }
    return;
  }
  std::map<std::string, std::string> prefs;
  for (const platform::RegistryValue& v : *values) {
    if (!v.name.empty() && v.type == platform::RegistryValue::Type::string) {
      prefs[util::sanitize(v.name, 1024)] = util::sanitize(v.text, 256);
    }
  }
  win.gpu_preferences = Fact<std::map<std::string, std::string>>::known(std::move(prefs), source);
}

void read_driver_packages(const platform::SysRoot& root, WindowsInfo& win) {
  const std::string repo = windows_system_root(root) + "\\System32\\DriverStore\\FileRepository";
  auto entries = list_windows_dir(root, repo);
  if (!entries) {
    win.nvidia_driver_packages = Fact<std::vector<std::string>>::unknown(
        entries.error().code == ErrorCode::not_found ? repo + " does not exist"
                                                     : entries.error().message);
    return;
  }
  std::vector<std::string> packages;
  for (const platform::DirEntry& e : *entries) {
    if (e.kind == platform::FileKind::directory
        && util::to_lower(e.name).starts_with("nv_dispi.inf_")) {
      packages.push_back(repo + "\\" + e.name);
    }
  }
  std::sort(packages.begin(), packages.end());
  win.nvidia_driver_packages =
      Fact<std::vector<std::string>>::known(std::move(packages), "dir:" + repo);
}

// The NVIDIA and other display-class devices of HKLM\SYSTEM\CurrentControlSet\Enum\PCI: one key
// per hardware id ("VEN_10DE&DEV_2204&SUBSYS_…&REV_A1"), one subkey per device instance.
void read_pnp_pci_devices(const platform::SysRoot& root, Facts& facts) {
  const platform::Registry* reg = root.registry();
  if (reg == nullptr) {
    facts.pci = Fact<PciScan>::unknown(
        registry_reason(root, Error{}, RegistryRoot::local_machine, k_pci_enum, ""));
    return;
  }
  auto ids = reg->subkeys(RegistryRoot::local_machine, k_pci_enum);
  if (!ids) {
    facts.pci = Fact<PciScan>::unknown(ids.error().message);
    return;
  }
  PciScan scan;
  for (const std::string& id : *ids) {
    const auto pci = parse_pci_hardware_id(id);
    if (!pci) {
      continue;
    }
    const std::string id_key = fmt::format("{}\\{}", k_pci_enum, id);
    for (const std::string& instance :
         registry_subkeys(root, RegistryRoot::local_machine, id_key)) {
      const std::string key = fmt::format("{}\\{}", id_key, instance);
      ++scan.devices_scanned;
      const std::string class_guid = util::to_lower(display_value_text(*reg, key, "ClassGUID"));
      const bool display = class_guid == k_display_class_guid;
      // An NVIDIA device without a driver has no class yet: it is still the GPU.
      if (!display && !(pci->vendor_id == k_nvidia_vendor && class_guid.empty())) {
        continue;
      }
      PciDevice d;
      d.address = fmt::format("PCI\\{}\\{}", id, instance);
      d.vendor_id = pci->vendor_id;
      d.device_id = pci->device_id;
      d.class_code = 0x030000;
      std::string desc =
          display_value_text(*reg, key, "DeviceDesc"); // "@oem12.inf,%…%;NVIDIA GeForce …"
      if (const auto semi = desc.rfind(';'); semi != std::string::npos) {
        desc = desc.substr(semi + 1);
      }
      const std::string source =
          fmt::format("{}:HKLM\\{}", reg->source(RegistryRoot::local_machine, key), key);
      d.name = desc.empty() ? Fact<std::string>::unknown("DeviceDesc is not set")
                            : Fact<std::string>::known(desc, source + "\\DeviceDesc");
      const std::string service = display_value_text(*reg, key, "Service");
      d.driver = service.empty() ? Fact<std::string>::unknown("no driver service is bound")
                                 : Fact<std::string>::known(service, source + "\\Service");
      (pci->vendor_id == k_nvidia_vendor ? scan.nvidia_gpus : scan.other_displays)
          .push_back(std::move(d));
    }
  }
  facts.pci = Fact<PciScan>::known(
      std::move(scan),
      fmt::format("{}:HKLM\\{}", reg->source(RegistryRoot::local_machine, k_pci_enum), k_pci_enum));
}

} // namespace

void collect_windows_display(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  read_display_adapters(root, facts.windows);
  read_gpu_preferences(root, facts.windows);
  read_driver_packages(root, facts.windows);
  read_pnp_pci_devices(root, facts);
}

} // namespace doctor::collect
