// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>

namespace doctor::checks {

// A GPU counts as present if the PCI bus shows an NVIDIA display-class device or NVML lists one.
// The PCI scan works without any driver, so "none on the bus" is a strong statement; when the
// scan itself is unknown (a tree without /sys) the answer is "unknown", never "no GPU".
void check_gpu_presence(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& nvml = facts.driver.nvml;
  const bool nvml_sees_gpu = nvml.devices && !nvml.devices->empty();
  if (nvml_sees_gpu) {
    return;
  }
  if (!facts.pci) {
    FindingDraft d;
    d.id = "gpu.presence_unknown";
    d.subject = "GPU";
    d.params = {
        {"reason",
         facts.pci.reason() + "; NVML: " + (nvml.detail.empty() ? nvml.status : nvml.detail)}};
    d.evidence.push_back(evidence_of(facts.pci, "PCI scan"));
    d.evidence.push_back(Evidence{"nvml", fmt::format("status {}: {}", nvml.status, nvml.detail)});
    out.add(std::move(d));
    return;
  }
  if (!facts.pci->nvidia_gpus.empty()) {
    return;
  }
  FindingDraft d;
  d.id = "gpu.not_found";
  d.subject = "GPU";
  std::string nvml_note;
  if (nvml.status == "ok") {
    nvml_note = "NVML lists no device either";
  } else if (nvml.status == "not_attempted") {
    nvml_note = "NVML was not queried: " + nvml.detail;
  } else {
    nvml_note = "NVML: " + nvml.detail;
  }
  d.params = {{"scanned", std::to_string(facts.pci->devices_scanned)}, {"nvml", nvml_note}};
  d.evidence.push_back(Evidence{
      facts.pci.source(),
      fmt::format("{} PCI devices, none with vendor id 10de and a display class (0x03xxxx)",
                  facts.pci->devices_scanned)});
  for (const facts::PciDevice& other : facts.pci->other_displays) {
    d.evidence.push_back(Evidence{facts.pci.source(),
                                  fmt::format("other display adapter {:04x}:{:04x} {} at {}",
                                              other.vendor_id,
                                              other.device_id,
                                              other.name.value_or("(unnamed)"),
                                              other.address)});
  }
  d.evidence.push_back(evidence_of(facts.driver.kernel_module_version, "NVIDIA kernel module"));
  d.tags.push_back(facts.driver.kernel_module_version ? "module_loaded" : "no_module");
  d.evidence.push_back(Evidence{nvml.library ? "nvml:" + *nvml.library : "nvml",
                                nvml.detail.empty()
                                    ? "status " + nvml.status
                                    : fmt::format("status {}: {}", nvml.status, nvml.detail)});
  out.add(std::move(d));
}

} // namespace doctor::checks
