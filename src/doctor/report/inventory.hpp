// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

// The short inventory every report opens with: what was found, before any judgement. Built from
// the facts alone, so a snapshot gives the same inventory as the live run.
namespace doctor::report {

struct InventoryOs {
  std::optional<std::string> name;
  std::optional<std::string> kernel;
  std::optional<std::string> glibc;
  std::optional<std::string> architecture;
  std::optional<std::string> cpu;
  std::optional<std::uint64_t> cpu_count;
  std::optional<std::uint64_t> memory_total;
  std::optional<std::uint64_t> memory_available;
  std::optional<std::uint64_t> swap_total;
  // Why each field above that is nullopt is unknown, by JSON field name ("kernel").
  std::map<std::string, std::string> unknown_reasons;
};

struct InventoryDriverLibrary {
  std::string name;
  std::optional<std::string> version;
  std::string path;
};

struct InventoryDriver {
  std::optional<std::string> kernel_module; // version
  std::optional<std::string> kernel_module_type;
  std::string reason; // why kernel_module is unknown
  std::vector<InventoryDriverLibrary> libraries;
  std::string nvml_status;
  std::string nvml_detail;
  std::optional<std::string> nvml_library;
  std::optional<std::string> nvml_version;
  std::optional<std::string> driver_version;      // per NVML
  std::optional<std::string> cuda_driver_version; // per NVML
};

struct InventoryGpu {
  std::string address;
  std::optional<std::string> name;
  std::string pci_id; // "10de:2330"
  std::optional<std::string> kernel_driver;
  std::optional<std::string> compute_capability;
  std::optional<std::string> uuid;
  std::optional<std::uint64_t> memory_total;
};

struct InventoryToolkit {
  std::string path;
  std::optional<std::string> version;
  std::vector<std::string> aliases;
  bool nvcc = false;
};

struct InventoryCudnn {
  std::string dir;
  unsigned major = 0;
  std::optional<std::string> version;
  std::vector<std::string> libraries;
  std::optional<std::string> package;
  std::vector<std::string> found_via;
};

struct InventoryFramework {
  std::string name;
  std::optional<std::string> version;
  std::optional<bool> cuda_build;
  std::optional<std::string> cuda;
  std::optional<std::string> cudnn;
};

struct InventoryPython {
  std::string prefix;
  std::string kind;
  std::optional<std::string> python_version;
  std::vector<InventoryFramework> frameworks;
  std::vector<std::string> nvidia_packages; // "nvidia-cudnn-cu12 9.1.0.70"
};

// A Windows system's display adapters, TDR settings and PEP 514 Pythons (os_family "windows").
struct InventoryDisplayAdapter {
  std::string description;
  std::string provider;
  std::string driver_version;                // "32.0.15.6094"
  std::optional<std::string> nvidia_version; // "560.94"
  std::string driver_date;
  std::string inf_path;
};

struct InventoryPythonRegistration {
  std::string hive; // "HKCU", "HKLM", "HKLM32"
  std::string company;
  std::string tag;
  std::string install_path;
  std::string version;
};

// A DLL with something to say about its access (facts.windows.file_access, live Windows only).
struct InventoryFileAccess {
  std::string path;
  bool readable = true;
  bool executable = true;
  std::uint32_t zone = 0;   // ZoneId of its Zone.Identifier stream; 0: none
  std::string authenticode; // "valid", "unsigned", "invalid: …"; "" not verified
};

// A GPU service of a Windows system (nvlddmkm, the NVIDIA display container).
struct InventoryService {
  std::string name;
  std::optional<std::uint64_t> start; // 0 boot … 3 on demand, 4 disabled; nullopt: unknown
  std::optional<std::uint64_t> type;  // 1 kernel driver, 16 own process, 32 shared process
  std::string image_path;
};

// An installed program of the GPU stack, from the Uninstall keys.
struct InventoryProgram {
  std::string view; // "HKLM", "HKLM32", "HKCU"
  std::string kind; // "nvidia_driver", "cuda", …
  std::string display_name;
  std::string display_version;
  std::string publisher;
  std::string install_location;
};

struct InventoryWindows {
  std::optional<std::string> build;
  std::optional<std::vector<InventoryDisplayAdapter>> display_adapters;
  std::optional<std::uint64_t> tdr_level;
  std::optional<std::uint64_t> tdr_delay; // seconds
  std::optional<std::vector<InventoryPythonRegistration>> python_registrations;
  // Why each field above that is nullopt is unknown, by JSON field name ("tdr_delay_seconds").
  std::map<std::string, std::string> unknown_reasons;
  // The DLLs whose access, Mark of the Web or signature the live collector noted, by path; empty
  // for a disk, a snapshot without them, or a machine where nothing was worth saying.
  std::vector<InventoryFileAccess> file_access;
  // Services and installed programs; absent (false) for a snapshot written before they were
  // collected, else the list or nullopt with its reason in unknown_reasons.
  bool has_services = false;
  std::optional<std::vector<InventoryService>> services;
  bool has_installed_programs = false;
  std::optional<std::vector<InventoryProgram>> installed_programs;
};

// The Windows part of the inventory; nullopt unless facts.collection.os_family is "windows" and
// its Windows section was collected.
std::optional<InventoryWindows> make_windows_inventory(const facts::Facts& facts);

struct Inventory {
  InventoryOs os;
  InventoryDriver driver;
  std::optional<std::uint64_t> pci_devices_scanned; // nullopt: the PCI scan is unknown
  std::string pci_reason;
  std::vector<InventoryGpu> gpus;
  std::vector<InventoryToolkit> cuda_toolkits;
  std::vector<InventoryCudnn> cudnn;
  std::vector<InventoryPython> python_environments;
  std::optional<InventoryWindows> windows;
};

// One labelled line of the inventory as people read it ("CUDA", {"13.0 at /usr/local/cuda-13.0"}).
struct InventoryLine {
  std::string label;
  std::vector<std::string> values; // one per item; never empty
};

// The inventory as labelled lines, shared by the text and Markdown reports.
std::vector<InventoryLine> describe_inventory(const Inventory& inventory);

// The Windows lines ("Display", "TDR", "Registered"), appended to `out`.
void describe_windows_inventory(const InventoryWindows& windows, std::vector<InventoryLine>& out);

// Summarises `facts`. GPUs come from the PCI scan, completed with NVML's answers by bus id.
Inventory make_inventory(const facts::Facts& facts);

} // namespace doctor::report
