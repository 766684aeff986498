// SPDX-License-Identifier: MIT
// What the registry says is installed: the Pythons the py launcher finds (PEP 514) and the Visual
// C++ redistributables every framework's DLLs import.
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

// Where PEP 514 registrations live, in the py launcher's order.
struct PythonRoot {
  const char* hive; // as PythonRegistration::hive says it
  RegistryRoot root;
  const char* key;
};
constexpr std::array<PythonRoot, 3> k_python_roots = {{
    {"HKCU", RegistryRoot::current_user, "Software\\Python"},
    {"HKLM", RegistryRoot::local_machine, "SOFTWARE\\Python"},
    {"HKLM32", RegistryRoot::local_machine, "SOFTWARE\\WOW6432Node\\Python"},
}};

// The VC++ 2015-2022 redistributables' keys: the native view, then the 32-bit one where the x86
// package of a 64-bit Windows registers.
constexpr std::array<std::string_view, 2> k_runtime_keys = {
    "SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes",
    "SOFTWARE\\WOW6432Node\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes",
};
constexpr std::array<std::string_view, 3> k_runtime_arches = {"x64", "x86", "arm64"};

// The subkeys of `key`: empty when it does not exist; nullopt (with `error`) when unreadable.
std::optional<std::vector<std::string>>
subkeys_or_none(const Registry& r, RegistryRoot root, const std::string& key, std::string& error) {
  auto keys = r.subkeys(root, key);
  if (keys) {
    return std::move(*keys);
  }
  if (keys.error().code == ErrorCode::not_found) {
    return std::vector<std::string>{};
  }
  error = keys.error().message;
  return std::nullopt;
}

std::optional<PythonRegistration> read_registration(const Registry& r,
                                                    const PythonRoot& where,
                                                    const std::string& company,
                                                    const std::string& tag) {
  const std::string key = fmt::format("{}\\{}\\{}", where.key, company, tag);
  PythonRegistration p;
  p.hive = where.hive;
  p.company = company;
  p.tag = tag;
  p.install_path = string_value(r, where.root, key + "\\InstallPath", "").value_or("");
  if (p.install_path.empty()) {
    return std::nullopt; // PEP 514: a tag without InstallPath is no usable installation
  }
  p.executable = string_value(r, where.root, key + "\\InstallPath", "ExecutablePath")
                     .value_or(p.install_path
                               + (p.install_path.ends_with("\\") ? "python.exe" : "\\python.exe"));
  p.version = string_value(r, where.root, key, "SysVersion")
                  .value_or(string_value(r, where.root, key, "Version").value_or(""));
  p.display_name = string_value(r, where.root, key, "DisplayName").value_or("");
  return p;
}

Fact<std::vector<PythonRegistration>> python_registrations(const Registry& r) {
  std::vector<PythonRegistration> out;
  std::vector<std::string> sources;
  std::vector<std::string> errors;
  for (const PythonRoot& where : k_python_roots) {
    std::string error;
    auto companies = subkeys_or_none(r, where.root, where.key, error);
    if (!companies) {
      if (std::find(errors.begin(), errors.end(), error) == errors.end()) {
        errors.push_back(error);
      }
      continue;
    }
    sources.push_back(r.source(where.root, where.key));
    for (const std::string& company : *companies) {
      if (util::to_lower(company) == "pylauncher") {
        continue; // PEP 514 reserves it for the launcher's own settings
      }
      const std::string company_key = fmt::format("{}\\{}", where.key, company);
      auto tags = subkeys_or_none(r, where.root, company_key, error);
      for (const std::string& tag : tags ? *tags : std::vector<std::string>{}) {
        if (auto p = read_registration(r, where, company, tag)) {
          out.push_back(std::move(*p));
        }
      }
    }
  }
  if (sources.empty()) {
    return Fact<std::vector<PythonRegistration>>::unknown(util::join(errors, "; "));
  }
  return Fact<std::vector<PythonRegistration>>::known(std::move(out), util::join(sources, "; "));
}

Fact<std::vector<VcRuntime>> vc_runtimes(const Registry& r) {
  const auto hklm = RegistryRoot::local_machine;
  std::vector<VcRuntime> out;
  std::vector<std::string> sources;
  std::string error;
  for (std::string_view base : k_runtime_keys) {
    for (std::string_view arch : k_runtime_arches) {
      const std::string key = fmt::format("{}\\{}", base, arch);
      auto values = r.values(hklm, key);
      if (!values) {
        if (values.error().code != ErrorCode::not_found) {
          error = values.error().message;
        }
        continue;
      }
      if (std::any_of(out.begin(), out.end(), [&](const VcRuntime& v) { return v.arch == arch; })) {
        continue;
      }
      VcRuntime rt;
      rt.arch = std::string(arch);
      for (const RegistryValue& v : *values) {
        const std::string name = util::to_lower(v.name);
        if (name == "installed" && v.type == RegistryValue::Type::dword) {
          rt.installed = v.number != 0;
        } else if (name == "version" && v.type == RegistryValue::Type::string) {
          rt.version = v.text;
        }
      }
      out.push_back(rt);
      sources.push_back(r.source(hklm, key));
    }
  }
  if (!error.empty() && out.empty()) {
    return Fact<std::vector<VcRuntime>>::unknown(error);
  }
  std::sort(out.begin(), out.end(), [](const VcRuntime& a, const VcRuntime& b) {
    return a.arch < b.arch;
  });
  return Fact<std::vector<VcRuntime>>::known(std::move(out),
                                             sources.empty() ? r.source(hklm, k_runtime_keys[0])
                                                             : util::join(sources, "; "));
}

} // namespace

void collect_windows_software(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  WindowsInfo& w = facts.windows;
  std::string reason;
  const Registry* r = registry_of(root, reason);
  if (r == nullptr) {
    w.python_registrations = Fact<std::vector<PythonRegistration>>::unknown(reason);
    w.vc_runtimes = Fact<std::vector<VcRuntime>>::unknown(reason);
    return;
  }
  w.python_registrations = python_registrations(*r);
  w.vc_runtimes = vc_runtimes(*r);
}

} // namespace doctor::collect
