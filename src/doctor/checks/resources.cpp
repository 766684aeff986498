// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

// Family 5 of the troubleshooting guide (resource exhaustion), from what a collection records:
// the host memory (RAM and swap, or the page file on Windows) against the memory of the GPUs it
// has to feed. What runs out while a program runs (VRAM, batch sizes) is in its error text and
// the crash evidence, for `explain` and `crashes`.
namespace doctor::checks {

namespace {

constexpr std::uint64_t k_mib = std::uint64_t{1} << 20U;
constexpr std::uint64_t k_gib = std::uint64_t{1} << 30U;

// A sum that stops at the largest value instead of wrapping: a hostile snapshot's sizes must not
// add up to a small number.
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// "15.5 GiB".
std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / static_cast<double>(k_gib));
}

// "its GPU (NVIDIA GeForce RTX 4090)", "its 3 GPUs (2 NVIDIA A100-SXM4-40GB, 1 Tesla T4)".
std::string describe_devices(const std::vector<facts::NvmlDevice>& devices) {
  std::vector<std::pair<std::string, unsigned>> kinds; // name, count; in order of appearance
  for (const facts::NvmlDevice& dev : devices) {
    const std::string name = dev.name.value_or("NVIDIA GPU");
    const auto it = std::find_if(
        kinds.begin(), kinds.end(), [&](const auto& kind) { return kind.first == name; });
    if (it == kinds.end()) {
      kinds.emplace_back(name, 1);
    } else {
      ++it->second;
    }
  }
  if (devices.size() == 1) {
    return fmt::format("its GPU ({})", kinds.front().first);
  }
  std::vector<std::string> parts;
  parts.reserve(kinds.size());
  for (const auto& [name, count] : kinds) {
    parts.push_back(fmt::format("{} {}", count, name));
  }
  return fmt::format("its {} GPUs ({})", devices.size(), util::join(parts, ", "));
}

} // namespace

// RAM plus swap (page file) below the GPUs' total memory. Frameworks stage weights in host
// memory on their way to the GPU: the usual PyTorch workflow (build the model, torch.load the
// checkpoint, load_state_dict) and Hugging Face's default loading hold two full copies at the
// peak, low_cpu_mem_usage=True one. Below this line not even one copy of a model sized to fill
// the GPUs fits, so only memory-mapped loading (safetensors, torch.load(mmap=True)), which
// leaves the checkpoint in the page cache, can load it. The threshold is the doctor's choice
// (docs/knowledge-base.md, "resources"), with its sources in the row's `source`. Unknown sizes
// give no finding: a guess is not a diagnosis.
void check_host_memory(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& devices = facts.driver.nvml.devices;
  if (!devices || devices->empty() || !facts.os.memory_total || !facts.os.swap_total) {
    return;
  }
  std::uint64_t gpu_total = 0;
  for (const facts::NvmlDevice& dev : *devices) {
    if (!dev.memory_total) {
      return;
    }
    gpu_total = saturating_add(gpu_total, *dev.memory_total);
  }
  const std::uint64_t ram = *facts.os.memory_total;
  const std::uint64_t swap = *facts.os.swap_total;
  const std::uint64_t host = saturating_add(ram, swap);
  if (host >= gpu_total) {
    return;
  }
  const bool windows = facts.collection.os_family == "windows";
  const std::string swap_kind = windows ? "page file" : "swap";
  const std::uint64_t shortfall_gib = ceil_div(gpu_total - host, k_gib);
  FindingDraft d;
  d.id = kb::ids::k_resources_host_memory_below_gpu_memory;
  d.subject = "host memory";
  d.params = {{"ram", gib(ram)},
              {"swap", gib(swap)},
              {"swap_kind", swap_kind},
              {"host", gib(host)},
              {"gpu_memory", gib(gpu_total)},
              {"gpus", describe_devices(*devices)},
              {"shortfall", fmt::format("{} GiB", shortfall_gib)},
              {"swap_add", fmt::format("{}G", shortfall_gib)},
              // The page file replaces the old one: it alone must cover what RAM does not.
              {"pagefile_mb", std::to_string(ceil_div(gpu_total - ram, k_mib))}};
  d.evidence.push_back(
      Evidence{facts.os.memory_total.source(), fmt::format("RAM: {} ({} bytes)", gib(ram), ram)});
  d.evidence.push_back(Evidence{facts.os.swap_total.source(),
                                fmt::format("{}: {} ({} bytes)", swap_kind, gib(swap), swap)});
  for (const facts::NvmlDevice& dev : *devices) {
    d.evidence.push_back(Evidence{dev.memory_total.source(),
                                  fmt::format("GPU {} {}: {} of memory ({} bytes)",
                                              dev.index,
                                              dev.name.value_or("(name unknown)"),
                                              gib(*dev.memory_total),
                                              *dev.memory_total)});
  }
  d.evidence.push_back(
      Evidence{"kb",
               "Loading weights that fill the GPUs holds two full copies of them in host memory "
               "with the usual PyTorch and Hugging Face loading, and one with "
               "low_cpu_mem_usage=True (Hugging Face Transformers, 'Instantiating a big "
               "model'); RAM plus swap below the GPU memory holds not even one"});
  d.tags = {windows ? "windows" : "linux"};
  out.add(std::move(d));
}

} // namespace doctor::checks
