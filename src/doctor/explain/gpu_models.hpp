// SPDX-License-Identifier: MIT
// The GPU models a report names ("RTX 2080 Ti", "GeForce GTX 1070Ti", "Tesla T4",
// "A100-SXM4-40GB"), read against the model names of the knowledge base (gpus.json "pci_ids"),
// so that explain can compare the GPU's architecture with the CUDA release the report names:
// a Turing card under CUDA 9.0 has no code to run, whatever error followed.
#pragma once

#include <doctor/explain/analysis.hpp>
#include <doctor/explain/versions.hpp>
#include <doctor/kb/compat.hpp>
#include <doctor/util/version.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace doctor::explain {

struct GpuMention {
  std::string name;         // the knowledge base's name: "GeForce RTX 2080 Ti"
  std::vector<Version> ccs; // every compute capability a model of that name has (GT 730: three)
  std::size_t begin = 0;    // the phrase's span in the line
  std::size_t end = 0;
};

// The model names of a knowledge base, as sequences of words. A name is read without its vendor
// words ("NVIDIA", "GeForce", "Tesla") and without what follows its model number (memory size,
// "Laptop GPU", "PCIe", "SXM4"), and matches a report's words whole, ASCII case ignored, spaces
// optional between words ("RTX2080 Ti"): "GTX 1070" is not read in "GTX 10700", nor "T4" in
// "T400". Where the name joins letters and digits ("A100", "T4"), the report must too, so "a 100"
// is not an A100. Names that begin with a number are left out, and a two-character name that
// begins a cloud machine type ("a2-highgpu-8g") is not read.
class GpuNames {
public:
  explicit GpuNames(const kb::CompatTables& compat);

  // Every model `line` names, in order; where two names overlap, the longer one ("RTX 2080 Ti",
  // not "RTX 2080"). A line is read up to 8 KiB.
  std::vector<GpuMention> find(std::string_view line) const;

private:
  struct Key {
    std::vector<std::string> words; // "rtx", "2080", "ti"; "a", "100"
    std::vector<bool> joined;       // joined[i]: word i follows word i-1 without a separator
    std::string name;
    std::vector<Version> ccs;
  };
  static bool cloud_machine_type(const Key& key, std::string_view line, std::size_t end);

  std::vector<Key> m_keys;
  std::unordered_map<std::string, std::vector<std::size_t>> m_by_first; // first word -> keys
};

// Whether `line` may name a GPU model (ASCII case ignored: a vendor or series word such as
// "geforce", "rtx", "tesla", "nvidia" or "gpu"): the cheap test that decides which lines of a
// report's head are kept for GpuNames::find().
bool may_name_gpu(std::string_view line);

// The GPU refinement (analysis.hpp): the first GPU model named in `lines` (the heads' version and
// GPU lines) that a CUDA release named in `cuda` cannot serve: every compute capability of that
// name is newer than the release's toolkit compiles for (gpus.json first_cuda), or dropped at or
// before it (removed_in_cuda). Only releases the knowledge base knows a toolkit of count (so a
// package's own "CUDA: 5.4.3" is no CUDA), and not the driver's newest CUDA. The cause
// (log.gpu_newer_than_cuda or log.gpu_dropped_by_cuda) carries the model, its compute
// capability and architecture and both releases, with the GPU's line and the CUDA's.
std::optional<RankedCause>
gpu_outside_cuda(const std::vector<const EvidenceLine*>& lines,
                 const std::vector<std::pair<const EvidenceLine*, VersionMention>>& cuda,
                 const kb::CompatTables& compat);

} // namespace doctor::explain
