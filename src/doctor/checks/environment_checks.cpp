// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

namespace doctor::checks {

void check_multiple_toolkits(const facts::Facts& facts,
                             const kb::KnowledgeBase&,
                             FindingSink& out) {
  if (facts.cuda_toolkits.size() < 2) {
    return;
  }
  std::vector<std::string> items;
  FindingDraft d;
  d.id = "cuda.multiple_toolkits";
  d.subject = "CUDA toolkits";
  for (const facts::CudaToolkit& tk : facts.cuda_toolkits) {
    items.push_back(
        fmt::format("{} at {}", tk.version ? tk.version->str() : "unknown version", tk.path));
    d.evidence.push_back(
        Evidence{tk.version ? tk.version.source() : "dir:" + tk.path,
                 fmt::format("{} found via {}", tk.path, util::join(tk.found_via, ", "))});
  }
  d.params = {{"count", std::to_string(items.size())}, {"list", util::join(items, "; ")}};
  out.add(std::move(d));
}

void check_multiple_cudnn(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  if (facts.cudnn.size() < 2) {
    return;
  }
  std::vector<std::string> items;
  FindingDraft d;
  d.id = "cudnn.multiple_copies";
  d.subject = "cuDNN copies";
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    items.push_back(
        fmt::format("{} in {}",
                    inst.version ? inst.version->str() : fmt::format("{}.x", inst.major),
                    inst.dir));
    d.evidence.push_back(Evidence{"dir:" + inst.dir,
                                  fmt::format("{} libraries, found via {}",
                                              inst.libraries.size(),
                                              util::join(inst.found_via, ", "))});
  }
  d.params = {{"count", std::to_string(items.size())}, {"list", util::join(items, "; ")}};
  out.add(std::move(d));
}

} // namespace doctor::checks
