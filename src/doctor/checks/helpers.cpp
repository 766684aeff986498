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

namespace {

// "/a/b/libx.so" -> {"/a/b", "libx.so"}.
std::pair<std::string_view, std::string_view> split_path(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) {
    return {"", path};
  }
  return {path.substr(0, slash), path.substr(slash + 1)};
}

// Steps k and k+1 belong to one run: the same source, outcome and file name, in another folder.
bool same_run(const loader::SearchStep& a, const loader::SearchStep& b) {
  return !a.path.empty() && !b.path.empty() && a.source == b.source && a.outcome == b.outcome
         && split_path(a.path).second == split_path(b.path).second;
}

} // namespace

// A search over many folders (a LD_LIBRARY_PATH of hundreds of cuDNN folders) repeats one line
// per folder, and every finding about that search repeats them all again: the report grows with
// the square of the folders. A run of k_search_run or more steps that differ only in the folder
// is said once, with its count and its first and last folder, so each finding stays the same size.
void add_search_steps(const loader::Resolution& r, FindingDraft& d) {
  const std::vector<loader::SearchStep>& steps = r.steps;
  const auto run_line = [&](std::size_t number,
                            std::size_t count,
                            const loader::SearchStep& first,
                            std::string_view last_path) {
    d.evidence.push_back(
        Evidence{fmt::format("{}-{}. {}", number, number + count - 1, first.source),
                 fmt::format("{}: {} in each of {} folders, from {} to {}",
                             split_path(first.path).second,
                             first.outcome,
                             count,
                             split_path(first.path).first,
                             split_path(last_path).first)});
  };
  std::size_t number = 1; // of the next path considered (a folded step stands for several)
  for (std::size_t i = 0; i < steps.size();) {
    if (steps[i].count > 1) { // folded by the search itself
      run_line(number, steps[i].count, steps[i], steps[i].last_path);
      number += steps[i].count;
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < steps.size() && steps[end].count == 1 && same_run(steps[end - 1], steps[end])) {
      ++end;
    }
    if (end - i < k_search_run) {
      for (; i < end; ++i) {
        const loader::SearchStep& s = steps[i];
        d.evidence.push_back(
            Evidence{fmt::format("{}. {}", number++, s.source),
                     s.path.empty() ? s.outcome : fmt::format("{}: {}", s.path, s.outcome)});
      }
      continue;
    }
    run_line(number, end - i, steps[i], steps[end - 1].path);
    number += end - i;
    i = end;
  }
}

std::size_t paths_searched(const loader::Resolution& r) {
  std::size_t n = 0;
  for (const loader::SearchStep& s : r.steps) {
    n += s.path.empty() ? 0 : s.count;
  }
  return n;
}

namespace {

// The innermost LoaderWalks of this thread, or null. Scoped, not global state: each LoaderWalks
// sets it for its own lifetime and restores the one before.
thread_local LoaderWalks* t_walks = nullptr;

LoaderWalks* walks_for(const facts::Facts& facts, const kb::KnowledgeBase& kb) {
  return t_walks != nullptr && &t_walks->facts() == &facts && &t_walks->kb() == &kb ? t_walks
                                                                                    : nullptr;
}

} // namespace

LoaderWalks::LoaderWalks(const facts::Facts& facts, const kb::KnowledgeBase& kb)
    : m_facts(facts)
    , m_kb(kb)
    , m_outer(t_walks) {
  t_walks = this;
}

LoaderWalks::~LoaderWalks() {
  t_walks = m_outer;
}

namespace {

// The walk of `os` that `analyse` makes from the facts, shared through `slot` of the LoaderWalks
// of these facts when there is one.
template<typename Context, typename Analyse>
std::shared_ptr<const std::vector<Context>>
shared_walk(const facts::Facts& facts,
            const kb::KnowledgeBase& kb,
            std::string_view os,
            std::shared_ptr<const std::vector<Context>> LoaderWalks::*slot,
            Analyse analyse) {
  LoaderWalks* walks = walks_for(facts, kb);
  if (walks != nullptr && walks->*slot) {
    return walks->*slot;
  }
  auto walk = std::make_shared<std::vector<Context>>();
  if (facts.collection.os_family == os && !facts.probed_paths.empty()) {
    loader::FactsProbe probe(facts);
    *walk = analyse(facts, kb, probe);
  }
  if (walks != nullptr) {
    walks->*slot = walk;
  }
  return walk;
}

} // namespace

std::shared_ptr<const std::vector<loader::LoadContext>>
loader_contexts(const facts::Facts& facts, const kb::KnowledgeBase& kb) {
  return shared_walk(facts, kb, "linux", &LoaderWalks::linux_walk, loader::analyse_linux);
}

std::shared_ptr<const std::vector<loader::WindowsLoadContext>>
windows_loader_contexts(const facts::Facts& facts, const kb::KnowledgeBase& kb) {
  return shared_walk(facts, kb, "windows", &LoaderWalks::windows_walk, loader::analyse_windows);
}

} // namespace doctor::checks
