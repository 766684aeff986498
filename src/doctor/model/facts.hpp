// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/fact.hpp>
#include <doctor/util/version.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// Everything the doctor observed about one machine: the snapshot. Collectors fill it, checks read
// it, `snapshot` writes it as JSON (docs/snapshot.md) and `check --snapshot` reads it back. A
// check may only use what is in here, so a snapshot analysed anywhere gives the same findings as
// the live run that produced it.
//
// Paths are inner paths of the examined machine (see platform::SysRoot). Lists are sorted by the
// collectors so that two runs on the same machine produce identical snapshots.
namespace doctor::facts {

inline constexpr const char* k_snapshot_schema = "cudnn-doctor-snapshot/1";

struct CollectorError {
  std::string collector;
  std::string message;
  bool operator==(const CollectorError&) const = default;
};

struct CollectionInfo {
  std::string schema = k_snapshot_schema;
  std::string tool_version;
  std::string os_family = "linux";
  std::string sysroot = "/"; // as given on the command line
  bool live = true;          // the machine the doctor ran on, not a --sysroot tree
  std::string collected_at;  // ISO 8601 UTC
  std::vector<CollectorError> errors;
  bool operator==(const CollectionInfo&) const = default;
};

struct OsInfo {
  Fact<std::string> pretty_name; // "Debian GNU/Linux 12 (bookworm)"
  Fact<std::string> id;          // "debian"
  Fact<std::string> version_id;  // "12"
  Fact<std::string> kernel_release;
  Fact<std::string> architecture; // "x86_64"
  Fact<Version> glibc_version;
  Fact<std::string> cpu_model;
  Fact<std::uint64_t> cpu_count;
  Fact<std::uint64_t> memory_total; // bytes
  Fact<std::uint64_t> memory_available;
  Fact<std::uint64_t> swap_total;
  Fact<std::uint64_t> swap_free;
  bool operator==(const OsInfo&) const = default;
};

// A /dev/nvidia* node. `mode` is octal text ("0666").
struct DeviceNode {
  std::string path;
  std::string kind; // "character_device", "regular" (a broken node), …
  std::string mode;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  bool operator==(const DeviceNode&) const = default;
};

// A user-space driver library file (libcuda.so.<ver>, libnvidia-ml.so.<ver>).
struct DriverLibrary {
  std::string name; // "libcuda", "libnvidia-ml"
  std::string path; // the versioned file
  Fact<std::string> version;
  bool stub = false; // NVIDIA's link-time stub (…/stubs/libcuda.so), not a driver
  bool operator==(const DriverLibrary&) const = default;
};

// A process NVML lists on a GPU (nvmlDeviceGetComputeRunningProcesses_v3,
// nvmlDeviceGetGraphicsRunningProcesses_v3).
struct GpuProcess {
  std::uint32_t pid = 0; // as NVML gives it: the host's pid, also from inside a container
  std::string kind;      // "compute", "graphics" or "compute+graphics"
  // Bytes of the GPU's memory it holds; unknown where NVML cannot say (NVML_VALUE_NOT_AVAILABLE:
  // Windows under WDDM, MIG without privileges).
  Fact<std::uint64_t> used_memory;
  // Its command name (/proc/PID/comm, read by the parent through the SysRoot); unknown where
  // that cannot be read (another pid namespace, Windows, a process that has ended). Untrusted:
  // any process chooses its own name.
  Fact<std::string> name;
  bool operator==(const GpuProcess&) const = default;
};

struct NvmlDevice {
  unsigned index = 0;
  Fact<std::string> name;
  Fact<std::string> uuid;
  Fact<std::string> pci_bus_id;
  Fact<std::string> compute_capability; // "9.0"
  Fact<std::uint64_t> memory_total;     // bytes
  Fact<std::uint64_t> memory_free;
  Fact<std::uint64_t> memory_used; // nvmlMemory_t.used: what the processes and the driver hold
  // The processes using the GPU now, by pid; unknown where NVML lacks both entry points.
  Fact<std::vector<GpuProcess>> processes;
  // What NVML said of the GPU's state (probe/nvml_telemetry.cpp, range-checked by the
  // collector): "clock_graphics_mhz", "app_clock_graphics_default_mhz", "power_limit_mw",
  // "temperature_c", "clock_event_reasons", "pcie_width", "pcie_width_max",
  // "ecc_uncorrected_volatile", "remapped_rows_pending", … A reading NVML did not give (or gave
  // out of range: `telemetry_notes` says which) is absent.
  Fact<std::map<std::string, std::uint64_t>> telemetry;
  std::vector<std::string> telemetry_notes;
  bool operator==(const NvmlDevice&) const = default;
};

// How the isolated child that called the vendor library was confined, as the child said
// (platform::confine_child).
struct ProbeChild {
  std::uint32_t uid = 0; // the user and group it ran as (65534: nobody)
  std::uint32_t gid = 0;
  bool capabilities_dropped = false; // none left in any set
  bool no_new_privs = false;
  std::uint64_t address_space_limit = 0; // RLIMIT_AS in bytes; 0: none
  std::vector<std::string> notes;        // what was not done, and why ("kept user root, …")
  bool operator==(const ProbeChild&) const = default;
};

// What NVML said. `status` is one of: "ok", "not_attempted" (not the live machine, or NVML not
// wanted), "library_not_found", "init_failed", "probe_failed" (the isolated probe crashed or hung).
struct NvmlInfo {
  std::string status = "not_attempted";
  std::string detail; // the reason behind a status other than "ok"
  Fact<std::string> library;
  Fact<std::int64_t> init_result; // nvmlReturn_t of nvmlInit_v2
  Fact<std::string> nvml_version;
  Fact<std::string> driver_version;
  Fact<std::string> cuda_driver_version; // "13.0": the newest CUDA this driver supports
  Fact<std::vector<NvmlDevice>> devices;
  Fact<ProbeChild> child; // unknown when the child gave no report (crashed, hung, not run)
  bool operator==(const NvmlInfo&) const = default;
};

// Where the library an isolated probe loaded came from: the loader model's answer (or the
// command line's --lib).
struct ProbeLibrary {
  std::string name;      // what was searched for: "libcudnn.so.9"
  std::string path;      // the file handed to the child; "" when none was found
  std::string real_path; // `path` with its links resolved ("…/stubs/libcuda.so"); "" if the same
  std::string found_via; // "ld.so.cache", "LD_LIBRARY_PATH", "--lib", …
  std::string context;   // "a program without RPATH or RUNPATH", "torch 2.5.1 in /venv"
  std::vector<std::string> searched; // none found: every path considered, "path (via): outcome"
  bool operator==(const ProbeLibrary&) const = default;
};

// One call into a vendor library and what it returned.
struct ProbeCall {
  std::string function; // "cuInit"
  std::int64_t result = 0;
  std::string name; // "CUDA_ERROR_STUB_LIBRARY": the library's own name for it, if it gave one
  std::string text; // its description, if it gave one
  std::string name_source; // "library" (cuGetErrorName, cudnnGetErrorString, …) or "doctor"
  bool operator==(const ProbeCall&) const = default;
};

// A device as the driver API listed it.
struct ProbeDevice {
  unsigned index = 0;
  Fact<std::string> name;
  Fact<std::uint64_t> memory_total; // bytes
  Fact<ProbeCall> context;          // cuCtxCreate_v2 on it
  bool operator==(const ProbeDevice&) const = default;
};

// A small computation a probe ran on the GPU and compared with the CPU reference.
struct ProbeComputation {
  std::string name; // "convolution_forward", "sgemm"
  std::string
      status; // "passed", "mismatch", "skipped" (could not run: why), "failed" (a call failed)
  std::string detail;
  std::uint64_t elements = 0;
  std::uint64_t mismatches = 0;
  std::string max_abs_error; // as text ("0", "0.25"): the largest difference from the reference
  bool operator==(const ProbeComputation&) const = default;
};

// One isolated child's run (probe/children.cpp). `status`: "answered" (the child reported; what
// the vendor calls returned is in `calls`), "library_not_found" (the loader model found no copy;
// not run), "library_not_loaded" (the child's dlopen failed: `detail`), "crashed" (a signal:
// `signal`), "timed_out" (killed at the time limit), "exited" (ended without a report:
// `exit_code`), "no_answer" (its report could not be read), "not_run" (`detail` says why).
struct ProbeRun {
  std::string probe; // "cuda", "cudnn", "cublas"
  std::string status;
  std::string detail;
  ProbeLibrary library;
  std::string loaded;                // the file the child's loader mapped
  Fact<std::string> version;         // "9.19.0"; the driver API's "13.0"; cuBLAS "13.1.0"
  Fact<std::string> runtime_version; // cuDNN's cudnnGetCudartVersion: "13.1"
  std::vector<ProbeCall> calls;
  Fact<std::vector<ProbeDevice>> devices; // the driver API's; unknown for the others
  std::vector<ProbeComputation> computations;
  std::int64_t exit_code = 0;
  std::int64_t signal = 0;
  std::string stderr_tail; // the end of its standard error, for a child that failed
  Fact<ProbeChild> child;
  bool operator==(const ProbeRun&) const = default;
};

// What `cudnn-doctor probe` (or `snapshot --probe`) ran; `ran` is false in a snapshot made
// without them.
struct ProbeInfo {
  bool ran = false;
  std::vector<ProbeRun> runs;
  bool operator==(const ProbeInfo&) const = default;
};

// A kernel installed under /lib/modules and the NVIDIA driver modules its modules.dep lists.
struct KernelModules {
  std::string kernel_release; // "6.1.0-26-amd64"
  std::vector<std::string>
      nvidia_modules; // "/lib/modules/6.1.0-26-amd64/updates/dkms/nvidia-current.ko"
  bool operator==(const KernelModules&) const = default;
};

struct DriverInfo {
  Fact<std::string> kernel_module_version;       // "535.104.05"
  Fact<std::string> kernel_module_banner;        // first line of /proc/driver/nvidia/version
  Fact<std::string> kernel_module_type;          // "open" or "proprietary"
  Fact<std::string> sys_module_version;          // /sys/module/nvidia/version
  Fact<std::vector<std::string>> loaded_modules; // GPU-related modules from /proc/modules
  Fact<bool> nouveau_loaded;
  std::vector<DriverLibrary> libraries;
  Fact<std::vector<DeviceNode>> device_nodes;
  NvmlInfo nvml;
  // Every kernel under /lib/modules with the NVIDIA modules built for it, sorted by release.
  Fact<std::vector<KernelModules>> installed_modules;
  // DKMS trees of NVIDIA modules ("nvidia/535.183.01", "nvidia-current/525.147.05").
  Fact<std::vector<std::string>> dkms_modules;
  bool operator==(const DriverInfo&) const = default;
};

// A PCI function from /sys/bus/pci/devices.
struct PciDevice {
  std::string address; // "0000:01:00.0"
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::uint32_t subsystem_vendor_id = 0;
  std::uint32_t subsystem_device_id = 0;
  std::uint32_t class_code = 0; // 0x030000 VGA, 0x030200 3D controller
  Fact<std::string> name;       // from pci.ids
  Fact<std::string> driver;     // bound kernel driver ("nvidia", "nouveau", "vfio-pci")
  bool operator==(const PciDevice&) const = default;
};

struct PciScan {
  std::uint64_t devices_scanned = 0;
  std::vector<PciDevice> nvidia_gpus;    // vendor 0x10de, display class
  std::vector<PciDevice> other_displays; // display-class devices of other vendors
  bool operator==(const PciScan&) const = default;
};

struct CudaToolkit {
  std::string path;                   // canonical directory
  std::vector<std::string> aliases;   // other paths that lead here ("/usr/local/cuda")
  std::vector<std::string> found_via; // "dir:/usr/local/cuda*", "env:CUDA_HOME", "PATH:nvcc", …
  Fact<Version> version;              // toolkit release, e.g. 13.0 or 12.4.1
  Fact<Version> runtime_version;      // libcudart, as precise as known
  Fact<std::string> nvcc;             // path of nvcc inside the toolkit
  std::vector<std::string> library_dirs;
  bool operator==(const CudaToolkit&) const = default;
};

// One libcudnn* file of an installation directory.
struct CudnnLibrary {
  std::string name;      // as found in the directory: "libcudnn_ops.so.9"
  std::string member;    // library-set member it provides: "libcudnn_ops" (no suffix)
  unsigned major = 0;    // from the name
  std::string real_path; // after symlinks
  std::uint64_t size = 0;
  Fact<Version> version; // full version if any source tells
  bool operator==(const CudnnLibrary&) const = default;
};

// A directory holding cuDNN libraries of one major version.
struct CudnnInstall {
  std::string dir;
  unsigned major = 0;
  std::vector<std::string> found_via; // "LD_LIBRARY_PATH", "ld.so.cache", "toolkit:/usr/local/…", …
  Fact<Version> version;              // of the installation as a whole
  Fact<Version> header_version;       // cudnn_version.h next to it
  Fact<std::string> package; // "pip nvidia-cudnn-cu13 9.19.0.56", "dpkg libcudnn9-cuda-12 …"
  std::vector<CudnnLibrary> libraries;
  bool operator==(const CudnnInstall&) const = default;
};

struct PythonPackage {
  std::string name; // normalised: "nvidia-cudnn-cu12"
  std::string version;
  std::string source; // the .dist-info / .egg-info directory
  bool operator==(const PythonPackage&) const = default;
};

// A deep-learning framework installed in a Python environment, read from its files (never
// imported).
struct Framework {
  std::string name;     // "torch", "tensorflow", "jax", "jaxlib", "paddle", "onnxruntime"
  std::string location; // package directory
  Fact<std::string> version;
  Fact<bool> cuda_build;
  Fact<std::string> cuda_version;  // what it was built with
  Fact<std::string> cudnn_version; // what it was built with, as precise as recorded
  Fact<std::vector<std::string>> cuda_archs;
  bool operator==(const Framework&) const = default;
};

struct PythonEnv {
  std::string prefix;
  std::string kind; // "venv", "conda", "pyenv", "system", "store" (the Microsoft Store's Python)
  std::vector<std::string> found_via; // "PATH:python3", "env:VIRTUAL_ENV", "env:CONDA_PREFIX", …
  Fact<std::string> python_version;
  Fact<std::string> site_packages;
  std::vector<PythonPackage> packages; // GPU-relevant only: frameworks and nvidia-* wheels
  std::vector<Framework> frameworks;
  bool operator==(const PythonEnv&) const = default;
};

struct LdCacheEntry {
  std::string name; // "libcudnn.so.9"
  std::string path;
  std::string arch; // "x86-64", "i386", …
  bool operator==(const LdCacheEntry&) const = default;
};

// The dynamic linker's configuration of the examined machine.
struct LinkerInfo {
  Fact<std::vector<std::string>> conf_dirs; // from /etc/ld.so.conf and its includes, in order
  Fact<std::vector<LdCacheEntry>> cache;    // /etc/ld.so.cache, in cache order
  std::vector<std::string> default_dirs;    // the loader's built-in trusted directories
  bool operator==(const LinkerInfo&) const = default;
};

// Whose rights apply: the user the doctor runs as (live machine only).
struct UserInfo {
  Fact<std::uint32_t> uid;
  Fact<std::vector<std::uint32_t>> gids;      // primary first, then supplementary
  Fact<std::vector<std::string>> group_names; // names of `gids` from /etc/group
  bool operator==(const UserInfo&) const = default;
};

// A mounted file system (/proc/self/mountinfo).
struct MountInfo {
  std::string mount_point;
  std::string fs_type;
  std::vector<std::string> options; // per-mount options: "ro", "noexec", "nosuid", …
  bool operator==(const MountInfo&) const = default;
};

struct BinaryVersionNeed {
  std::string file;
  std::vector<std::string> versions;
  bool operator==(const BinaryVersionNeed&) const = default;
};

// A shared library or executable of the GPU stack, read from its headers (ELF or PE): what the
// loader model needs, and whether the file is whole.
struct BinaryInfo {
  std::string path;   // canonical inner path
  std::string format; // "elf", "pe", or "unknown" (neither: a text stub, junk, empty)
  std::uint64_t size = 0;
  std::string mode; // octal permission bits ("0755")
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::string machine; // "x86-64", "aarch64", "i386" / "x64", "x86", "arm64"
  unsigned bits = 0;   // 32 or 64
  // ELF
  std::string soname;
  std::vector<std::string> rpath;
  std::vector<std::string> runpath;
  bool nodeflib = false;
  std::vector<std::string> version_definitions;
  std::vector<BinaryVersionNeed> version_needs;
  std::string build_id;
  // Both: DT_NEEDED (ELF) or the import directory (PE); PE delay-load imports separately.
  std::vector<std::string> needed;
  std::vector<std::string> delay_needed;
  // PE version resource
  std::string file_version;
  std::string product_version;
  std::string product_name;
  bool is_signed = false;            // an Authenticode signature is present (PE)
  std::vector<std::string> problems; // structural damage seen in what was read
  // Why the file could not be read, "" if it was: the error's kind, as to_string(ErrorCode) names
  // it ("permission_denied", "not_regular", "resource", "io"), and its message. A file that could
  // not be read is unreadable, never damaged or absent; "resource" (out of memory or descriptors)
  // says nothing about the file at all. Snapshots written before this field kept the message as
  // a problem beginning "cannot be read".
  std::string read_error;
  std::string read_error_message;
  bool operator==(const BinaryInfo&) const = default;
};

// A path the loader model looked at while answering the collector's questions, so that the
// same questions can be answered again from a snapshot: whether it exists, what it resolves to,
// and for directories their owner and mode (for planting checks).
struct ProbedPath {
  std::string path; // as probed (inner path, normalised)
  bool exists = false;
  std::string kind;      // "regular", "directory", "symlink" (dangling), ...
  std::string real_path; // after symlinks; empty if it does not exist
  std::string mode;      // octal permission bits of real_path
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  bool operator==(const ProbedPath&) const = default;
};

// One installed file checked against what its package manager recorded (check --verify).
struct FileVerification {
  std::string path;         // the file checked (inner path)
  std::string manager;      // "pip", "conda", "dpkg"
  std::string package;      // "nvidia-cudnn-cu12 9.1.0.70"
  std::string record;       // the record that says what the file should be
  std::string algorithm;    // "sha256" or "md5"
  std::string expected;     // recorded digest, lower-case hex
  Fact<std::string> actual; // computed digest, lower-case hex; unknown if not read, and why
  std::optional<std::uint64_t> expected_size;
  std::optional<std::uint64_t> actual_size; // none where the file was not examined
  bool operator==(const FileVerification&) const = default;
};

// A GPU package's record that exists but could not be read (check --verify): its files were not
// compared with it.
struct UnreadPackageRecord {
  std::string record;  // inner path
  std::string manager; // "pip", "conda", "dpkg"
  std::string package; // "nvidia-cudnn-cu12 9.1.0.70", from the record's file name
  std::string reason;  // "larger than 16 MB, the most a package record is read to"
  bool operator==(const UnreadPackageRecord&) const = default;
};

struct IntegrityInfo {
  bool requested = false;              // --verify was given; otherwise nothing below was computed
  std::vector<FileVerification> files; // sorted by path
  std::vector<UnreadPackageRecord> unread_records; // sorted by record
  std::uint64_t files_hashed = 0; // hashed in this run (the rest came from the cache)
  std::uint64_t bytes_hashed = 0;
  bool operator==(const IntegrityInfo&) const = default;
};

// A file or directory a collector needed and could not read: unreadable is its own answer, never
// "absent" (a cuDNN directory the doctor may not list is not a machine without cuDNN).
struct UnreadablePath {
  std::string path;  // inner path
  std::string what;  // what the collector looked for there ("cuDNN libraries")
  std::string error; // to_string(ErrorCode): "permission_denied", "not_regular", "resource", "io"
  std::string message;
  bool operator==(const UnreadablePath&) const = default;
};

// ---- Windows (collect/windows/, read live through the Win32 API or offline from the hives of a
// mounted Windows disk; every path is a Windows path, "C:\\Windows\\System32\\nvcuda.dll") ----

// A display adapter as the display class key
// (HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}\NNNN)
// records its driver.
struct DisplayAdapter {
  std::string key;                  // the class subkey: "0000"
  std::string description;          // DriverDesc: "NVIDIA GeForce RTX 3090"
  std::string provider;             // ProviderName: "NVIDIA"
  std::string driver_version;       // DriverVersion: "32.0.15.6094"
  Fact<std::string> nvidia_version; // "560.94", decoded from driver_version (NVIDIA only)
  std::string driver_date;          // DriverDate: "9-5-2024"
  std::string inf_path;             // InfPath: "oem12.inf"
  std::string matching_device_id;   // MatchingDeviceId: "pci\\ven_10de&dev_2204&subsys_…"
  std::uint32_t vendor_id = 0;      // from matching_device_id (0x10de NVIDIA, 0x8086 Intel, …)
  std::uint32_t device_id = 0;
  bool operator==(const DisplayAdapter&) const = default;
};

// A page file as Session Manager\Memory Management\PagingFiles lists it, with the free space of
// its drive.
struct PageFile {
  std::string path;               // "C:\\pagefile.sys"; "?:\\pagefile.sys" for "any drive"
  bool system_managed = false;    // "0 0" sizes: Windows sizes it
  std::uint64_t initial_size = 0; // bytes (0 when system managed)
  std::uint64_t maximum_size = 0; // bytes (0 when system managed)
  Fact<std::uint64_t> drive_free; // free bytes on its drive (live only)
  bool operator==(const PageFile&) const = default;
};

// A Python registered under Software\Python (PEP 514), as the py launcher finds it.
struct PythonRegistration {
  std::string hive;         // "HKCU", "HKLM", "HKLM32" (the 32-bit view)
  std::string company;      // "PythonCore", "ContinuumAnalytics", …
  std::string tag;          // "3.11", "3.11-32"
  std::string install_path; // InstallPath's default value
  std::string executable;   // InstallPath\ExecutablePath, or install_path\\python.exe
  std::string version;      // SysVersion or Version, when recorded
  std::string display_name;
  bool operator==(const PythonRegistration&) const = default;
};

// An installed Visual C++ redistributable, from the key
// HKLM\SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\<arch>.
struct VcRuntime {
  std::string arch;    // "x64", "x86", "arm64"
  std::string version; // "v14.40.33810.00" as recorded
  bool installed = false;
  bool operator==(const VcRuntime&) const = default;
};

// GraphicsDrivers' timeout detection and recovery settings; a value not set is unknown with the
// reason "not set (Windows default …)".
struct TdrSettings {
  Fact<std::uint64_t> tdr_level;
  Fact<std::uint64_t> tdr_delay;     // seconds
  Fact<std::uint64_t> tdr_ddi_delay; // seconds
  bool operator==(const TdrSettings&) const = default;
};

// CrashControl: whether and where Windows writes crash dumps.
struct CrashDumpSettings {
  Fact<std::uint64_t> crash_dump_enabled; // 0 none, 1 complete, 2 kernel, 3 small, 7 automatic
  Fact<std::string> minidump_dir;         // "%SystemRoot%\\Minidump", as recorded
  Fact<std::string> dump_file;            // "%SystemRoot%\\MEMORY.DMP"
  bool operator==(const CrashDumpSettings&) const = default;
};

// A file the current user may not read or execute, or one Windows marks as downloaded from the
// internet (an NTFS Zone.Identifier stream: SmartScreen may block it), or one whose Authenticode
// signature was verified (check --verify, NVIDIA's DLLs). Live Windows only.
struct WindowsFileAccess {
  std::string path;
  bool readable = true;
  bool executable = true;
  std::uint32_t zone = 0;   // ZoneId of Zone.Identifier; 0: none (3: internet)
  std::string authenticode; // "valid", "unsigned", "invalid: <WinVerifyTrust result>", "" not asked
  // Where each answer came from, joined by "+": "api:AccessCheck" (or "api:CreateFileW", the
  // fallback where the security descriptor could not be read), "ads:Zone.Identifier",
  // "api:WinVerifyTrust".
  std::string source;
  std::string detail; // what the fallback saw, or why an answer is missing ("" when nothing)
  bool operator==(const WindowsFileAccess&) const = default;
};

// A service or driver registered under HKLM\SYSTEM\CurrentControlSet\Services\<name>: the NVIDIA
// display driver's kernel service (nvlddmkm), the display container, and other services whose
// ImagePath lies in an NVIDIA driver folder.
struct WindowsService {
  std::string name;          // the key's name: "nvlddmkm"
  Fact<std::uint64_t> start; // Start: 0 boot, 1 system, 2 automatic, 3 on demand, 4 disabled
  Fact<std::uint64_t> type;  // Type: 1 kernel driver, 16 own process, 32 shared process
  std::string image_path;    // ImagePath as recorded (unexpanded, "\\SystemRoot\\System32\\…")
  std::string display_name;  // DisplayName as recorded ("@oem12.inf,%…%" stays as it is)
  std::string source;        // the key ("hive:…:HKLM\\SYSTEM\\ControlSet001\\Services\\nvlddmkm")
  bool operator==(const WindowsService&) const = default;
};

// A program in the Uninstall keys (Apps & Features), kept only if it is part of a GPU stack.
struct InstalledProgram {
  std::string view;             // "HKLM", "HKLM32" (WOW6432Node) or "HKCU"
  std::string key;              // the Uninstall subkey: "{B2FE1952-…}_Display.Driver"
  std::string kind;             // the matching rule (facts_values.hpp k_program_kinds)
  std::string display_name;     // "NVIDIA Graphics Driver 560.94"
  std::string display_version;  // "560.94"
  std::string publisher;        // "NVIDIA Corporation"
  std::string install_location; // InstallLocation as recorded; "" when not set
  // Whether install_location is a folder on the examined system; unknown when it is not set or
  // lies outside the examined tree.
  Fact<bool> location_exists;
  std::string source; // the key ("hive:…:HKLM\\SOFTWARE\\Microsoft\\…\\Uninstall\\{…}")
  bool operator==(const InstalledProgram&) const = default;
};

struct WindowsInfo {
  Fact<std::string> product_name;    // "Windows 11 Pro" (CurrentVersion\ProductName, corrected)
  Fact<std::string> edition_id;      // "Professional"
  Fact<std::string> display_version; // "23H2"
  Fact<std::string> build;           // "10.0.22631.4037": RtlGetVersion and UBR
  std::string windows_dir = "C:\\Windows";   // %SystemRoot%
  std::string system32;                      // "C:\\Windows\\System32"
  Fact<std::vector<std::string>> known_dlls; // Session Manager\KnownDLLs value data
  Fact<bool> safe_dll_search_mode;
  Fact<std::vector<PageFile>> page_files;
  Fact<bool> automatic_page_file; // AutomaticManagedPagefile (Win32_ComputerSystem)
  Fact<std::vector<DisplayAdapter>> display_adapters;
  // Driver store folders of NVIDIA display driver packages
  // ("C:\\Windows\\System32\\DriverStore\\FileRepository\\nv_dispi.inf_amd64_…"), sorted.
  Fact<std::vector<std::string>> nvidia_driver_packages;
  // HKCU\Software\Microsoft\DirectX\UserGpuPreferences: application path → "GpuPreference=2;".
  Fact<std::map<std::string, std::string>> gpu_preferences;
  Fact<std::string> machine_path; // HKLM\…\Session Manager\Environment\Path, unexpanded
  Fact<std::string> user_path;    // HKCU\Environment\Path, unexpanded
  Fact<std::vector<PythonRegistration>> python_registrations;
  Fact<std::vector<VcRuntime>> vc_runtimes;
  Fact<TdrSettings> tdr;
  Fact<CrashDumpSettings> crash_dumps;
  Fact<bool> elevated;                        // the doctor runs elevated (live only)
  std::vector<WindowsFileAccess> file_access; // sorted by path; only files with something to say
  // Folder -> the *.dll file names in it, for the folders a framework loads every DLL of
  // (torch\lib: torch\__init__.py preloads each one), as the collector listed them.
  std::map<std::string, std::vector<std::string>> dll_listings;
  // Services and installed programs (services_collector.cpp, programs_collector.cpp). Services
  // sorted by name; programs by view, then key. Known and empty: the keys exist and hold none.
  Fact<std::vector<WindowsService>> services;
  Fact<std::vector<InstalledProgram>> installed_programs;
  bool operator==(const WindowsInfo&) const = default;
};

// One DIMM (or chip-select row, on older EDAC drivers) of a memory controller, with the errors
// the controller counted on it since boot.
struct EdacDimm {
  std::string name;           // "dimm0", "rank3", "csrow1": the sysfs entry
  std::string label;          // dimm_label / ch0_dimm_label as the firmware named it
                              // ("CPU_SrcID#0_MC#0_Chan#0_DIMM#0"); untrusted
  std::uint64_t ce_count = 0; // corrected errors
  std::uint64_t ue_count = 0; // uncorrected errors
  bool operator==(const EdacDimm&) const = default;
};

// A memory controller of Linux EDAC (/sys/devices/system/edac/mc/mcN).
struct EdacController {
  std::string name;    // "mc0"
  std::string mc_name; // its driver's name for it ("Skylake Socket#0 IMC#0"); untrusted
  std::uint64_t ce_count = 0;
  std::uint64_t ue_count = 0;
  std::vector<EdacDimm> dimms; // sorted by name
  bool operator==(const EdacController&) const = default;
};

// What smartmontools' `smartctl --json` said of one disk (collect/smartctl.cpp).
struct DiskHealth {
  std::string device;           // "/dev/nvme0", as `smartctl --scan` named it
  std::string type;             // smartctl's -d type: "nvme", "sat", "scsi"
  std::string model;            // model_name; untrusted, "" when not given
  Fact<bool> passed;            // smart_status.passed: the drive's own overall verdict
  std::int64_t exit_status = 0; // smartctl's exit status (bit 3: "DISK FAILING")
  // The counters that mean failing media, where the drive reports them: "reallocated_sectors"
  // (ATA 5), "pending_sectors" (197), "offline_uncorrectable" (198), "media_errors",
  // "critical_warning", "percentage_used" (NVMe).
  std::map<std::string, std::uint64_t> counters;
  std::vector<std::string> messages; // smartctl's own messages ("Permission denied")
  bool operator==(const DiskHealth&) const = default;
};

// The hardware errors Windows logged (Microsoft-Windows-WHEA-Logger events in System.evtx):
// fatal ones at level critical or error, corrected ones at level warning.
struct WheaErrors {
  std::string log;             // the event log read ("C:/Windows/System32/winevt/Logs/System.evtx")
  std::uint64_t fatal = 0;     // uncorrected errors (an error that also ended in a BugCheck 0x124)
  std::uint64_t corrected = 0; // corrected errors (17 PCIe, 19 processor, 47 memory, …)
  std::map<std::string, std::uint64_t> by_event; // event id ("17") -> count
  bool operator==(const WheaErrors&) const = default;
};

// The machine checks the Linux kernel logged in one boot (collect/machine_checks.cpp): the
// processor's own reports of hardware errors (its caches, memory controller, interconnect, PCIe
// root), read from the kernel log's "mce: [Hardware Error]" lines by crash/kernel_events.cpp.
struct MachineChecks {
  std::string log;              // where the lines were read: "journal", "/dev/kmsg", inner paths
  std::string boot;             // the boot's id where the log gives one ("" for /dev/kmsg text)
  std::uint64_t lines_read = 0; // kernel messages of that boot read
  // Events: one per "CPU N: Machine Check: … Bank B: STATUS" record, plus one for each "Machine
  // check events logged" notice that no record followed (the kernel prints records only when no
  // other consumer, mcelog or rasdaemon, takes them; the notice then stands for at least one).
  std::uint64_t events = 0;
  std::uint64_t corrected = 0;      // records whose MCi_STATUS has VAL (bit 63) set, UC (61) clear
  std::uint64_t uncorrected = 0;    // UC set (PCC, bit 57: the processor context is corrupt)
  std::uint64_t unclassified = 0;   // notices, and records whose status the log does not give
  std::uint64_t at_boot = 0;        // records logged in the first seconds after boot: left in the
                                    // banks from before the last reset
  std::vector<std::uint64_t> cpus;  // CPUs the records name, ascending
  std::vector<std::uint64_t> banks; // MCA banks the records name, ascending
  std::string first;                // when the first event was logged, as the log says
  std::string last;                 // when the last one was
  std::vector<std::string> lines;   // the first lines of the events, verbatim (bounded); untrusted
  bool operator==(const MachineChecks&) const = default;
};

// The host's own hardware, the troubleshooting guide's RAM and disk advice: memory error
// counters of the memory controllers, and the disks' SMART health.
struct HostHardware {
  // Linux EDAC; unknown where no EDAC driver is loaded (then the kernel counts no memory errors)
  // and on Windows.
  Fact<std::vector<EdacController>> edac;
  // Asked only by `probe` and `snapshot --probe` (smartctl is an external program that wakes
  // disks); unknown with why otherwise, or where smartctl is not installed.
  Fact<std::vector<DiskHealth>> disks;
  // Windows only, asked by `probe` and `snapshot --probe` (reading the System log takes time).
  Fact<WheaErrors> whea;
  // Linux only, asked by `probe` and `snapshot --probe` (reading the journal takes time): the
  // machine checks of the current boot (of the newest boot the journal holds, in a --sysroot
  // tree); unknown with why where no kernel log of that boot can be read (not root, no journal).
  Fact<MachineChecks> machine_checks;
  bool operator==(const HostHardware&) const = default;
};
struct StressRun; // model/stress.hpp

struct Facts {
  CollectionInfo collection;
  std::map<std::string, std::string> environment; // GPU-relevant variables that are set
  OsInfo os;
  DriverInfo driver;
  Fact<PciScan> pci;
  LinkerInfo linker;
  std::vector<CudaToolkit> cuda_toolkits;
  std::vector<CudnnInstall> cudnn;
  std::vector<PythonEnv> python_envs;
  UserInfo user;
  Fact<std::vector<MountInfo>> mounts;
  std::vector<BinaryInfo> binaries;     // sorted by path
  std::vector<ProbedPath> probed_paths; // sorted by path
  IntegrityInfo integrity;
  std::vector<UnreadablePath> unreadable; // sorted by path
  WindowsInfo windows;                    // os_family "windows" only
  ProbeInfo probe;                        // the isolated probes' answers, when they ran
  // What `cudnn-doctor stress` observed (model/stress.hpp), set by that command only; never in a
  // snapshot (a stress run is an action, not a fact about the installation).
  std::shared_ptr<const StressRun> stress;
  HostHardware host_hardware; // memory error counters
  bool operator==(const Facts&) const = default;
};

} // namespace doctor::facts
