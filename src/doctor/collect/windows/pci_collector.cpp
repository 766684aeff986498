// SPDX-License-Identifier: MIT
// NVIDIA's PCI devices, and the other display-class devices, from the PnP enumeration of the
// registry (HKLM\SYSTEM\CurrentControlSet\Enum\PCI): there even when no driver is installed,
// the counterpart of the Linux PCI scan.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using platform::RegistryRoot;

constexpr const char* k_display_class_guid = "{4d36e968-e325-11ce-bfc1-08002be10318}";
constexpr const char* k_pci_enum = "SYSTEM\\CurrentControlSet\\Enum\\PCI";
constexpr std::uint32_t k_nvidia_vendor = 0x10de;

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

} // namespace

// The NVIDIA and other display-class devices of HKLM\SYSTEM\CurrentControlSet\Enum\PCI: one key
// per hardware id ("VEN_10DE&DEV_2204&SUBSYS_…&REV_A1"), one subkey per device instance.
void collect_windows_pci(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
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
      const std::string source = reg->source(RegistryRoot::local_machine, key);
      d.name = desc.empty() ? Fact<std::string>::unknown("DeviceDesc is not set")
                            : Fact<std::string>::known(desc, source + "\\DeviceDesc");
      const std::string service = display_value_text(*reg, key, "Service");
      d.driver = service.empty() ? Fact<std::string>::unknown("no driver service is bound")
                                 : Fact<std::string>::known(service, source + "\\Service");
      (pci->vendor_id == k_nvidia_vendor ? scan.nvidia_gpus : scan.other_displays)
          .push_back(std::move(d));
    }
  }
  facts.pci =
      Fact<PciScan>::known(std::move(scan), reg->source(RegistryRoot::local_machine, k_pci_enum));
}

} // namespace doctor::collect
