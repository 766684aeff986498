// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_collectors.hpp>
#include <doctor/util/time.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <span>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using CollectorFn = void (*)(const platform::SysRoot&, const CollectOptions&, Facts&);
// A collector that waits on something slow, needs no other collector's facts and gives none that
// another collector reads (NVML: facts.driver.nvml): started on its own thread before the
// others run, and its answer taken after they all have, so that the slow part overlaps all of
// them.
using StartFn = std::function<void(Facts&)> (*)(const platform::SysRoot&, const CollectOptions&);

struct Collector {
  const char* name;
  CollectorFn run;
  StartFn start = nullptr;
};

// The explicit lists, in dependency order: one for a Linux system, one for a Windows one.
constexpr Collector k_linux_collectors[] = {
    {"environment", collect_environment},
    {"os", collect_os},
    {"architecture", collect_architecture},
    {"linker", collect_linker},
    {"driver", collect_driver},
    {"pci", collect_pci},
    {"host_hardware", collect_host_hardware},
    {"nvml", collect_nvml, start_nvml},
    {"python", collect_python},
    {"cuda", collect_cuda},
    {"cudnn", collect_cudnn},
    {"user", collect_user},
    {"loader", collect_loader},
    {"integrity", collect_integrity},
};

// The explicit list for a Windows system, live (its registry through the Win32 API) or a system
// disk examined from Linux (--sysroot of a tree with Windows/System32: the registry from its
// hives). The registry collectors come first; on the live machine collect_windows_live_os then
// refines what only a running system knows. The loader walk comes next to last: it reads what the
// others found; the file access step last, over every DLL the others recorded.
constexpr Collector k_windows_collectors[] = {
    {"environment", collect_windows_process_environment},
    {"os", collect_windows_os},
    {"memory", collect_windows_memory},
    {"windows_environment", collect_windows_environment},
    {"os_live", collect_windows_live_os},
    {"driver", collect_windows_driver},
    {"nvml", collect_nvml, start_nvml},
    {"display", collect_windows_display},
    {"pci", collect_windows_pci},
    {"software", collect_windows_software},
    {"services", collect_windows_services},
    {"installed_programs", collect_windows_programs},
    {"python", collect_windows_python},
    {"cuda", collect_windows_cuda},
    {"cudnn", collect_windows_cudnn},
    {"vc_runtime", collect_windows_vc_runtime},
    {"crash_settings", collect_windows_crash_settings},
    {"loader", collect_windows_loader},
    {"file_access", collect_windows_file_access},
};

std::span<const Collector> collectors_for(const platform::SysRoot& root) {
  return root.os() == platform::OsFamily::windows ? std::span<const Collector>(k_windows_collectors)
                                                  : std::span<const Collector>(k_linux_collectors);
}

bool wanted(const Collector& c, const CollectOptions& options) {
  return options.only.empty()
         || std::find(options.only.begin(), options.only.end(), c.name) != options.only.end();
}

// UTC whatever the process's time zone: fmt 9 formats a system_clock time_point in local time
// (it read TZ and /etc/localtime), which put a Shanghai machine's "Z" eight hours ahead.
std::string now_utc() {
  const auto now =
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return util::iso_utc(
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count());
}

} // namespace

const std::vector<std::string>& relevant_environment_variables() {
  static const std::vector<std::string> k_names = {
      "CONDA_DEFAULT_ENV",
      "CONDA_PREFIX",
      "CUDA_HOME",
      "CUDA_MODULE_LOADING",
      "CUDA_PATH",
      "CUDA_ROOT",
      "CUDA_VISIBLE_DEVICES",
      "CUDNN_PATH",
      "LD_AUDIT",
      "LD_LIBRARY_PATH",
      "LD_PRELOAD",
      "NVIDIA_DRIVER_CAPABILITIES",
      "NVIDIA_VISIBLE_DEVICES",
      "PATH",
      "PYENV_ROOT",
      "PYENV_VERSION",
      "PYTHONHOME",
      "PYTHONPATH",
      "PYTORCH_CUDA_ALLOC_CONF",
      "TF_CPP_MIN_LOG_LEVEL",
      "TF_FORCE_GPU_ALLOW_GROWTH",
      "VIRTUAL_ENV",
      "XLA_FLAGS",
  };
  return k_names;
}

void collect_environment(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  for (const std::string& name : relevant_environment_variables()) {
    if (auto value = root.env().get(name)) {
      facts.environment[name] = *value;
    }
  }
}

StartedCollectors::~StartedCollectors() {
  for (auto& [name, running] : m_running) {
    if (running.valid()) {
      running.wait();
    }
  }
}

StartedCollectors start_collectors(const platform::SysRoot& root, const CollectOptions& options) {
  StartedCollectors out;
  if (!root.is_live()) {
    return out;
  }
  for (const Collector& c : collectors_for(root)) {
    if (c.start != nullptr && wanted(c, options)) {
      out.m_running.emplace(c.name,
                            std::async(std::launch::async, c.start, std::cref(root), options));
    }
  }
  return out;
}

Facts collect(const platform::SysRoot& root, const CollectOptions& options) {
  return collect(root, options, start_collectors(root, options));
}

Facts collect(const platform::SysRoot& root,
              const CollectOptions& options,
              StartedCollectors started) {
  Facts facts;
  facts.collection.tool_version = options.tool_version;
  facts.collection.os_family = std::string(platform::to_string(root.os()));
  facts.collection.sysroot = options.sysroot_label;
  facts.collection.live = root.is_live();
  facts.collection.collected_at = options.collected_at.empty() ? now_utc() : options.collected_at;
  const bool windows = root.os() == platform::OsFamily::windows;
  const auto run_one = [&](const Collector& c, bool take_started) {
    try {
      if (const auto it = started.m_running.find(c.name); it != started.m_running.end()) {
        if (take_started) {
          it->second.get()(facts); // rethrows what the thread threw
        }
      } else if (!take_started) {
        c.run(root, options, facts);
      }
    } catch (const std::exception& e) {
      facts.collection.errors.push_back({c.name, e.what()});
    } catch (...) {
      facts.collection.errors.push_back({c.name, "unknown exception"});
    }
  };
  for (const bool take_started : {false, true}) {
    for (const Collector& c : collectors_for(root)) {
      if (wanted(c, options)) {
        run_one(c, take_started);
      }
    }
  }
  if (windows) {
    // The Linux collectors sort these in the loader and integrity collectors.
    std::sort(facts.binaries.begin(),
              facts.binaries.end(),
              [](const BinaryInfo& a, const BinaryInfo& b) { return a.path < b.path; });
    std::sort(facts.probed_paths.begin(),
              facts.probed_paths.end(),
              [](const ProbedPath& a, const ProbedPath& b) { return a.path < b.path; });
  }
  std::sort(facts.unreadable.begin(),
            facts.unreadable.end(),
            [](const UnreadablePath& a, const UnreadablePath& b) { return a.path < b.path; });
  return facts;
}

} // namespace doctor::collect
