// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/model/finding.hpp>

#include <fmt/format.h>

#include <memory>
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

// The first of `gpus` (not empty) and how many others: "NVIDIA 10de:2330 … (and 3 more)".
std::string describe_gpus(const std::vector<facts::PciDevice>& gpus);

// One evidence line per NVIDIA GPU of the PCI scan (which must be known): the GPU and the kernel
// driver bound to it.
void add_gpu_evidence(const facts::Facts& facts, FindingDraft& d);

// True if the PCI bus shows an NVIDIA GPU that no NVIDIA driver serves: Linux, no NVIDIA kernel
// module loaded, NVML lists no GPU, and nouveau holds none of them (nouveau reports that case).
// driver_loaded and module_for_kernel then tell why.
bool gpus_without_driver(const facts::Facts& facts);

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

// One evidence line per library of a cuDNN installation: its file, size and version.
void add_cudnn_library_evidence(const facts::CudnnInstall& install, FindingDraft& d);

// Steps of a search that differ only in the folder, this many or more in a row, make one line.
inline constexpr std::size_t k_search_run = 8;

// Evidence lines for a loader search: every path considered, numbered in the loader's order; a
// run of k_search_run or more steps with the same source, file name and outcome is one line
// ("2-201. LD_LIBRARY_PATH": "libx.so.9: absent in each of 200 folders, from /a to /z").
void add_search_steps(const loader::Resolution& r, FindingDraft& d);

// How many paths a loader search tried (its steps that name a path).
std::size_t paths_searched(const loader::Resolution& r);

// The loader walk, answered from the snapshot. Returns nothing for a facts file that never had
// a loader walk (not Linux, or an older snapshot). Under a LoaderWalks of the same facts and
// knowledge base, the walk is made once and shared.
std::shared_ptr<const std::vector<loader::LoadContext>>
loader_contexts(const facts::Facts& facts, const kb::KnowledgeBase& kb);

// The Windows loader walk, answered from the snapshot. Returns nothing for a facts file that is not
// Windows or never had a loader walk. Shared under a LoaderWalks, as loader_contexts().
std::shared_ptr<const std::vector<loader::WindowsLoadContext>>
windows_loader_contexts(const facts::Facts& facts, const kb::KnowledgeBase& kb);

// While one lives on a thread, loader_contexts() and windows_loader_contexts() of exactly these
// facts and knowledge base walk once and answer later calls with the same walk: the checks of
// one run_checks() ask for it six times, and a walk is the dearest part of judging a machine.
// The facts and the knowledge base must not change while it lives.
class LoaderWalks {
public:
  LoaderWalks(const facts::Facts& facts, const kb::KnowledgeBase& kb);
  ~LoaderWalks();
  LoaderWalks(const LoaderWalks&) = delete;
  LoaderWalks& operator=(const LoaderWalks&) = delete;

  const facts::Facts& facts() const { return m_facts; }
  const kb::KnowledgeBase& kb() const { return m_kb; }
  std::shared_ptr<const std::vector<loader::LoadContext>> linux_walk;
  std::shared_ptr<const std::vector<loader::WindowsLoadContext>> windows_walk;

private:
  const facts::Facts& m_facts;
  const kb::KnowledgeBase& m_kb;
  LoaderWalks* m_outer; // the one this replaced on this thread, restored at the end
};

} // namespace doctor::checks
