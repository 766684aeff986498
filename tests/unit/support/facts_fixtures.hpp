// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/runner.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/facts.hpp>

#include <algorithm>
#include <string>
#include <vector>

// In-memory facts for check and report tests: a machine described field by field, no files.
namespace doctor::test {

using facts::Fact;

inline Fact<std::string> known(std::string v, std::string source = "test") {
  return Fact<std::string>::known(std::move(v), std::move(source));
}

inline Fact<Version> known_version(const char* v, std::string source = "test") {
  return Fact<Version>::known(*Version::parse(v), std::move(source));
}

inline facts::PciDevice
nvidia_gpu(std::string address, std::uint32_t device_id, const char* driver) {
  facts::PciDevice d;
  d.address = std::move(address);
  d.vendor_id = 0x10de;
  d.device_id = device_id;
  d.class_code = 0x030200;
  d.name = known("GH100 [H100 SXM5 80GB]", "file:/usr/share/misc/pci.ids");
  d.driver = driver != nullptr ? known(driver, "link:driver")
                               : Fact<std::string>::unknown("no kernel driver is bound");
  return d;
}

// A Linux machine with no GPU on its PCI bus and no driver: this project's CI machines.
inline facts::Facts machine_without_gpu() {
  facts::Facts f;
  f.os.id = known("debian");
  facts::PciScan scan;
  scan.devices_scanned = 6;
  f.pci = Fact<facts::PciScan>::known(scan, "dir:/sys/bus/pci/devices");
  f.driver.kernel_module_version = Fact<std::string>::unknown(
      "/proc/driver/nvidia/version does not exist: the NVIDIA kernel module is not loaded");
  f.driver.nvml.status = "init_failed";
  f.driver.nvml.detail = "nvmlInit_v2 returned 9 (Driver Not Loaded)";
  f.driver.nvml.devices = Fact<std::vector<facts::NvmlDevice>>::unknown(f.driver.nvml.detail);
  return f;
}

// A cuDNN installation with the given members, all of `version` unless given per member.
inline facts::CudnnInstall
cudnn_install(std::string dir,
              unsigned major,
              const std::vector<std::pair<std::string, std::string>>& members,
              const char* header_version = nullptr) {
  facts::CudnnInstall inst;
  inst.dir = std::move(dir);
  inst.major = major;
  for (const auto& [member, version] : members) {
    facts::CudnnLibrary lib;
    lib.name = member;
    lib.member = member;
    lib.major = major;
    lib.real_path = inst.dir + "/" + member
                    + (version.empty() ? "" : "." + version.substr(version.find('.') + 1));
    lib.size = 1000;
    lib.version = version.empty()
                      ? Fact<Version>::unknown("no version in the name")
                      : Fact<Version>::known(*Version::parse(version), "name:" + lib.real_path);
    inst.libraries.push_back(std::move(lib));
  }
  inst.header_version = header_version != nullptr ? known_version(header_version)
                                                  : Fact<Version>::unknown("no header");
  inst.version = inst.header_version;
  inst.package = Fact<std::string>::unknown("no package manager records these files");
  return inst;
}

inline std::vector<std::string> ids_of(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) {
    out.push_back(f.id);
  }
  return out;
}

inline bool has_id(const std::vector<Finding>& findings, std::string_view id) {
  return std::any_of(
      findings.begin(), findings.end(), [&](const Finding& f) { return f.id == id; });
}

inline const Finding* find_id(const std::vector<Finding>& findings, std::string_view id) {
  for (const Finding& f : findings) {
    if (f.id == id) {
      return &f;
    }
  }
  return nullptr;
}

inline std::vector<Finding> run_all(const facts::Facts& f) {
  static const kb::KnowledgeBase k_kb = *kb::KnowledgeBase::load_embedded();
  return checks::run_checks(f, k_kb, checks::all_checks());
}

} // namespace doctor::test
