// SPDX-License-Identifier: MIT
#include <doctor/checks/helpers.hpp>
#include <doctor/loader/facts_probe.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>

namespace doctor::checks {

std::string describe_gpu(const facts::PciDevice& gpu) {
  std::string out = fmt::format("NVIDIA {:04x}:{:04x}", gpu.vendor_id, gpu.device_id);
  if (gpu.name) {
    out += " " + *gpu.name;
  }
  return out + " at " + gpu.address;
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

bool gpus_without_driver(const facts::Facts& facts) {
  if (!facts.pci || facts.pci->nvidia_gpus.empty() || facts.driver.kernel_module_version) {
    return false;
  }
  // Linux kernel modules only; and NVML listing GPUs proves a working driver whatever the files
  // say.
  const auto& nvml = facts.driver.nvml;
  if (facts.collection.os_family != "linux" || (nvml.devices && !nvml.devices->empty())) {
    return false;
  }
  const auto& gpus = facts.pci->nvidia_gpus;
  return std::none_of(gpus.begin(), gpus.end(), [](const facts::PciDevice& g) {
    return g.driver && *g.driver == "nouveau";
  });
}

std::vector<std::string> distro_tags(const facts::Facts& facts) {
  if (!facts.os.id) {
    return {};
  }
  const std::string id = util::to_lower(*facts.os.id);
  if (id == "debian") {
    return {"debian"};
  }
  if (id == "ubuntu" || id == "pop" || id == "linuxmint") {
    return {"ubuntu"};
  }
  if (id == "rhel" || id == "centos" || id == "rocky" || id == "almalinux" || id == "fedora"
      || id == "ol" || id == "amzn") {
    return {"rhel"};
  }
  return {};
}

PackageHint package_hint(const facts::CudnnInstall& install) {
  PackageHint hint{{}, "(none)", "(none)"};
  if (!install.package) {
    return hint;
  }
  // package text: "<manager> <name> <version>"
  const auto parts = util::split(*install.package, ' ');
  if (parts.size() != 3) {
    return hint;
  }
  const std::string manager(parts[0]);
  hint.tags.push_back(manager);
  hint.package = std::string(parts[1]);
  if (manager == "pip" || manager == "conda") {
    hint.package_spec = fmt::format("{}=={}", parts[1], parts[2]);
  } else if (manager == "dpkg") {
    hint.package_spec = fmt::format("{}={}", parts[1], parts[2]);
  } else {
    hint.package_spec = hint.package;
  }
  return hint;
}

void add_cudnn_library_evidence(const facts::CudnnInstall& inst, FindingDraft& d) {
  for (const facts::CudnnLibrary& lib : inst.libraries) {
    d.evidence.push_back(Evidence{
        lib.version ? lib.version.source() : "file:" + lib.real_path,
        fmt::format("{} -> {} ({} bytes), version {}",
                    lib.name,
                    lib.real_path,
                    lib.size,
                    lib.version ? lib.version->str() : "unknown: " + lib.version.reason())});
  }
}

void add_search_steps(const loader::Resolution& r, FindingDraft& d) {
  std::size_t n = 0;
  for (const loader::SearchStep& s : r.steps) {
    d.evidence.push_back(
        Evidence{fmt::format("{}. {}", ++n, s.source),
                 s.path.empty() ? s.outcome : fmt::format("{}: {}", s.path, s.outcome)});
  }
}

std::size_t paths_searched(const loader::Resolution& r) {
  return static_cast<std::size_t>(std::count_if(
      r.steps.begin(), r.steps.end(), [](const loader::SearchStep& s) { return !s.path.empty(); }));
}

std::vector<loader::LoadContext> loader_contexts(const facts::Facts& facts,
                                                 const kb::KnowledgeBase& kb) {
  if (facts.collection.os_family != "linux" || facts.probed_paths.empty()) {
    return {};
  }
  loader::FactsProbe probe(facts);
  return loader::analyse_linux(facts, kb, probe);
}

} // namespace doctor::checks
