// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/model/finding.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

// Small shared pieces for writing checks: evidence from facts, names of things, fix tags.
namespace doctor::checks {

// Evidence for a fact: its source and value, or "unknown, because …".
template<typename T>
Evidence evidence_of(const facts::Fact<T>& fact, std::string_view what) {
  if (fact.has_value()) {
    if constexpr (std::is_same_v<T, Version>) {
      return Evidence{fact.source(), fmt::format("{}: {}", what, fact.value().str())};
    } else if constexpr (std::is_same_v<T, bool>) {
      return Evidence{fact.source(), fmt::format("{}: {}", what, fact.value() ? "yes" : "no")};
    } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
      return Evidence{fact.source(), fmt::format("{}: {}", what, fact.value())};
    } else {
      return Evidence{fact.source(), fmt::format("{}: known", what)};
    }
  }
  return Evidence{"unknown", fmt::format("{}: unknown, because {}", what, fact.reason())};
}

// "NVIDIA 10de:2330 GH100 [H100 SXM5 80GB] at 0000:01:00.0".
std::string describe_gpu(const facts::PciDevice& gpu);

// Tags of the examined distribution for picking fixes: "debian", "ubuntu" or "rhel".
std::vector<std::string> distro_tags(const facts::Facts& facts);

// Tags and parameters for reinstalling the package that owns a cuDNN installation:
// {"pip"}, "nvidia-cudnn-cu12==9.1.0.70" / {"dpkg"}, "libcudnn9-cuda-12" / {"conda"}, "cudnn".
struct PackageHint {
  std::vector<std::string> tags;
  std::string package;      // bare name, or "(none)"
  std::string package_spec; // name with pinned version, or "(none)"
};
PackageHint package_hint(const facts::CudnnInstall& install);

// The loader walk, answered from the snapshot. Returns nothing for a facts file that never had
// a loader walk (not Linux, or an older snapshot).
std::vector<loader::LoadContext> loader_contexts(const facts::Facts& facts,
                                                 const kb::KnowledgeBase& kb);

} // namespace doctor::checks
