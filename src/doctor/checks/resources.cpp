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
// has to feed, and a GPU whose memory other processes already hold. What runs out while a program
// runs (VRAM, batch sizes) is in its error text and the crash evidence, for `explain` and
// `crashes`.
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
    // What the GPU holds now, where NVML said: the part of that memory a job has already filled.
    const std::string in_use =
        dev.memory_used ? fmt::format(", {} in use now", gib(*dev.memory_used)) : std::string();
    d.evidence.push_back(Evidence{dev.memory_total.source(),
                                  fmt::format("GPU {} {}: {} of memory ({} bytes){}",
                                              dev.index,
                                              dev.name.value_or("(name unknown)"),
                                              gib(*dev.memory_total),
                                              *dev.memory_total,
                                              in_use)});
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

namespace {

// "Nearly full": less than this share of a GPU's memory free (the doctor's choice,
// docs/knowledge-base.md "resources"): a training job sized for the card needs most of it, and
// frameworks reserve a few hundred MiB for their own context on top.
constexpr std::uint64_t k_free_percent = 10;

// At most this many processes are named in the message; the evidence lists them all.
constexpr std::size_t k_named_processes = 5;

// "pid 4242 (python3) 70.0 GiB".
std::string describe_process(const facts::GpuProcess& p) {
  return fmt::format("pid {} ({}) {}",
                     p.pid,
                     p.name.value_or("name unknown"),
                     p.used_memory ? gib(*p.used_memory) : std::string("amount unknown"));
}

} // namespace

// A GPU with less than k_free_percent of its memory free while processes hold it: a new job
// fails with "CUDA out of memory" however small its batch. The processes are named (pid, command
// name, memory) so that the user can see whose they are; where NVML lists none (it shows no
// process of another container), the finding says so.
void check_gpu_memory_held(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  const auto& devices = facts.driver.nvml.devices;
  if (!devices) {
    return;
  }
  for (const facts::NvmlDevice& dev : *devices) {
    if (!dev.memory_total || !dev.memory_free || *dev.memory_total == 0
        || *dev.memory_free >= *dev.memory_total / 100 * k_free_percent) {
      continue;
    }
    std::vector<facts::GpuProcess> procs = dev.processes.value_or({});
    std::stable_sort(procs.begin(), procs.end(), [](const auto& a, const auto& b) {
      return a.used_memory.value_or(0) > b.used_memory.value_or(0);
    });
    std::uint64_t held = 0;
    std::vector<std::string> named;
    for (const facts::GpuProcess& p : procs) {
      held = saturating_add(held, p.used_memory.value_or(0));
      if (named.size() < k_named_processes) {
        named.push_back(describe_process(p));
      }
    }
    if (procs.size() > named.size()) {
      named.push_back(fmt::format("{} more", procs.size() - named.size()));
    }
    const std::string gpu =
        fmt::format("GPU {} ({})", dev.index, dev.name.value_or("name unknown"));
    std::string holders;
    if (!dev.processes) {
      holders = fmt::format("which processes hold it is unknown ({})", dev.processes.reason());
    } else if (procs.empty()) {
      holders =
          "NVML lists no process using it: the memory belongs to processes it cannot show "
          "(in another container or pid namespace, or a virtual machine's) or to the driver";
    } else {
      holders = fmt::format("{} {} hold {}: {}",
                            procs.size(),
                            procs.size() == 1 ? "process" : "processes",
                            gib(held),
                            util::join(named, ", "));
    }
    FindingDraft d;
    d.id = kb::ids::k_resources_gpu_memory_held;
    d.subject = gpu;
    d.params = {{"gpu", gpu},
                {"free", gib(*dev.memory_free)},
                {"total", gib(*dev.memory_total)},
                {"holders", holders}};
    d.evidence.push_back(Evidence{dev.memory_free.source(),
                                  fmt::format("free {} of {} ({} of {} bytes)",
                                              gib(*dev.memory_free),
                                              gib(*dev.memory_total),
                                              *dev.memory_free,
                                              *dev.memory_total)});
    for (const facts::GpuProcess& p : procs) {
      d.evidence.push_back(
          Evidence{p.used_memory ? p.used_memory.source() : std::string("nvml:running_processes"),
                   fmt::format("{}: {}", describe_process(p), p.kind)});
    }
    d.tags = {facts.collection.os_family == "windows" ? "windows" : "linux"};
    out.add(std::move(d));
  }
}

} // namespace doctor::checks
