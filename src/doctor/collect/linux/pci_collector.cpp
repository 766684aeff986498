// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/read_failure.hpp>
#include <doctor/formats/pci_ids.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr std::uint32_t k_nvidia_vendor = 0x10de;
constexpr std::size_t k_max_sysfs_file = std::size_t{64} * 1024;
constexpr std::size_t k_max_pci_ids = std::size_t{16} * 1024 * 1024;
constexpr const char* k_pci_dir = "/sys/bus/pci/devices";
constexpr const char* k_pci_ids_paths[] = {
    "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids"};

std::optional<std::uint32_t> read_hex(const platform::SysRoot& root, const std::string& path) {
  auto text = root.read_file(path, k_max_sysfs_file);
  if (!text) {
    return std::nullopt;
  }
  const auto v = util::parse_hex(util::trim(*text));
  if (!v || *v > 0xFFFFFFFFULL) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*v);
}

bool is_display_class(std::uint32_t class_code) {
  return (class_code >> 16U) == 0x03;
}

} // namespace

void collect_pci(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  auto entries = root.list_dir(k_pci_dir);
  if (!entries) {
    facts.pci = Fact<PciScan>::unknown(
        entries.error().code == ErrorCode::not_found
            ? fmt::format("{} does not exist in the examined system", k_pci_dir)
            : fmt::format("cannot list {}: {}", k_pci_dir, entries.error().message));
    return;
  }
  PciScan scan;
  std::optional<std::string> pci_ids;
  std::string pci_ids_path;
  bool pci_ids_tried = false;
  ReadFailure pci_ids_failure; // why a pci.ids that is there could not be read
  for (const platform::DirEntry& e : *entries) {
    const std::string dir = util::join_path(k_pci_dir, e.name);
    const auto vendor = read_hex(root, dir + "/vendor");
    const auto klass = read_hex(root, dir + "/class");
    if (!vendor || !klass) {
      continue;
    }
    ++scan.devices_scanned;
    if (!is_display_class(*klass)) {
      continue;
    }
    PciDevice dev;
    dev.address = e.name;
    dev.vendor_id = *vendor;
    dev.class_code = *klass;
    dev.device_id = read_hex(root, dir + "/device").value_or(0);
    dev.subsystem_vendor_id = read_hex(root, dir + "/subsystem_vendor").value_or(0);
    dev.subsystem_device_id = read_hex(root, dir + "/subsystem_device").value_or(0);
    if (auto link = root.read_link(dir + "/driver")) {
      dev.driver = Fact<std::string>::known(std::string(util::file_name(*link)),
                                            fmt::format("link:{}/driver", dir));
    } else {
      dev.driver = Fact<std::string>::unknown(
          fmt::format("{}/driver does not exist: no kernel driver is bound", dir));
    }
    if (!pci_ids_tried) {
      pci_ids_tried = true;
      for (const char* path : k_pci_ids_paths) {
        auto text = root.read_file(path, k_max_pci_ids);
        if (text) {
          pci_ids = std::move(*text);
          pci_ids_path = path;
          break;
        }
        pci_ids_failure.note(text.error());
      }
    }
    if (!pci_ids) {
      dev.name = Fact<std::string>::unknown("the examined system has no pci.ids database"
                                            + pci_ids_failure.suffix());
    } else if (auto name = formats::lookup_pci_name(*pci_ids, dev.vendor_id, dev.device_id)) {
      dev.name = Fact<std::string>::known(*name, fmt::format("file:{}", pci_ids_path));
    } else {
      dev.name = Fact<std::string>::unknown(
          fmt::format("{:04x}:{:04x} is not in {}", dev.vendor_id, dev.device_id, pci_ids_path));
    }
    (dev.vendor_id == k_nvidia_vendor ? scan.nvidia_gpus : scan.other_displays)
        .push_back(std::move(dev));
  }
  facts.pci = Fact<PciScan>::known(std::move(scan), fmt::format("dir:{}", k_pci_dir));
}

} // namespace doctor::collect
