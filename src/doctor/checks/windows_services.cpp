// SPDX-License-Identifier: MIT
//
// What the services and the installed programs of a Windows system say about its NVIDIA stack:
// the display driver's kernel service switched off or gone while an NVIDIA adapter is there, a
// driver update half done (Apps & Features names another version than the driver files), and a
// CUDA toolkit deleted by hand whose uninstall entries and CUDA_PATH_V* variables are left.
#include <doctor/checks/checks.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace doctor::checks {

namespace ids = kb::ids;

namespace {

constexpr std::uint32_t k_nvidia_vendor = 0x10de;
constexpr std::string_view k_driver_service = "nvlddmkm";
constexpr std::uint64_t k_start_disabled = 4;

const facts::DisplayAdapter* first_nvidia_adapter(const facts::Facts& facts) {
  const auto& adapters = facts.windows.display_adapters;
  if (!adapters) {
    return nullptr;
  }
  const auto it = std::find_if(adapters->begin(), adapters->end(), [](const auto& a) {
    return a.vendor_id == k_nvidia_vendor || util::to_lower(a.provider).starts_with("nvidia");
  });
  return it == adapters->end() ? nullptr : &*it;
}

std::string start_name(std::uint64_t start) {
  switch (start) {
  case 0:
    return "0, boot";
  case 1:
    return "1, system";
  case 2:
    return "2, automatic";
  case 3:
    return "3, on demand";
  case 4:
    return "4, disabled";
  default:
    return std::to_string(start);
  }
}

// "560.94": NVIDIA's numbering as Apps & Features and the decoded DLL version write it.
bool is_driver_version(std::string_view v) {
  const auto dot = v.find('.');
  return dot != std::string_view::npos && dot > 0 && dot + 1 < v.size()
         && std::all_of(v.begin(), v.end(), [](char c) { return util::is_digit(c) || c == '.'; });
}

// "12.4" from a CUDA entry's DisplayVersion ("12.4", "12.4.131") or its name's last word.
std::string cuda_release(const facts::InstalledProgram& p) {
  std::string_view v = p.display_version;
  if (v.empty()) {
    const auto space = std::string_view(p.display_name).rfind(' ');
    v = space == std::string_view::npos ? std::string_view()
                                        : std::string_view(p.display_name).substr(space + 1);
  }
  const auto first = v.find('.');
  if (first == std::string_view::npos || first == 0) {
    return {};
  }
  const auto second = v.find('.', first + 1);
  std::string_view out = v.substr(0, second);
  if (out.size() == first + 1 || !std::all_of(out.begin(), out.end(), [](char c) {
        return util::is_digit(c) || c == '.';
      })) {
    return {};
  }
  return std::string(out);
}

const facts::ProbedPath* probed_windows_dir(const facts::Facts& facts, std::string_view path) {
  const std::string key = loader::windows_path_key(loader::normalize_windows_path(path));
  const auto it = std::find_if(facts.probed_paths.begin(),
                               facts.probed_paths.end(),
                               [&](const facts::ProbedPath& p) { return p.path == key; });
  return it == facts.probed_paths.end() ? nullptr : &*it;
}

} // namespace

// nvlddmkm, the NVIDIA display driver's kernel service, disabled (Start 4) or not registered at
// all while the display class key lists an NVIDIA adapter: Windows does not load the driver at
// boot, and nvcuda.dll finds no GPU (cuInit: CUDA_ERROR_NO_DEVICE, 100; NVML: Driver Not Loaded).
void check_windows_driver_service(const facts::Facts& facts,
                                  const kb::KnowledgeBase&,
                                  FindingSink& out) {
  const auto& services = facts.windows.services;
  const facts::DisplayAdapter* adapter = first_nvidia_adapter(facts);
  if (facts.collection.os_family != "windows" || !services || adapter == nullptr) {
    return;
  }
  const auto service =
      std::find_if(services->begin(), services->end(), [](const facts::WindowsService& s) {
        return util::to_lower(s.name) == k_driver_service;
      });
  const bool missing = service == services->end();
  if (!missing && (!service->start || *service->start != k_start_disabled)) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_windows_nvidia_service_not_loaded;
  d.subject = missing ? std::string(k_driver_service) : service->name;
  d.shell = util::Shell::powershell;
  d.params = {
      {"adapter", adapter->description.empty() ? "an NVIDIA adapter" : adapter->description},
      {"state",
       missing ? "is not registered as a service"
               : "is disabled (Start " + start_name(*service->start) + ")"},
      {"key",
       fmt::format("HKLM:\\SYSTEM\\CurrentControlSet\\Services\\{}",
                   missing ? k_driver_service : std::string_view(service->name))}};
  d.tags.emplace_back(missing ? "missing" : "disabled");
  if (missing) {
    d.evidence.push_back(Evidence{services.source(),
                                  "no nvlddmkm key among the services (the NVIDIA ones read: "
                                      + std::to_string(services->size()) + ")"});
  } else {
    d.evidence.push_back(
        Evidence{service->start.source(),
                 fmt::format("Start {} (ImagePath {})",
                             start_name(*service->start),
                             service->image_path.empty() ? "not set" : service->image_path)});
  }
  d.evidence.push_back(
      Evidence{facts.windows.display_adapters.source(),
               fmt::format("display adapter {}: {} (driver {})",
                           adapter->key,
                           adapter->description,
                           adapter->driver_version.empty() ? "?" : adapter->driver_version)});
  out.add(std::move(d));
}

// The "NVIDIA Graphics Driver" entry of Apps & Features names another version than the driver
// itself (nvcuda.dll's version resource, the adapter's DriverVersion): the installer stopped half
// way, or the new driver waits for a restart.
void check_windows_driver_install(const facts::Facts& facts,
                                  const kb::KnowledgeBase&,
                                  FindingSink& out) {
  const auto& programs = facts.windows.installed_programs;
  if (facts.collection.os_family != "windows" || !programs) {
    return;
  }
  // What the driver files say, each with where it was read.
  std::vector<std::pair<std::string, Evidence>> running;
  for (const facts::DriverLibrary& lib : facts.driver.libraries) {
    if (lib.name == "libcuda" && lib.version) {
      running.emplace_back(*lib.version,
                           Evidence{lib.version.source(), lib.path + ": " + *lib.version});
    }
  }
  if (const facts::DisplayAdapter* a = first_nvidia_adapter(facts); a && a->nvidia_version) {
    running.emplace_back(*a->nvidia_version,
                         Evidence{a->nvidia_version.source(),
                                  fmt::format("display adapter {}: DriverVersion {} ({})",
                                              a->key,
                                              a->driver_version,
                                              *a->nvidia_version)});
  }
  if (running.empty()) {
    return;
  }
  for (const facts::InstalledProgram& p : *programs) {
    if (p.kind != "nvidia_driver" || !is_driver_version(p.display_version)) {
      continue;
    }
    const auto other = std::find_if(running.begin(), running.end(), [&](const auto& r) {
      return r.first != p.display_version;
    });
    if (other == running.end()) {
      continue;
    }
    FindingDraft d;
    d.id = ids::k_windows_driver_install_incomplete;
    d.subject = "NVIDIA driver";
    d.shell = util::Shell::powershell;
    d.params = {{"installed", p.display_version}, {"running", other->first}};
    d.evidence.push_back(Evidence{p.source + "\\DisplayVersion",
                                  fmt::format("{}: {}", p.display_name, p.display_version)});
    for (const auto& r : running) {
      d.evidence.push_back(r.second);
    }
    out.add(std::move(d));
  }
}

// Uninstall entries of a CUDA release whose folder is gone (InstallLocation, or the folder of
// its CUDA_PATH_V<major>_<minor>), with no toolkit of that release found: it was deleted by hand,
// and the entries and variables are left over.
void check_windows_stale_toolkit(const facts::Facts& facts,
                                 const kb::KnowledgeBase&,
                                 FindingSink& out) {
  const auto& programs = facts.windows.installed_programs;
  if (facts.collection.os_family != "windows" || !programs) {
    return;
  }
  std::map<std::string, std::vector<const facts::InstalledProgram*>> by_release;
  for (const facts::InstalledProgram& p : *programs) {
    if (p.kind == "cuda") {
      if (std::string release = cuda_release(p); !release.empty()) {
        by_release[release].push_back(&p);
      }
    }
  }
  for (const auto& item : by_release) {
    // Named, not a structured binding: the lambda below captures it (clang 14 cannot).
    const std::string& release = item.first;
    const std::vector<const facts::InstalledProgram*>& entries = item.second;
    const bool found = std::any_of(
        facts.cuda_toolkits.begin(), facts.cuda_toolkits.end(), [&](const facts::CudaToolkit& t) {
          return t.version
                 && (t.version->str() == release || t.version->str().starts_with(release + "."));
        });
    if (found) {
      continue;
    }
    std::vector<Evidence> gone;
    bool exists = false;
    for (const facts::InstalledProgram* p : entries) {
      if (p->location_exists) {
        exists = exists || *p->location_exists;
        if (!*p->location_exists) {
          gone.push_back(
              Evidence{p->source + "\\InstallLocation",
                       fmt::format("{}: {} does not exist", p->display_name, p->install_location)});
        }
      }
    }
    const std::string variable = "CUDA_PATH_V" + util::replace_all(release, ".", "_");
    std::string stale_variable;
    for (const auto& [name, value] : facts.environment) {
      if (util::to_lower(name) != util::to_lower(variable)) {
        continue;
      }
      if (const facts::ProbedPath* where = probed_windows_dir(facts, value)) {
        exists = exists || where->exists;
        if (!where->exists) {
          stale_variable = name;
          gone.push_back(Evidence{"env:" + name, value + " does not exist"});
        }
      }
    }
    if (exists || gone.empty()) {
      continue;
    }
    FindingDraft d;
    d.id = ids::k_windows_cuda_toolkit_removed;
    d.subject = "CUDA " + release;
    d.shell = util::Shell::powershell;
    d.params = {
        {"release", release},
        {"entries",
         entries.size() == 1 ? std::string("1 entry") : fmt::format("{} entries", entries.size())},
        {"variable", stale_variable.empty() ? variable : stale_variable},
        {"environment_key",
         "HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"}};
    if (!stale_variable.empty()) {
      d.tags.emplace_back("stale_variable");
    }
    d.evidence = std::move(gone);
    out.add(std::move(d));
  }
}

} // namespace doctor::checks
