// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <string>

namespace doctor::collect {

// When the NVML child is started (live machine only).
enum class NvmlQuery {
  when_driver, // unless no NVIDIA driver is there to answer (nvml_report.hpp, nvml_cannot_answer)
  always,      // also then: to see what NVML itself says
  never,       // --no-nvml
};

struct CollectOptions {
  std::string tool_version;
  std::string sysroot_label = "/"; // how the user named the root, for the snapshot
  // Query NVML in an isolated child process (live machine only).
  NvmlQuery nvml = NvmlQuery::when_driver;
  // The doctor's own executable, re-run as the isolated NVML probe child.
  std::filesystem::path self_executable;
  std::chrono::milliseconds probe_timeout{10000};
  // Hash the GPU libraries against their package records (check --verify).
  bool verify = false;
  // Reuse and update the hash cache (keyed by device, inode, size and mtime).
  bool use_hash_cache = true;
  // Where the hash cache lives; empty: $XDG_CACHE_HOME/cudnn-doctor or ~/.cache/cudnn-doctor.
  std::filesystem::path cache_dir;
  // cuDNN's library sets for the loader walk; nullptr: the embedded knowledge base.
  const kb::KnowledgeBase* kb = nullptr;
  // Python environments named on the command line (inner paths), examined like found ones.
  std::vector<std::string> python_prefixes;
  // Run only these collectors (by name: "environment", "os", "linker", …); empty: all of them.
  std::vector<std::string> only;
  // Fixed "collected_at" value for reproducible output; empty means now.
  std::string collected_at;
};

// The collectors that wait on something slow (the NVML child: process start and driver calls),
// already running on threads of their own, so that their wait overlaps what the caller does
// before collect() (loading the knowledge base) and the other collectors. Destroying it waits for
// them; the SysRoot they were started for must outlive it.
class StartedCollectors {
public:
  StartedCollectors() = default;
  StartedCollectors(StartedCollectors&&) = default;
  StartedCollectors& operator=(StartedCollectors&&) = default;
  ~StartedCollectors();

private:
  friend StartedCollectors start_collectors(const platform::SysRoot&, const CollectOptions&);
  friend facts::Facts collect(const platform::SysRoot&, const CollectOptions&, StartedCollectors);
  std::map<std::string, std::future<std::function<void(facts::Facts&)>>> m_running;
};

// Starts the slow collectors `options` selects for `root` (none for a tree: NVML describes only
// the running machine). Pass the result to collect() with the same root and options.
StartedCollectors start_collectors(const platform::SysRoot& root, const CollectOptions& options);

// Observes the machine behind `root` and returns everything seen, taking the answers of the
// collectors `started` runs at their places in the list. Never throws: a collector that fails is
// recorded in facts.collection.errors (and becomes an internal finding) while the others still
// run.
facts::Facts
collect(const platform::SysRoot& root, const CollectOptions& options, StartedCollectors started);
// collect() with the slow collectors started here.
facts::Facts collect(const platform::SysRoot& root, const CollectOptions& options);

// The collectors, in the order collect() runs them. Each fills its part of `facts` and may read
// what earlier ones filled (CUDA reads conda environments; cuDNN reads toolkits, Python
// environments and the linker's directories).
// Each may throw; collect() is the firewall.
void collect_environment(const platform::SysRoot& root,
                         const CollectOptions& options,
                         facts::Facts& facts);
void collect_os(const platform::SysRoot& root, const CollectOptions& options, facts::Facts& facts);
// The architecture, from libc.so.6's ELF header: all that the loader model needs of the OS
// (collect_os has the release, kernel, glibc release, CPU and memory).
void collect_architecture(const platform::SysRoot& root,
                          const CollectOptions& options,
                          facts::Facts& facts);
void collect_linker(const platform::SysRoot& root,
                    const CollectOptions& options,
                    facts::Facts& facts);
// The loader's built-in directories (LinkerInfo::default_dirs) of the examined system, for the
// architecture in `facts` (collect_architecture): what collect_linker records there.
std::vector<std::string> linker_default_dirs(const platform::SysRoot& root,
                                             const facts::Facts& facts);
void collect_driver(const platform::SysRoot& root,
                    const CollectOptions& options,
                    facts::Facts& facts);
void collect_pci(const platform::SysRoot& root, const CollectOptions& options, facts::Facts& facts);
// Linux EDAC's memory error counters per controller and DIMM (linux/edac_collector.cpp);
// unknown with the reason where no EDAC driver is loaded.
void collect_host_hardware(const platform::SysRoot& root,
                           const CollectOptions& options,
                           facts::Facts& facts);
void collect_nvml(const platform::SysRoot& root,
                  const CollectOptions& options,
                  facts::Facts& facts);
// collect_nvml for collect(), which runs it on a thread of its own while the other collectors
// read the machine: asks the NVML child (the slow part, on the calling thread) and returns what
// stores its answer in the facts. Reads only `root` and `options`.
std::function<void(facts::Facts&)> start_nvml(const platform::SysRoot& root,
                                              const CollectOptions& options);
void collect_python(const platform::SysRoot& root,
                    const CollectOptions& options,
                    facts::Facts& facts);
void collect_cuda(const platform::SysRoot& root,
                  const CollectOptions& options,
                  facts::Facts& facts);
void collect_cudnn(const platform::SysRoot& root,
                   const CollectOptions& options,
                   facts::Facts& facts);

// The cuDNN version of the library at canonical inner path `real_path`, for a copy the inventory
// does not cover: from a versioned file name ("libcudnn_ops.so.9.1.0") or the version object the
// library exports ("cudnn_ops_infer_version"). nullopt if neither tells it.
std::optional<Version> cudnn_library_version(const platform::SysRoot& root,
                                             const std::string& real_path);
void collect_user(const platform::SysRoot& root,
                  const CollectOptions& options,
                  facts::Facts& facts);
void collect_loader(const platform::SysRoot& root,
                    const CollectOptions& options,
                    facts::Facts& facts);
// With options.verify: hashes the GPU packages' libraries and compares them with the package
// records (integrity_collector.cpp). Last: it reads what every other collector found.
void collect_integrity(const platform::SysRoot& root,
                       const CollectOptions& options,
                       facts::Facts& facts);

// The Windows collectors (collect/windows/), which collect() runs instead of the ones above for a
// Windows system: live, or a mounted Windows disk whose registry root.registry() reads. Paths in
// what they record are Windows paths ("C:\\Windows\\System32\\nvcuda.dll").
// Variables (without regard to case), CUDA_PATH_V*, and the machine and user PATH in the registry.
void collect_windows_process_environment(const platform::SysRoot& root,
                                         const CollectOptions& options,
                                         facts::Facts& facts);
// On the live machine only (after the registry's collect_windows_os and collect_windows_memory,
// whose facts it refines): version from RtlGetVersion, edition and build, CPU, RAM, page files
// with the free space of their drives, KnownDLLs, SafeDllSearchMode, elevation.
void collect_windows_live_os(const platform::SysRoot& root,
                             const CollectOptions& options,
                             facts::Facts& facts);
// nvcuda.dll and nvml.dll in System32 with their versions.
void collect_windows_driver(const platform::SysRoot& root,
                            const CollectOptions& options,
                            facts::Facts& facts);
// NVIDIA's PCI devices (and other display-class devices) from the PnP enumeration, driver or not.
void collect_windows_pci(const platform::SysRoot& root,
                         const CollectOptions& options,
                         facts::Facts& facts);
// PEP 514 registrations and the Python environments with their frameworks.
void collect_windows_python(const platform::SysRoot& root,
                            const CollectOptions& options,
                            facts::Facts& facts);
// CUDA toolkits; after the environment.
void collect_windows_cuda(const platform::SysRoot& root,
                          const CollectOptions& options,
                          facts::Facts& facts);
// cuDNN folders; after the toolkits and Python environments, whose folders it searches.
void collect_windows_cudnn(const platform::SysRoot& root,
                           const CollectOptions& options,
                           facts::Facts& facts);
// Visual C++ redistributables and the runtime DLLs in System32.
void collect_windows_vc_runtime(const platform::SysRoot& root,
                                const CollectOptions& options,
                                facts::Facts& facts);
// The Windows loader model over what the others found, recording every path and DLL it looks at
// (loader_collector.cpp in collect/windows/). Last.
void collect_windows_loader(const platform::SysRoot& root,
                            const CollectOptions& options,
                            facts::Facts& facts);

// On the live machine only, after every collector that records DLLs: the current user's read and
// execute rights on each, its Zone.Identifier mark, and with options.verify the Authenticode
// signature of NVIDIA's; only DLLs with something to say go into facts.windows.file_access
// (access_collector.cpp).
void collect_windows_file_access(const platform::SysRoot& root,
                                 const CollectOptions& options,
                                 facts::Facts& facts);

// Environment variables that matter to a GPU stack; collect_environment records those that are set.
const std::vector<std::string>& relevant_environment_variables();

} // namespace doctor::collect
