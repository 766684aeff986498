// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>

// Family 2 of the troubleshooting guide (display-driver conflicts): which GPUs the machine has
// and which driver serves them, nouveau in the NVIDIA driver's place, a kernel module and
// user-space libraries of different releases, a module without its user-space library.
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

bool bound_to(const facts::PciDevice& gpu, std::string_view driver) {
  return gpu.driver && *gpu.driver == driver;
}

} // namespace

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
    d.id = ids::k_gpu_presence_unknown;
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
  d.id = ids::k_gpu_not_found;
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

// The loaded kernel module and the user-space driver libraries must be the same release:
// libcuda and NVML refuse to talk to a module of another version ("Driver/library version
// mismatch", cudaErrorSystemDriverMismatch 803). Typical after a driver package update without a
// reboot.
void check_driver_version_mismatch(const facts::Facts& facts,
                                   const kb::KnowledgeBase&,
                                   FindingSink& out) {
  const auto& drv = facts.driver;
  if (!drv.kernel_module_version) {
    return;
  }
  std::vector<std::string> differing;
  FindingDraft d;
  for (const facts::DriverLibrary& lib : drv.libraries) {
    // NVIDIA's forward-compatibility package (cuda-compat: /usr/local/cuda-X/compat) is a newer
    // libcuda meant to run over an older module on data-center GPUs; it differs on purpose.
    const bool forward_compat = lib.path.find("/compat/") != std::string::npos;
    if (lib.stub || forward_compat || !lib.version || *lib.version == *drv.kernel_module_version) {
      continue;
    }
    differing.push_back(fmt::format("{} {} ({})", lib.name, *lib.version, lib.path));
    d.evidence.push_back(evidence_of(lib.version, lib.name + " " + lib.path));
  }
  const bool nvml_says = drv.nvml.init_result && *drv.nvml.init_result == 18;
  if (differing.empty() && !nvml_says) {
    return;
  }
  d.id = ids::k_driver_version_mismatch;
  d.subject = "NVIDIA driver";
  d.params = {{"module_version", *drv.kernel_module_version},
              {"libraries", differing.empty() ? std::string("NVML") : util::join(differing, "; ")}};
  d.evidence.insert(d.evidence.begin(),
                    evidence_of(drv.kernel_module_version, "loaded NVIDIA kernel module"));
  if (nvml_says) {
    d.evidence.push_back(Evidence{drv.nvml.init_result.source(),
                                  "nvmlInit_v2 returned 18 (NVML_ERROR_LIB_RM_VERSION_MISMATCH)"});
  }
  d.tags = distro_tags(facts);
  out.add(std::move(d));
}

void check_driver_loaded(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  // A kernel updated past its NVIDIA module is os_updates' module_for_kernel.
  if (!gpus_without_driver(facts) || module_missing_for_kernel(facts)) {
    return;
  }
  const auto& gpus = facts.pci->nvidia_gpus;
  FindingDraft d;
  d.id = ids::k_driver_not_loaded;
  d.subject = gpus.front().address;
  std::string reason = facts.driver.kernel_module_version.reason();
  if (std::any_of(
          gpus.begin(), gpus.end(), [](const auto& g) { return bound_to(g, "vfio-pci"); })) {
    reason += "; the GPU is bound to vfio-pci, i.e. reserved for passthrough to a virtual machine";
  }
  d.params = {{"gpu", describe_gpus(gpus)}, {"reason", reason}};
  add_gpu_evidence(facts, d);
  d.evidence.push_back(evidence_of(facts.driver.kernel_module_version, "NVIDIA kernel module"));
  if (facts.driver.loaded_modules) {
    d.evidence.push_back(Evidence{facts.driver.loaded_modules.source(),
                                  "GPU modules loaded: "
                                      + (facts.driver.loaded_modules->empty()
                                             ? std::string("none")
                                             : util::join(*facts.driver.loaded_modules, ", "))});
  }
  for (const facts::DriverLibrary& lib : facts.driver.libraries) {
    if (!lib.stub) {
      d.evidence.push_back(Evidence{"file:" + lib.path,
                                    fmt::format("user-space driver library {} {}",
                                                lib.name,
                                                lib.version.value_or("(version unknown)"))});
    }
  }
  d.tags = distro_tags(facts);
  out.add(std::move(d));
}

void check_nouveau(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  if (!facts.pci || facts.pci->nvidia_gpus.empty()) {
    return;
  }
  const auto& gpus = facts.pci->nvidia_gpus;
  std::vector<facts::PciDevice> held;
  for (const facts::PciDevice& g : gpus) {
    if (bound_to(g, "nouveau")) {
      held.push_back(g);
    }
  }
  std::string how;
  if (!held.empty()) {
    how = "is bound to the GPU";
  } else if (facts.driver.nouveau_loaded.value_or(false)
             && std::any_of(gpus.begin(), gpus.end(), [](const auto& g) { return !g.driver; })) {
    how = "kernel module is loaded while the GPU has no driver bound";
    held = gpus;
  } else {
    return;
  }
  FindingDraft d;
  d.id = ids::k_driver_nouveau_bound;
  d.subject = held.front().address;
  d.params = {{"gpu", describe_gpus(held)}, {"how", how}};
  add_gpu_evidence(facts, d);
  d.evidence.push_back(evidence_of(facts.driver.nouveau_loaded, "nouveau module loaded"));
  d.tags = distro_tags(facts);
  out.add(std::move(d));
}

// A program asks for libcuda.so.1 (the CUDA runtime does) while the NVIDIA kernel module is
// loaded, and the loader finds none: the driver's user-space half is missing, typically a
// container that got the device nodes but not the driver's libraries.
void check_driver_library(const facts::Facts& facts,
                          const kb::KnowledgeBase& kb,
                          FindingSink& out) {
  if (!facts.driver.kernel_module_version) {
    return;
  }
  const auto contexts = loader_contexts(facts, kb);
  for (const loader::LoadContext& ctx : *contexts) {
    if (ctx.id != "program") {
      continue;
    }
    for (const loader::LoadStep& step : ctx.steps) {
      const loader::Resolution& r = step.resolution;
      if (step.role != loader::LibraryRole::driver || r.name != "libcuda.so.1" || r.chosen
          || r.unknown) {
        continue;
      }
      FindingDraft d;
      d.id = ids::k_loader_libcuda_not_found;
      d.subject = "libcuda.so.1";
      d.params = {{"module_version", *facts.driver.kernel_module_version},
                  {"searched", std::to_string(paths_searched(r))}};
      add_search_steps(r, d);
      out.add(std::move(d));
    }
  }
}

void check_nvml_probe(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& nvml = facts.driver.nvml;
  if (nvml.status != "probe_failed") {
    return;
  }
  FindingDraft d;
  d.id = ids::k_driver_nvml_probe_failed;
  d.subject = "NVML";
  d.params = {{"detail", nvml.detail}};
  d.evidence.push_back(Evidence{"probe:nvml", nvml.detail});
  d.evidence.push_back(evidence_of(facts.driver.kernel_module_version, "NVIDIA kernel module"));
  out.add(std::move(d));
}

} // namespace doctor::checks
