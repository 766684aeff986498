// SPDX-License-Identifier: MIT
// The GPU services of a Windows system, from HKLM\SYSTEM\CurrentControlSet\Services: the NVIDIA
// display driver's kernel service (nvlddmkm: without it nvcuda.dll reaches no GPU), the display
// container, and every other service whose ImagePath lies in an NVIDIA driver folder.
#include <doctor/collect/windows/registry_read.hpp>
#include <doctor/collect/windows/windows_collectors.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model
using namespace windows;

namespace {

constexpr std::string_view k_services = "SYSTEM\\CurrentControlSet\\Services";

// The services read whatever their ImagePath says: the display driver's kernel service and the
// display container service its package installs (NVIDIA driver packages since R390).
constexpr std::array<std::string_view, 2> k_named_services = {"nvlddmkm",
                                                              "NVDisplay.ContainerLocalSystem"};

// ImagePath parts (lower case) that put a service in an NVIDIA driver: the display driver
// package's driver store folder (nv_dispi.inf_amd64_…) and NVIDIA's Program Files folder.
constexpr std::array<std::string_view, 2> k_nvidia_image_parts = {"\\nv_dispi.inf_",
                                                                  "\\nvidia corporation\\"};

// A Windows machine has some 600 to 1000 services. A key with more is no real registry: its
// services are not looked at for NVIDIA image paths at all (the named ones are read in any
// case), because each key read by name walks the whole list again in libhivex.
constexpr std::size_t k_max_service_keys = 2048;
constexpr std::size_t k_max_service_name = 256;
constexpr std::size_t k_max_service_text = 1024;

bool is_nvidia_image(std::string_view image_path) {
  const std::string lower = util::to_lower(image_path);
  return std::any_of(k_nvidia_image_parts.begin(),
                     k_nvidia_image_parts.end(),
                     [&](std::string_view part) { return lower.find(part) != std::string::npos; });
}

// The text of a string value of `key`, sanitized; "" when absent or of another type.
std::string service_text(const Registry& r, const std::string& key, std::string_view name) {
  return util::sanitize(string_value(r, RegistryRoot::local_machine, key, name).value_or(""),
                        k_max_service_text);
}

WindowsService read_service(const Registry& r, const std::string& name) {
  const auto hklm = RegistryRoot::local_machine;
  const std::string key = fmt::format("{}\\{}", k_services, name);
  WindowsService s;
  s.name = util::sanitize(name, k_max_service_name);
  // A reason names the key, and so the name as the registry has it: sanitized too.
  auto number = [&](std::string_view value) {
    auto f = number_fact(r, hklm, key, value, fmt::format("{}\\{} is not set", key, value));
    return f ? Fact<std::uint64_t>::known(*f, util::sanitize(f.source(), k_max_service_text))
             : Fact<std::uint64_t>::unknown(util::sanitize(f.reason(), k_max_service_text));
  };
  s.start = number("Start");
  s.type = number("Type");
  s.image_path = service_text(r, key, "ImagePath");
  s.display_name = service_text(r, key, "DisplayName");
  s.source = util::sanitize(r.source(hklm, key), k_max_service_text);
  return s;
}

bool has_service(const std::vector<WindowsService>& services, std::string_view name) {
  const std::string lower = util::to_lower(name);
  return std::any_of(services.begin(), services.end(), [&](const WindowsService& s) {
    return util::to_lower(s.name) == lower;
  });
}

Fact<std::vector<WindowsService>> gpu_services(const Registry& r) {
  const auto hklm = RegistryRoot::local_machine;
  auto names = r.subkeys(hklm, k_services);
  if (!names) {
    // Every Windows has this key: without it the examined hive is no SYSTEM hive of a Windows
    // that boots, and "no nvlddmkm service" would be a guess.
    return Fact<std::vector<WindowsService>>::unknown(
        names.error().code == ErrorCode::not_found
            ? fmt::format("HKLM\\{} does not exist", k_services)
            : names.error().message);
  }
  std::vector<WindowsService> out;
  for (std::string_view wanted : k_named_services) {
    const std::string key = fmt::format("{}\\{}", k_services, wanted);
    if (r.values(hklm, key)) { // read by name: a capped listing cannot hide it
      // The key's name as the registry spells it, when the listing has it.
      const auto listed = std::find_if(names->begin(), names->end(), [&](const std::string& n) {
        return util::to_lower(n) == util::to_lower(wanted);
      });
      out.push_back(read_service(r, listed == names->end() ? std::string(wanted) : *listed));
    }
  }
  const bool scan = names->size() <= k_max_service_keys;
  for (std::size_t i = 0; scan && i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    if (has_service(out, name)) {
      continue;
    }
    const std::string key = fmt::format("{}\\{}", k_services, name);
    if (is_nvidia_image(string_value(r, hklm, key, "ImagePath").value_or(""))) {
      out.push_back(read_service(r, name));
    }
  }
  std::sort(out.begin(), out.end(), [](const WindowsService& a, const WindowsService& b) {
    return a.name < b.name;
  });
  std::string source = r.source(hklm, k_services);
  if (!scan) {
    source += fmt::format(
        " ({} keys, more than the {} a Windows has: only {} read)",
        names->size(),
        k_max_service_keys,
        util::join(std::vector<std::string>(k_named_services.begin(), k_named_services.end()),
                   " and "));
  }
  return Fact<std::vector<WindowsService>>::known(std::move(out),
                                                  util::sanitize(source, k_max_service_text));
}

} // namespace

void collect_windows_services(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  std::string reason;
  const Registry* r = registry_of(root, reason);
  facts.windows.services =
      r == nullptr ? Fact<std::vector<WindowsService>>::unknown(reason) : gpu_services(*r);
}

} // namespace doctor::collect
