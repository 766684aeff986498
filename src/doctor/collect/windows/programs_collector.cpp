// SPDX-License-Identifier: MIT
// The installed programs of a Windows system that make up its GPU stack, from the Uninstall keys
// Apps & Features lists: HKLM (native and WOW6432Node views) and HKCU. Everything else a machine
// has installed stays out of the facts, so that a snapshot stays small and says nothing private.
#include <doctor/collect/windows/registry_read.hpp>
#include <doctor/collect/windows/windows_collectors.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <tuple>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model
using namespace windows;

namespace {

struct UninstallView {
  const char* view; // as InstalledProgram::view says it
  RegistryRoot root;
  const char* key;
};
constexpr std::array<UninstallView, 3> k_uninstall_views = {{
    {"HKLM",
     RegistryRoot::local_machine,
     "SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall"},
    {"HKLM32",
     RegistryRoot::local_machine,
     "SOFTWARE\\WOW6432Node\\Microsoft\\Windows\\CurrentVersion\\Uninstall"},
    {"HKCU", RegistryRoot::current_user, "Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall"},
}};

// Which Uninstall entries are kept, and as what: the first row that matches, comparing lower case.
// The names are those the installers write as DisplayName and Publisher (Apps & Features on
// Windows 10 and 11):
// - NVIDIA's installer (the driver package and the CUDA toolkit's local installer, publisher
//   "NVIDIA Corporation"): "NVIDIA Graphics Driver 560.94", "NVIDIA CUDA Development 12.4",
//   "NVIDIA CUDA Runtime 12.4", "NVIDIA CUDA Documentation 12.4", "NVIDIA Nsight Compute 2024.1.0",
//   "NVIDIA Nsight Systems 2024.2.1", "NVIDIA PhysX System Software", "NVIDIA HD Audio Driver";
//   cuDNN 9's Windows installer: "NVIDIA cuDNN 9.1.0" and its parts.
// - python.org's installer: "Python 3.11.7 (64-bit)", "Python Launcher", publisher "Python
//   Software Foundation"; Anaconda's: "Anaconda3 2024.02-1 (Python 3.11.7 64-bit)", "Miniconda3
//   py311_24.1.2-0 (Python 3.11.8 64-bit)", publisher "Anaconda, Inc."; conda-forge's
//   "Miniforge3 24.3.0-0 (Python 3.10.14 64-bit)".
// - "Microsoft Visual C++ 2015-2022 Redistributable (x64) - 14.40.33810", publisher "Microsoft
//   Corporation".
enum class ProgramField { name, publisher };
enum class ProgramMatch { prefix, contains };
struct ProgramRule {
  const char* kind; // facts_values.hpp k_program_kinds
  ProgramField field;
  ProgramMatch match;
  std::string_view pattern; // lower case
};
constexpr std::array<ProgramRule, 12> k_program_rules = {{
    {"nvidia_driver", ProgramField::name, ProgramMatch::prefix, "nvidia graphics driver"},
    {"cudnn", ProgramField::name, ProgramMatch::contains, "cudnn"},
    {"cuda", ProgramField::name, ProgramMatch::prefix, "nvidia cuda"},
    {"nsight", ProgramField::name, ProgramMatch::contains, "nsight"},
    {"nvidia_other", ProgramField::publisher, ProgramMatch::prefix, "nvidia"},
    {"nvidia_other", ProgramField::name, ProgramMatch::prefix, "nvidia "},
    {"conda", ProgramField::name, ProgramMatch::prefix, "anaconda"},
    {"conda", ProgramField::name, ProgramMatch::prefix, "miniconda"},
    {"conda", ProgramField::name, ProgramMatch::prefix, "miniforge"},
    {"conda", ProgramField::publisher, ProgramMatch::prefix, "anaconda"},
    {"python", ProgramField::publisher, ProgramMatch::prefix, "python software foundation"},
    {"vc_redist", ProgramField::name, ProgramMatch::prefix, "microsoft visual c++ "},
}};

// Apps & Features shows a few hundred entries. A view with more is no real registry, and is not
// read (each entry read walks the whole list again in libhivex); a text longer than
// k_max_program_text is cut.
constexpr std::size_t k_max_uninstall_keys = 2048;
constexpr std::size_t k_max_program_name = 256;
constexpr std::size_t k_max_program_text = 1024;

// The kind of the entry, or nullptr when no rule keeps it. The VC++ row wants "redistributable"
// too: the compiler's own "Microsoft Visual C++ 2022 X64 Minimum Runtime" parts stay out.
const char* program_kind(std::string_view display_name, std::string_view publisher) {
  const std::string name = util::to_lower(display_name);
  const std::string pub = util::to_lower(publisher);
  for (const ProgramRule& rule : k_program_rules) {
    const std::string& text = rule.field == ProgramField::name ? name : pub;
    const bool hit = rule.match == ProgramMatch::prefix
                         ? text.starts_with(rule.pattern)
                         : text.find(rule.pattern) != std::string::npos;
    if (!hit) {
      continue;
    }
    if (std::string_view(rule.kind) == "vc_redist"
        && name.find("redistributable") == std::string::npos) {
      continue;
    }
    return rule.kind;
  }
  return nullptr;
}

Fact<bool> location_exists(const platform::SysRoot& root, const std::string& location) {
  if (location.empty()) {
    return Fact<bool>::unknown("InstallLocation is not set");
  }
  if (!windows_inner(root, location)) {
    return Fact<bool>::unknown(fmt::format("{} is not on the examined system's drive", location));
  }
  return Fact<bool>::known(windows_is_dir(root, location), "dir:" + location);
}

std::optional<InstalledProgram> read_program(const platform::SysRoot& root,
                                             const Registry& r,
                                             const UninstallView& where,
                                             const std::string& subkey) {
  const std::string key = fmt::format("{}\\{}", where.key, subkey);
  auto text = [&](std::string_view name) {
    return util::sanitize(string_value(r, where.root, key, name).value_or(""), k_max_program_text);
  };
  InstalledProgram p;
  p.display_name = text("DisplayName");
  p.publisher = text("Publisher");
  const char* kind = program_kind(p.display_name, p.publisher);
  if (kind == nullptr) {
    return std::nullopt;
  }
  p.kind = kind;
  p.view = where.view;
  p.key = util::sanitize(subkey, k_max_program_name);
  p.display_version = text("DisplayVersion");
  p.install_location = text("InstallLocation");
  p.location_exists = location_exists(root, p.install_location);
  p.source = util::sanitize(r.source(where.root, key), k_max_program_text);
  return p;
}

Fact<std::vector<InstalledProgram>> installed_programs(const platform::SysRoot& root,
                                                       const Registry& r) {
  std::vector<InstalledProgram> out;
  std::vector<std::string> sources;
  std::vector<std::string> errors;
  for (const UninstallView& where : k_uninstall_views) {
    auto keys = r.subkeys(where.root, where.key);
    if (!keys && keys.error().code != ErrorCode::not_found) {
      errors.push_back(fmt::format("{}: {}", where.view, keys.error().message));
      continue;
    }
    const std::size_t count = keys ? keys->size() : 0;
    if (count > k_max_uninstall_keys) {
      errors.push_back(fmt::format(
          "{}: {} keys, more than the {} a Windows has", where.view, count, k_max_uninstall_keys));
      continue;
    }
    sources.push_back(r.source(where.root, where.key));
    for (std::size_t i = 0; i < count; ++i) {
      if (auto p = read_program(root, r, where, (*keys)[i])) {
        out.push_back(std::move(*p));
      }
    }
  }
  if (sources.empty()) {
    return Fact<std::vector<InstalledProgram>>::unknown(
        util::sanitize(util::join(errors, "; "), k_max_program_text));
  }
  std::sort(out.begin(), out.end(), [](const InstalledProgram& a, const InstalledProgram& b) {
    return std::tie(a.view, a.key) < std::tie(b.view, b.key);
  });
  // A view that could not be read is named in the source: the list is complete only for the
  // others.
  for (const std::string& e : errors) {
    sources.push_back("not read: " + e);
  }
  return Fact<std::vector<InstalledProgram>>::known(
      std::move(out), util::sanitize(util::join(sources, "; "), 4 * k_max_program_text));
}

} // namespace

void collect_windows_programs(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  std::string reason;
  const Registry* r = registry_of(root, reason);
  facts.windows.installed_programs = r == nullptr
                                         ? Fact<std::vector<InstalledProgram>>::unknown(reason)
                                         : installed_programs(root, *r);
  // The folders of CUDA_PATH_V<major>_<minor>, whether they exist: a toolkit deleted by hand
  // leaves its variable (checks/windows_services.cpp). Only folders on the examined drive.
  for (const auto& [name, value] : facts.environment) {
    if (util::to_lower(name).starts_with("cuda_path_v") && !value.empty()
        && windows_inner(root, value)) {
      add_windows_probe(root, facts, value);
    }
  }
}

} // namespace doctor::collect
