// SPDX-License-Identifier: MIT
#include <doctor/checks/helpers.hpp>
#include <doctor/loader/facts_probe.hpp>
#include <doctor/util/strings.hpp>

namespace doctor::checks {

std::string describe_gpu(const facts::PciDevice& gpu) {
  std::string out = fmt::format("NVIDIA {:04x}:{:04x}", gpu.vendor_id, gpu.device_id);
  if (gpu.name) {
    out += " " + *gpu.name;
  }
  return out + " at " + gpu.address;
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

std::vector<loader::LoadContext> loader_contexts(const facts::Facts& facts,
                                                 const kb::KnowledgeBase& kb) {
  if (facts.collection.os_family != "linux" || facts.probed_paths.empty()) {
    return {};
  }
  loader::FactsProbe probe(facts);
  return loader::analyse_linux(facts, kb, probe);
}

} // namespace doctor::checks
