// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

// Family 8 of the troubleshooting guide (operating-system updates): on Linux, a kernel update
// that left the NVIDIA driver without a module for the kernel now running.
namespace doctor::checks {

namespace {

// A running kernel without an NVIDIA module while another kernel, or DKMS, has one.
struct ModuleGap {
  std::string running;
  bool running_listed = false; // /lib/modules/<running> exists (its modules.dep lists no NVIDIA)
  std::vector<std::string> others; // kernels that have an NVIDIA module
  bool dkms = false;               // DKMS holds an NVIDIA module tree to build from
};

// After a kernel update the NVIDIA module must be rebuilt (DKMS) or installed (a prebuilt
// linux-modules-nvidia package) for the new kernel; until then the running kernel has none, while
// the kernel booted before still has its copy. No NVIDIA module for any kernel and no DKMS tree
// means the driver was never installed: that is driver_loaded's finding, not this one.
std::optional<ModuleGap> module_gap(const facts::Facts& facts) {
  const auto& drv = facts.driver;
  if (!facts.os.kernel_release || !drv.installed_modules) {
    return std::nullopt;
  }
  ModuleGap gap;
  gap.running = *facts.os.kernel_release;
  for (const facts::KernelModules& k : *drv.installed_modules) {
    if (k.kernel_release == gap.running) {
      gap.running_listed = true;
      if (!k.nvidia_modules.empty()) {
        return std::nullopt;
      }
    } else if (!k.nvidia_modules.empty()) {
      gap.others.push_back(k.kernel_release);
    }
  }
  gap.dkms = drv.dkms_modules && !drv.dkms_modules->empty();
  if (gap.others.empty() && !gap.dkms) {
    return std::nullopt;
  }
  return gap;
}

} // namespace

bool module_missing_for_kernel(const facts::Facts& facts) {
  return module_gap(facts).has_value();
}

void check_module_for_kernel(const facts::Facts& facts,
                             const kb::KnowledgeBase&,
                             FindingSink& out) {
  if (!gpus_without_driver(facts)) {
    return;
  }
  const auto gap = module_gap(facts);
  if (!gap) {
    return;
  }
  const auto& drv = facts.driver;
  FindingDraft d;
  d.id = kb::ids::k_driver_module_missing_for_kernel;
  d.subject = facts.pci->nvidia_gpus.front().address;
  d.params = {
      {"gpu", describe_gpus(facts.pci->nvidia_gpus)},
      {"kernel", gap->running},
      {"others", gap->others.empty() ? std::string("none") : util::join(gap->others, ", ")},
      {"dkms", gap->dkms ? util::join(*drv.dkms_modules, ", ") : std::string("none")},
      {"dkms_module", gap->dkms ? drv.dkms_modules->back() : std::string("nvidia/VERSION")}};
  add_gpu_evidence(facts, d);
  d.evidence.push_back(evidence_of(facts.os.kernel_release, "running kernel"));
  d.evidence.push_back(evidence_of(drv.kernel_module_version, "NVIDIA kernel module"));
  d.evidence.push_back(
      Evidence{drv.installed_modules.source(),
               gap->running_listed
                   ? fmt::format("/lib/modules/{}/modules.dep lists no NVIDIA module", gap->running)
                   : fmt::format("/lib/modules/{} does not exist", gap->running)});
  for (const facts::KernelModules& k : *drv.installed_modules) {
    if (!k.nvidia_modules.empty()) {
      d.evidence.push_back(Evidence{
          drv.installed_modules.source(),
          fmt::format("kernel {}: {}", k.kernel_release, util::join(k.nvidia_modules, ", "))});
    }
  }
  d.evidence.push_back(evidence_of(drv.dkms_modules, "DKMS trees"));
  if (gap->dkms) {
    d.evidence.back().value = "DKMS trees: " + util::join(*drv.dkms_modules, ", ");
  }
  d.tags = distro_tags(facts);
  d.tags.emplace_back(gap->dkms ? "dkms" : "prebuilt");
  out.add(std::move(d));
}

} // namespace doctor::checks
