// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>
#include <doctor/util/version.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The compatibility knowledge: which driver a CUDA release needs, what a cuDNN release was built
// for and runs on, what the frameworks were built with, which GPUs each CUDA release and driver
// branch supports, and which compute capability a PCI device id is. Loaded from data/kb/
// (cuda_drivers.json, cudnn_releases.json, frameworks.json, gpus.json), every row with its source.
// These types only hold and look up the tables; judging a machine is the checks' work.
namespace doctor::kb {

enum class Os { linux, windows };

// CUDA toolkit release -> minimum driver (cuda_drivers.json "toolkits").
struct CudaDriverRow {
  Version cuda;                       // "12.4.1", "13.0" (GA: "13.0.0")
  std::optional<Version> linux_min;   // "550.54.15"; nullopt: not known
  std::optional<Version> windows_min; // "551.78"; nullopt: not known or not bundled
  // The driver the installer bundles, where it differs from the minimum or the table row is not
  // confirmed (then the minimum is nullopt and only this is known).
  std::optional<Version> linux_bundled;
  std::optional<Version> windows_bundled;
  std::string note;
  std::string source;

  bool operator==(const CudaDriverRow&) const = default;
};

// Minor-version compatibility of one CUDA major (cuda_drivers.json "minor_compat"): an
// application built with any toolkit `first`..`last` of the major runs on a driver at or above the
// floor, with a limited feature set (no JIT of PTX newer than the driver).
struct MinorCompatRow {
  unsigned cuda_major = 0;
  Version first; // first toolkit release the floor covers ("11.1")
  Version last;  // last one ("11.8"); a bare major ("12") covers every 12.x
  std::optional<Version> linux_min;
  std::optional<Version> windows_min;
  std::string note;
  std::string source;

  bool operator==(const MinorCompatRow&) const = default;
};

// A driver branch (cuda_drivers.json "branches"): the newest CUDA it supports and what it dropped.
struct DriverBranchRow {
  unsigned branch = 0;     // 535, 580
  std::string kind;        // "LTS", "PB", "NFB", "" (consumer/unknown)
  Version max_cuda;        // newest CUDA major.minor it supports ("12.2"; "13.0")
  std::string end_of_life; // "2028-06" or ""
  std::string note;
  std::string source;

  bool operator==(const DriverBranchRow&) const = default;
};

// One compute capability (gpus.json "architectures").
struct ArchitectureRow {
  Version cc;                             // "6.1"
  std::string name;                       // "Pascal"
  Version first_cuda;                     // first toolkit that compiles for it ("8.0")
  std::optional<Version> removed_in_cuda; // first toolkit that no longer does ("13.0")
  std::optional<unsigned> last_branch;    // last driver branch that drives it (580); none: current,
                                          // or not known when removed_in_cuda is set (see note)
  std::optional<unsigned> first_branch;   // first driver branch that drives it (570 for 12.0)
  bool linux_open_modules_only = false;   // the proprietary Linux module does not drive it
  std::string note;
  std::string source;

  bool operator==(const ArchitectureRow&) const = default;
};

// A GPU model by PCI id (gpus.json "pci_ids").
struct GpuModelRow {
  std::uint16_t device_id = 0; // vendor 0x10de
  // Set when the row names the product only for this subsystem (e.g. 25b6 10de:14a9 is an A16).
  std::optional<std::uint16_t> subsystem_vendor;
  std::optional<std::uint16_t> subsystem_device;
  std::string chip; // "GP104"
  std::string name; // "GeForce GTX 1080" (the NVIDIA driver's name where known, else pci.ids')
  std::string pci_ids_name; // the pci.ids (lspci) name where it differs from `name`, else ""
  Version cc;               // "6.1"
  std::string note;
  std::string source;

  bool operator==(const GpuModelRow&) const = default;
};

// A cuDNN release range (cudnn_releases.json "releases").
struct CudnnReleaseRow {
  std::string versions;          // a range as in valid_version_range ("9.11-9.99", "8.3-8.9")
  std::vector<std::string> cuda; // CUDA releases it was built for, as ranges ("11.0-11.8", "12")
  Version min_cc;                // lowest compute capability it supports
  std::optional<Version> max_cc; // highest it knows; nullopt: open
  std::optional<Version> linux_driver_min; // for its newest CUDA build, if stated separately
  std::optional<Version> windows_driver_min;
  bool windows_zlibwapi = false; // Windows DLLs need zlibwapi.dll next to them
  std::string note;
  std::string source;

  bool applies_to(const Version& version) const;

  bool operator==(const CudnnReleaseRow&) const = default;
};

// A published wheel/package of cuDNN on PyPI or conda (cudnn_releases.json "packages"): how to pin
// an exact release per CUDA major.
struct CudnnPackageRow {
  std::string manager; // "pip", "conda"
  std::string name;    // "nvidia-cudnn-cu12", "cudnn"
  unsigned cuda_major = 0;
  std::string version; // "9.1.0.70"
  std::string source;

  bool operator==(const CudnnPackageRow&) const = default;
};

// What one framework release was built with (frameworks.json "builds").
struct FrameworkBuildRow {
  std::string framework; // "torch", "tensorflow", "jax", "paddle", "onnxruntime"
  std::string versions;  // range of framework versions ("2.18-2.21")
  Os os = Os::linux;
  std::string variant;               // "cu121", "" for the only build
  std::string cuda;                  // "12.1", "" if none (a CPU-only release on this OS)
  std::string cudnn;                 // "8.9.2.26" or "8.9" or "8"
  std::vector<std::string> archs;    // "5.0", "9.0+PTX" (torch), "sm_35", "compute_80" (TF)
  bool gpu_supported = true;         // false: no GPU build on this OS (TF >= 2.11 on Windows)
  std::vector<std::string> pip_pins; // "nvidia-cudnn-cu12==8.9.2.26"
  std::string install;               // the command that installs this build
  std::string note;
  std::string source;

  bool operator==(const FrameworkBuildRow&) const = default;
};

class CompatTables {
public:
  bool operator==(const CompatTables&) const = default;

  // Parses the four files' contents (any may be empty: then its tables are empty). Returns an
  // error naming the file, row and field.
  static Expected<CompatTables> parse(std::string_view cuda_drivers,
                                      std::string_view cudnn_releases,
                                      std::string_view frameworks,
                                      std::string_view gpus);

  // Parses {file name, contents} pairs, each file's table chosen by its "kind" (cuda_drivers,
  // cudnn_releases, frameworks, gpus). Returns an error naming the file, row and field, for an
  // unknown kind, or for a second file of the same kind.
  static Expected<CompatTables>
  parse_files(const std::vector<std::pair<std::string, std::string>>& files);

  // Whether `kind` is one of the four kinds parse_files() accepts.
  static bool is_compat_kind(std::string_view kind);

  // The number of rows the tables of `kind` hold (0 for another kind).
  std::size_t rows_of_kind(std::string_view kind) const;

  // Every row's source, table by table in file order (for `kb` listings and tests).
  std::vector<std::string_view> sources() const;

  const std::vector<CudaDriverRow>& cuda_drivers() const { return m_cuda_drivers; }
  const std::vector<MinorCompatRow>& minor_compat() const { return m_minor_compat; }
  const std::vector<DriverBranchRow>& branches() const { return m_branches; }
  const std::vector<ArchitectureRow>& architectures() const { return m_architectures; }
  const std::vector<GpuModelRow>& gpu_models() const { return m_gpu_models; }
  const std::vector<CudnnReleaseRow>& cudnn_releases() const { return m_cudnn_releases; }
  const std::vector<CudnnPackageRow>& cudnn_packages() const { return m_cudnn_packages; }
  const std::vector<FrameworkBuildRow>& framework_builds() const { return m_framework_builds; }

  // The row of the newest toolkit release not newer than `cuda` within the same major.minor
  // ("12.4" -> the 12.4.0 row; "12.4.1" -> 12.4.1; "12.4.5" -> 12.4.1); when every release of
  // that major.minor is newer (a runtime reports "10.2", the table has 10.2.89), the oldest of
  // them. nullptr if the table has no release of that major.minor.
  const CudaDriverRow* toolkit_driver(const Version& cuda) const;

  // The minor-version compatibility row covering `cuda`, or nullptr (CUDA <= 10 has none).
  const MinorCompatRow* minor_compat_for(const Version& cuda) const;

  // The lowest driver that runs programs built with `cuda` on `os`: the minor-compat floor when
  // `minor_compat` and one exists, else the toolkit driver. nullopt when not known.
  std::optional<Version> minimum_driver(const Version& cuda, Os os, bool minor_compat) const;

  // The branch row of a driver version (535.104.05 -> 535), or nullptr.
  const DriverBranchRow* branch_of(const Version& driver) const;

  // The architecture row of `cc` ("6.1"), or nullptr.
  const ArchitectureRow* architecture(const Version& cc) const;

  // The model row of a PCI device: an exact subsystem match first, then the row without a
  // subsystem. nullptr if unknown.
  const GpuModelRow* gpu_model(std::uint16_t device_id,
                               std::uint16_t subsystem_vendor = 0,
                               std::uint16_t subsystem_device = 0) const;

  // The release row covering cuDNN `version`, or nullptr.
  const CudnnReleaseRow* cudnn_release(const Version& version) const;

  // Every package of cuDNN `major` for CUDA major `cuda_major` from `manager`, newest first.
  std::vector<const CudnnPackageRow*>
  cudnn_packages_for(unsigned cudnn_major, unsigned cuda_major, std::string_view manager) const;

  // The builds of `framework` version `version` on `os` (all variants), in file order.
  std::vector<const FrameworkBuildRow*>
  framework_builds_for(std::string_view framework, const Version& version, Os os) const;

private:
  friend class CompatParser;

  std::vector<CudaDriverRow> m_cuda_drivers;
  std::vector<MinorCompatRow> m_minor_compat;
  std::vector<DriverBranchRow> m_branches;
  std::vector<ArchitectureRow> m_architectures;
  std::vector<GpuModelRow> m_gpu_models;
  std::vector<CudnnReleaseRow> m_cudnn_releases;
  std::vector<CudnnPackageRow> m_cudnn_packages;
  std::vector<FrameworkBuildRow> m_framework_builds;
};

// True if `version` is in `range` (as valid_version_range: "" matches all; "A" every A.x; "A-B"
// from A through every B.x; ">=A"; "<=B" through every B.x). False for a malformed range.
bool in_version_range(std::string_view range, const Version& version);

// Version encodings met in the wild.

// A Windows driver version as Device Manager/WMI show it ("32.0.15.6094") -> the NVIDIA version
// ("560.94"): the last five digits of the third and fourth parts. nullopt if not of that form.
std::optional<Version> nvidia_driver_from_windows(std::string_view windows_version);

// cudnnGetVersion()/CUDNN_VERSION: 8902 -> 8.9.2 (major*1000 + minor*100 + patch, cuDNN < 9),
// 90100 -> 9.1.0 (major*10000 + minor*100 + patch, cuDNN 9+). nullopt if not a plausible value.
std::optional<Version> decode_cudnn_version(std::uint64_t encoded);

// cudaRuntimeGetVersion()/cuDriverGetVersion(): 11040 -> 11.4, 12080 -> 12.8.
std::optional<Version> decode_cuda_version(std::uint64_t encoded);

// TensorFlow's build_info spellings: "64_112" -> 11.2, "64_8" -> 8, "11.2" -> 11.2.
std::optional<Version> decode_tensorflow_version(std::string_view text);

// An architecture as nvcc and the build tools name it: "sm_86" (machine code) or "compute_90"
// (PTX), the last digit the minor ("compute_120" is 12.0), with an optional suffix ("sm_90a":
// that capability only; "sm_100f": its family).
struct ArchName {
  Version cc;
  bool ptx = false;
  char suffix = 0; // 'a', 'f' or 0
};
// Reads `name`; nullopt for any other spelling.
std::optional<ArchName> parse_arch_name(std::string_view name);

} // namespace doctor::kb
