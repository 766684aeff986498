// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>

namespace doctor::checks {

namespace {

bool bound_to(const facts::PciDevice& gpu, std::string_view driver) {
  return gpu.driver && *gpu.driver == driver;
}

std::string describe_gpus(const std::vector<facts::PciDevice>& gpus) {
  std::string out = describe_gpu(gpus.front());
  if (gpus.size() > 1) {
    out += fmt::format(" (and {} more)", gpus.size() - 1);
  }
  return out;
}

void add_gpu_evidence(const facts::Facts& facts, FindingDraft& d) {
  for (const facts::PciDevice& gpu : facts.pci->nvidia_gpus) {
    d.evidence.push_back(
        Evidence{facts.pci.source(),
                 fmt::format("{}; kernel driver: {}",
                             describe_gpu(gpu),
                             gpu.driver ? *gpu.driver : "none (" + gpu.driver.reason() + ")")});
  }
}

// After a kernel update the NVIDIA module must be rebuilt (DKMS) or installed (a prebuilt
// linux-modules-nvidia package) for the new kernel; until then the running kernel has none, while
// the kernel booted before still has its copy. Fills `d` and returns true in that case.
bool module_missing_for_kernel(const facts::Facts& facts, FindingDraft& d) {
  const auto& drv = facts.driver;
  if (!facts.os.kernel_release || !drv.installed_modules) {
    return false;
  }
  const std::string& running = *facts.os.kernel_release;
  std::vector<std::string> others;
  bool running_listed = false;
  for (const facts::KernelModules& k : *drv.installed_modules) {
    if (k.kernel_release == running) {
      running_listed = true;
      if (!k.nvidia_modules.empty()) {
        return false;
      }
    } else if (!k.nvidia_modules.empty()) {
      others.push_back(k.kernel_release);
    }
  }
  const bool dkms = drv.dkms_modules && !drv.dkms_modules->empty();
  if (others.empty() && !dkms) {
    return false; // no NVIDIA module for any kernel: the driver is not installed at all
  }
  d.id = "driver.module_missing_for_kernel";
  d.params = {{"gpu", describe_gpus(facts.pci->nvidia_gpus)},
              {"kernel", running},
              {"others", others.empty() ? std::string("none") : util::join(others, ", ")},
              {"dkms", dkms ? util::join(*drv.dkms_modules, ", ") : std::string("none")},
              {"dkms_module", dkms ? drv.dkms_modules->back() : std::string("nvidia/VERSION")}};
  add_gpu_evidence(facts, d);
  d.evidence.push_back(evidence_of(facts.os.kernel_release, "running kernel"));
  d.evidence.push_back(evidence_of(drv.kernel_module_version, "NVIDIA kernel module"));
  d.evidence.push_back(Evidence{
      drv.installed_modules.source(),
      running_listed ? fmt::format("/lib/modules/{}/modules.dep lists no NVIDIA module", running)
                     : fmt::format("/lib/modules/{} does not exist", running)});
  for (const facts::KernelModules& k : *drv.installed_modules) {
    if (!k.nvidia_modules.empty()) {
      d.evidence.push_back(Evidence{
          drv.installed_modules.source(),
          fmt::format("kernel {}: {}", k.kernel_release, util::join(k.nvidia_modules, ", "))});
    }
  }
  d.evidence.push_back(evidence_of(drv.dkms_modules, "DKMS trees"));
  if (drv.dkms_modules && !drv.dkms_modules->empty()) {
    d.evidence.back().value = "DKMS trees: " + util::join(*drv.dkms_modules, ", ");
  }
  d.tags = distro_tags(facts);
  d.tags.emplace_back(dkms ? "dkms" : "prebuilt");
  return true;
}

} // namespace

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
  d.id = "driver.version_mismatch";
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
  if (!facts.pci || facts.pci->nvidia_gpus.empty() || facts.driver.kernel_module_version) {
    return;
  }
  // Linux kernel modules only; and NVML listing GPUs proves a working driver whatever the files
  // say.
  const auto& nvml = facts.driver.nvml;
  if (facts.collection.os_family != "linux" || (nvml.devices && !nvml.devices->empty())) {
    return;
  }
  const auto& gpus = facts.pci->nvidia_gpus;
  // nouveau holding the GPU is the root cause; driver_nouveau reports it.
  if (std::any_of(gpus.begin(), gpus.end(), [](const auto& g) { return bound_to(g, "nouveau"); })) {
    return;
  }
  FindingDraft d;
  d.id = "driver.not_loaded";
  d.subject = gpus.front().address;
  if (module_missing_for_kernel(facts, d)) {
    out.add(std::move(d));
    return;
  }
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
  d.id = "driver.nouveau_bound";
  d.subject = held.front().address;
  d.params = {{"gpu", describe_gpus(held)}, {"how", how}};
  add_gpu_evidence(facts, d);
  d.evidence.push_back(evidence_of(facts.driver.nouveau_loaded, "nouveau module loaded"));
  d.tags = distro_tags(facts);
  out.add(std::move(d));
}

// NVML creates /dev/nvidiactl as root even without a driver, so only the per-GPU nodes
// (/dev/nvidia0, /dev/nvidia1, …) show that a program here can open a GPU.
void check_device_nodes(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& drv = facts.driver;
  if (!drv.kernel_module_version || !drv.device_nodes) {
    return;
  }
  std::vector<std::string> names;
  bool gpu_node = false;
  for (const facts::DeviceNode& n : *drv.device_nodes) {
    names.push_back(n.path);
    const std::string_view path = n.path;
    const std::string_view name = path.substr(path.rfind('/') + 1);
    if (name.size() > 6 && util::parse_uint(name.substr(6)) && n.kind == "character_device") {
      gpu_node = true;
    }
  }
  if (gpu_node) {
    return;
  }
  FindingDraft d;
  d.id = "driver.device_nodes_missing";
  d.subject = "/dev/nvidia*";
  d.params = {{"module_version", *drv.kernel_module_version},
              {"nodes", names.empty() ? std::string("none") : util::join(names, ", ")}};
  d.evidence.push_back(evidence_of(drv.kernel_module_version, "NVIDIA kernel module"));
  d.evidence.push_back(
      Evidence{drv.device_nodes.source(),
               names.empty() ? "no /dev/nvidia* entries" : "entries: " + util::join(names, ", ")});
  out.add(std::move(d));
}

void check_nvml_probe(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& nvml = facts.driver.nvml;
  if (nvml.status != "probe_failed") {
    return;
  }
  FindingDraft d;
  d.id = "driver.nvml_probe_failed";
  d.subject = "NVML";
  d.params = {{"detail", nvml.detail}};
  d.evidence.push_back(Evidence{"probe:nvml", nvml.detail});
  d.evidence.push_back(evidence_of(facts.driver.kernel_module_version, "NVIDIA kernel module"));
  out.add(std::move(d));
}

} // namespace doctor::checks
