// SPDX-License-Identifier: MIT
// The Windows version, edition and build, RAM, page files, the loader's system settings
// (KnownDLLs, SafeDllSearchMode) and whether the doctor runs elevated.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/registry_read.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/platform/windows_system.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using platform::RegistryRoot;
using windows::k_memory_management;

constexpr const char* k_current_version = "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";
constexpr const char* k_session_manager = "SYSTEM\\CurrentControlSet\\Control\\Session Manager";

// major.minor.build: RtlGetVersion on the live machine, the registry's CurrentMajorVersionNumber,
// CurrentMinorVersionNumber and CurrentBuild on a disk. nullopt (with `why`) if neither.
std::optional<platform::WindowsVersionNumbers>
windows_version_numbers(const platform::SysRoot& root, std::string& source, std::string& why) {
  if (root.is_live()) {
    auto v = platform::windows_version();
    if (v) {
      source = "api:RtlGetVersion";
      return *v;
    }
    why = v.error().message;
  }
  const auto major = registry_number(
      root, RegistryRoot::local_machine, k_current_version, "CurrentMajorVersionNumber");
  const auto minor = registry_number(
      root, RegistryRoot::local_machine, k_current_version, "CurrentMinorVersionNumber");
  const auto build =
      registry_text(root, RegistryRoot::local_machine, k_current_version, "CurrentBuild");
  const auto build_number = build ? Version::parse(*build) : std::nullopt;
  if (major && minor && build_number) {
    source = registry_source(root, RegistryRoot::local_machine, k_current_version, "CurrentBuild");
    return platform::WindowsVersionNumbers{static_cast<std::uint32_t>(*major),
                                           static_cast<std::uint32_t>(*minor),
                                           build_number->major()};
  }
  if (why.empty()) {
    why = !major ? major.reason() : !build ? build.reason() : minor.reason();
  }
  return std::nullopt;
}

void read_windows_version(const platform::SysRoot& root, Facts& facts) {
  WindowsInfo& win = facts.windows;
  std::string source;
  std::string why;
  const auto numbers = windows_version_numbers(root, source, why);
  const auto ubr = registry_number(root, RegistryRoot::local_machine, k_current_version, "UBR");
  if (numbers) {
    std::string build = fmt::format("{}.{}.{}", numbers->major, numbers->minor, numbers->build);
    if (ubr) {
      build += fmt::format(".{}", *ubr);
      source += "+UBR";
    }
    win.build = Fact<std::string>::known(build, source);
    facts.os.kernel_release = Fact<std::string>::known(build, source);
    facts.os.version_id =
        Fact<std::string>::known(fmt::format("{}.{}", numbers->major, numbers->minor), source);
  } else {
    win.build = Fact<std::string>::unknown(why);
    facts.os.kernel_release = Fact<std::string>::unknown(why);
    facts.os.version_id = Fact<std::string>::unknown(why);
  }
  facts.os.id = Fact<std::string>::known("windows", "os:windows");
  auto product = registry_text(root, RegistryRoot::local_machine, k_current_version, "ProductName");
  if (product && numbers) {
    const std::string corrected = corrected_product_name(*product, numbers->build);
    if (corrected != *product) {
      product = Fact<std::string>::known(
          corrected, product.source() + fmt::format(" (build {}: Windows 11)", numbers->build));
    }
  }
  win.product_name = product;
  win.edition_id = registry_text(root, RegistryRoot::local_machine, k_current_version, "EditionID");
  win.display_version =
      registry_text(root, RegistryRoot::local_machine, k_current_version, "DisplayVersion");
  if (!win.display_version) {
    // Before 20H2 the release was ReleaseId ("2004").
    auto release = registry_text(root, RegistryRoot::local_machine, k_current_version, "ReleaseId");
    if (release) {
      win.display_version = release;
    }
  }
  if (product) {
    std::string pretty = *product;
    if (win.display_version) {
      pretty += " " + *win.display_version;
    }
    if (win.build) {
      pretty += fmt::format(" (build {})", *win.build);
    }
    facts.os.pretty_name = Fact<std::string>::known(pretty, product.source());
  } else {
    facts.os.pretty_name = Fact<std::string>::unknown(product.reason());
  }
}

void read_windows_hardware(const platform::SysRoot& root, Facts& facts) {
  const auto arch = windows_env(root, "PROCESSOR_ARCHITECTURE");
  if (arch) {
    const std::string lower = util::to_lower(*arch);
    const std::string name = lower == "amd64" ? "x86_64" : lower == "arm64" ? "aarch64" : lower;
    facts.os.architecture = Fact<std::string>::known(name, "env:PROCESSOR_ARCHITECTURE");
  } else {
    facts.os.architecture = Fact<std::string>::unknown("PROCESSOR_ARCHITECTURE is not set");
  }
  facts.os.cpu_model = registry_text(root,
                                     RegistryRoot::local_machine,
                                     "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                                     "ProcessorNameString");
  if (const auto count = windows_env(root, "NUMBER_OF_PROCESSORS")) {
    if (auto v = Version::parse(*count); v && v->size() == 1) {
      facts.os.cpu_count = Fact<std::uint64_t>::known(v->major(), "env:NUMBER_OF_PROCESSORS");
    }
  }
  if (!facts.os.cpu_count) {
    facts.os.cpu_count = Fact<std::uint64_t>::unknown("NUMBER_OF_PROCESSORS is not set");
  }
  if (!root.is_live()) {
    const std::string why = "the memory of a machine is only known on it, not from its disk";
    facts.os.memory_total = Fact<std::uint64_t>::unknown(why);
    facts.os.memory_available = Fact<std::uint64_t>::unknown(why);
    return;
  }
  auto memory = platform::memory_status();
  if (memory) {
    facts.os.memory_total =
        Fact<std::uint64_t>::known(memory->total_physical, "api:GlobalMemoryStatusEx");
    facts.os.memory_available =
        Fact<std::uint64_t>::known(memory->available_physical, "api:GlobalMemoryStatusEx");
  } else {
    facts.os.memory_total = Fact<std::uint64_t>::unknown(memory.error().message);
    facts.os.memory_available = Fact<std::uint64_t>::unknown(memory.error().message);
  }
  const std::string swap_why = "Windows has page files instead (windows.page_files)";
  facts.os.swap_total = Fact<std::uint64_t>::unknown(swap_why);
  facts.os.swap_free = Fact<std::uint64_t>::unknown(swap_why);
}

void read_page_files(const platform::SysRoot& root, Facts& facts) {
  WindowsInfo& win = facts.windows;
  const std::string source =
      registry_source(root, RegistryRoot::local_machine, k_memory_management, "PagingFiles");
  const platform::Registry* reg = root.registry();
  Expected<platform::RegistryValue> value =
      reg ? reg->value(RegistryRoot::local_machine, k_memory_management, "PagingFiles")
          : make_error(ErrorCode::unsupported, "");
  if (!value) {
    const std::string why = registry_reason(
        root, value.error(), RegistryRoot::local_machine, k_memory_management, "PagingFiles");
    win.page_files = Fact<std::vector<PageFile>>::unknown(why);
    win.automatic_page_file = Fact<bool>::unknown(why);
    return;
  }
  std::vector<std::string> entries = value->strings;
  if (value->type != platform::RegistryValue::Type::multi_string) {
    entries = {value->text};
  }
  std::vector<PageFile> files = parse_paging_files(entries);
  const std::string system_drive = windows_system_root(root).substr(0, 2);
  bool automatic = false;
  for (PageFile& pf : files) {
    std::string drive = pf.path.substr(0, 2);
    if (drive == "?:") {
      automatic = true; // "Automatically manage paging file size for all drives"
      drive = system_drive;
    }
    if (!root.is_live()) {
      pf.drive_free = Fact<std::uint64_t>::unknown("the free space of a drive is only known live");
    } else if (auto free = platform::free_disk_bytes(drive + "\\")) {
      pf.drive_free = Fact<std::uint64_t>::known(*free, "api:GetDiskFreeSpaceExW:" + drive);
    } else {
      pf.drive_free = Fact<std::uint64_t>::unknown(free.error().message);
    }
  }
  win.page_files = Fact<std::vector<PageFile>>::known(std::move(files), source);
  win.automatic_page_file = Fact<bool>::known(automatic, source);
}

void read_loader_settings(const platform::SysRoot& root, Facts& facts) {
  WindowsInfo& win = facts.windows;
  win.windows_dir = windows_system_root(root);
  win.system32 = win.windows_dir + "\\System32";
  const std::string known_key = std::string(k_session_manager) + "\\KnownDLLs";
  const platform::Registry* reg = root.registry();
  Expected<std::vector<platform::RegistryValue>> values =
      reg ? reg->values(RegistryRoot::local_machine, known_key)
          : make_error(ErrorCode::unsupported, "");
  if (values) {
    std::vector<std::string> names;
    for (const platform::RegistryValue& v : *values) {
      if (v.type == platform::RegistryValue::Type::string && !v.text.empty()) {
        names.push_back(util::to_lower(v.text));
      }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    win.known_dlls = Fact<std::vector<std::string>>::known(
        std::move(names), reg->source(RegistryRoot::local_machine, known_key));
  } else {
    win.known_dlls = Fact<std::vector<std::string>>::unknown(
        registry_reason(root, values.error(), RegistryRoot::local_machine, known_key, ""));
  }
  const auto safe =
      registry_number(root, RegistryRoot::local_machine, k_session_manager, "SafeDllSearchMode");
  if (safe) {
    win.safe_dll_search_mode = Fact<bool>::known(*safe != 0, safe.source());
  } else if (reg != nullptr) {
    win.safe_dll_search_mode =
        Fact<bool>::known(true, "default:SafeDllSearchMode not set (Windows default 1)");
  } else {
    win.safe_dll_search_mode = Fact<bool>::unknown(safe.reason());
  }
  if (!root.is_live()) {
    win.elevated = Fact<bool>::unknown("elevation is a property of a running process");
  } else if (auto elevated = platform::process_elevated()) {
    win.elevated = Fact<bool>::known(*elevated, "api:GetTokenInformation(TokenElevation)");
  } else {
    win.elevated = Fact<bool>::unknown(elevated.error().message);
  }
}

} // namespace

void collect_windows_live_os(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  if (!root.is_live()) {
    return; // a disk's version, page files and loader settings: collect_windows_os/_memory
  }
  read_windows_version(root, facts);
  read_windows_hardware(root, facts);
  read_page_files(root, facts);
  read_loader_settings(root, facts);
}

} // namespace doctor::collect
