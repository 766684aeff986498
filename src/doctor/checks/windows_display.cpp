// SPDX-License-Identifier: MIT
//
// What the Windows registry says about the display driver and the environment: an NVIDIA card
// that Windows drives with its generic "Microsoft Basic Display Adapter", old NVIDIA driver
// packages kept in the driver store, and a PATH changed in the registry that the console the
// doctor ran in has not picked up.
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace doctor::checks {

namespace ids = kb::ids;

namespace {

constexpr std::uint32_t k_nvidia = 0x10de;

bool is_nvidia_adapter(const facts::DisplayAdapter& a) {
  return a.vendor_id == k_nvidia || util::to_lower(a.provider).starts_with("nvidia");
}

bool is_basic_display(const facts::DisplayAdapter& a) {
  return util::to_lower(a.description).find("basic display") != std::string::npos;
}

// %NAME% references expanded from the facts' environment (names compare without case); an
// unknown name stays as it is, as ExpandEnvironmentStrings leaves it.
std::string expand(std::string_view value, const facts::Facts& facts) {
  std::string out;
  std::size_t i = 0;
  while (i < value.size()) {
    const auto open = value.find('%', i);
    const auto close = open == std::string_view::npos ? open : value.find('%', open + 1);
    if (close == std::string_view::npos) {
      out.append(value.substr(i));
      break;
    }
    out.append(value.substr(i, open - i));
    const std::string name = util::to_lower(value.substr(open + 1, close - open - 1));
    const auto it = std::find_if(facts.environment.begin(),
                                 facts.environment.end(),
                                 [&](const auto& kv) { return util::to_lower(kv.first) == name; });
    if (it != facts.environment.end()) {
      out.append(it->second);
    } else {
      out.append(value.substr(open, close - open + 1));
    }
    i = close + 1;
  }
  return out;
}

std::string process_path(const facts::Facts& facts) {
  for (const auto& [k, v] : facts.environment) {
    if (util::to_lower(k) == "path") {
      return v;
    }
  }
  return {};
}

// The folders of the facts that hold GPU libraries: cuDNN installations and toolkits' bin.
std::set<std::string> gpu_library_dirs(const facts::Facts& facts) {
  std::set<std::string> out;
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    out.insert(loader::windows_path_key(inst.dir));
  }
  for (const facts::CudaToolkit& tk : facts.cuda_toolkits) {
    out.insert(loader::windows_path_key(loader::windows_join(tk.path, "bin")));
  }
  return out;
}

// An adapter that can render besides the NVIDIA one: an Intel or AMD GPU (not Windows' generic
// adapter, not a remote or indirect display).
bool is_other_gpu(const facts::DisplayAdapter& a) {
  constexpr std::uint32_t k_intel = 0x8086;
  constexpr std::uint32_t k_amd = 0x1002;
  const std::string provider = util::to_lower(a.provider);
  return !is_nvidia_adapter(a) && !is_basic_display(a)
         && (a.vendor_id == k_intel || a.vendor_id == k_amd || provider.starts_with("intel")
             || provider.starts_with("advanced micro devices") || provider.starts_with("amd"));
}

// The GpuPreference a UserGpuPreferences value sets ("GpuPreference=1;" and other settings
// separated by ';'): 0 let Windows decide, 1 power saving, 2 high performance; nullopt if none.
std::optional<unsigned> gpu_preference(std::string_view value) {
  for (std::string_view item : util::split(value, ';')) {
    const auto eq = item.find('=');
    if (eq != std::string_view::npos
        && util::to_lower(util::trim(item.substr(0, eq))) == "gpupreference") {
      const std::string_view n = util::trim(item.substr(eq + 1));
      if (n.size() == 1 && n[0] >= '0' && n[0] <= '9') {
        return static_cast<unsigned>(n[0] - '0');
      }
    }
  }
  return std::nullopt;
}

// The DirectML packages of an environment: they run on the adapter Windows gives the process.
std::vector<std::string> directml_packages(const facts::PythonEnv& env) {
  std::vector<std::string> out;
  for (const facts::PythonPackage& p : env.packages) {
    if (util::to_lower(p.name).find("directml") != std::string::npos) {
      out.push_back(p.version.empty() ? p.name : fmt::format("{} {}", p.name, p.version));
    }
  }
  return out;
}

} // namespace

// Hybrid graphics (an Intel or AMD GPU beside the NVIDIA one) with a Python interpreter that
// Windows is told to run on the power-saving GPU. The per-application choice
// (Settings > Display > Graphics) picks the adapter for Direct3D, and so for DirectML; CUDA
// finds the NVIDIA GPU itself and is not affected. So it is a warning for an environment with a
// DirectML package, and otherwise a note that the setting is not what keeps CUDA off the GPU.
void check_windows_hybrid_graphics(const facts::Facts& facts,
                                   const kb::KnowledgeBase&,
                                   FindingSink& out) {
  const auto& adapters = facts.windows.display_adapters;
  const auto& preferences = facts.windows.gpu_preferences;
  if (facts.collection.os_family != "windows" || !adapters || !preferences
      || preferences->empty()) {
    return;
  }
  const auto nvidia = std::find_if(adapters->begin(), adapters->end(), is_nvidia_adapter);
  const auto other = std::find_if(adapters->begin(), adapters->end(), is_other_gpu);
  if (nvidia == adapters->end() || other == adapters->end()) {
    return;
  }
  std::map<std::string, std::pair<std::string, std::string>> by_key; // key -> (path, value)
  for (const auto& [app, value] : *preferences) {
    by_key.emplace(loader::windows_path_key(app), std::make_pair(app, value));
  }
  std::set<std::string> reported;
  for (const facts::PythonEnv& env : facts.python_envs) {
    for (const char* exe :
         {"python.exe", "pythonw.exe", "Scripts\\python.exe", "Scripts\\pythonw.exe"}) {
      const auto it = by_key.find(loader::windows_path_key(loader::windows_join(env.prefix, exe)));
      if (it == by_key.end() || gpu_preference(it->second.second) != 1U
          || !reported.insert(it->first).second) {
        continue;
      }
      const std::vector<std::string> directml = directml_packages(env);
      const std::string& app = it->second.first;
      FindingDraft d;
      d.id = ids::k_windows_hybrid_python_power_saving;
      d.subject = app;
      d.shell = util::Shell::powershell;
      if (!directml.empty()) {
        d.severity = Severity::warning;
      }
      d.params = {
          {"exe", app},
          {"integrated", other->description},
          {"nvidia", nvidia->description},
          {"effect",
           directml.empty()
               ? fmt::format("CUDA frameworks find the {} themselves and are not affected; "
                             "Direct3D, OpenGL and DirectML work this Python starts (a GUI, "
                             "torch-directml, onnxruntime-directml) runs on the {}",
                             nvidia->description,
                             other->description)
               : fmt::format("{} in {} run{} through DirectML on the adapter Windows assigns, "
                             "so on the {} and not on the {}",
                             util::join(directml, ", "),
                             env.prefix,
                             directml.size() == 1 ? "s" : "",
                             other->description,
                             nvidia->description)}};
      d.commands = {{"prefer",
                     util::Command("Set-ItemProperty -Path "
                                   "'HKCU:\\Software\\Microsoft\\DirectX\\"
                                   "UserGpuPreferences' -Name ")
                         .value(app)
                         .text(" -Value 'GpuPreference=2;'")}};
      d.evidence.push_back(
          Evidence{preferences.source(), fmt::format("{} = {}", app, it->second.second)});
      d.evidence.push_back(Evidence{
          adapters.source(),
          fmt::format("display adapters: {} and {}", nvidia->description, other->description)});
      out.add(std::move(d));
    }
  }
}

// An NVIDIA GPU on the PCI bus that no NVIDIA display driver serves, with Windows' generic
// adapter standing in: CUDA, NVML and nvidia-smi see no GPU.
void check_windows_basic_display(const facts::Facts& facts,
                                 const kb::KnowledgeBase&,
                                 FindingSink& out) {
  const auto& adapters = facts.windows.display_adapters;
  if (facts.collection.os_family != "windows" || !adapters || !facts.pci
      || facts.pci->nvidia_gpus.empty()) {
    return;
  }
  if (std::any_of(adapters->begin(), adapters->end(), is_nvidia_adapter)) {
    return;
  }
  const auto basic = std::find_if(adapters->begin(), adapters->end(), is_basic_display);
  if (basic == adapters->end()) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_windows_basic_display_adapter;
  d.subject = "display driver";
  d.shell = util::Shell::powershell;
  const facts::PciDevice& gpu = facts.pci->nvidia_gpus.front();
  d.params = {{"adapter", basic->description},
              {"gpu", gpu.name ? *gpu.name : fmt::format("NVIDIA device {:04x}", gpu.device_id)},
              {"address", gpu.address}};
  d.evidence.push_back(
      Evidence{adapters.source(),
               fmt::format("display adapter {}: {} (provider {}, driver {})",
                           basic->key,
                           basic->description,
                           basic->provider.empty() ? "?" : basic->provider,
                           basic->driver_version.empty() ? "?" : basic->driver_version)});
  add_gpu_evidence(facts, d);
  out.add(std::move(d));
}

// NVIDIA display driver packages in the driver store beyond the one in use: what is left of
// earlier installs (Windows keeps them), and what Display Driver Uninstaller removes when a new
// install fails or keeps the old version.
void check_windows_driver_residue(const facts::Facts& facts,
                                  const kb::KnowledgeBase&,
                                  FindingSink& out) {
  const auto& packages = facts.windows.nvidia_driver_packages;
  if (facts.collection.os_family != "windows" || !packages || packages->size() < 2) {
    return;
  }
  FindingDraft d;
  d.id = ids::k_windows_driver_store_residue;
  d.subject = "driver store";
  d.shell = util::Shell::powershell;
  std::string in_use = "not known";
  if (const auto& adapters = facts.windows.display_adapters) {
    for (const facts::DisplayAdapter& a : *adapters) {
      if (is_nvidia_adapter(a)) {
        in_use = fmt::format("{} {} ({})",
                             a.description,
                             a.nvidia_version ? *a.nvidia_version : a.driver_version,
                             a.inf_path.empty() ? "?" : a.inf_path);
        break;
      }
    }
  }
  d.params = {{"count", std::to_string(packages->size())},
              {"list", util::join(*packages, ", ")},
              {"in_use", in_use}};
  for (const std::string& p : *packages) {
    d.evidence.push_back(Evidence{packages.source(), p});
  }
  out.add(std::move(d));
}

// A folder that holds cuDNN or CUDA DLLs, on PATH as the registry defines it (machine or user),
// but not on PATH as the doctor's own process has it: the console was opened before the change,
// and every program started from it, Python included, still searches the old PATH.
void check_windows_registry_path(const facts::Facts& facts,
                                 const kb::KnowledgeBase&,
                                 FindingSink& out) {
  if (facts.collection.os_family != "windows" || !facts.collection.live) {
    return;
  }
  std::set<std::string> in_process;
  for (const std::string& e : loader::split_windows_path_list(process_path(facts))) {
    in_process.insert(loader::windows_path_key(e));
  }
  const std::set<std::string> gpu_dirs = gpu_library_dirs(facts);
  std::set<std::string> reported;
  for (const auto* value : {&facts.windows.machine_path, &facts.windows.user_path}) {
    if (!*value) {
      continue;
    }
    for (const std::string& raw : loader::split_windows_path_list(**value)) {
      const std::string dir = loader::normalize_windows_path(expand(raw, facts));
      const std::string key = loader::windows_path_key(dir);
      if (in_process.contains(key) || !gpu_dirs.contains(key) || !reported.insert(key).second) {
        continue;
      }
      FindingDraft d;
      d.id = ids::k_windows_registry_path_not_in_process;
      d.subject = dir;
      d.shell = util::Shell::powershell;
      d.params = {
          {"dir", dir},
          {"where",
           value == &facts.windows.machine_path ? "the machine's PATH" : "the user's PATH"}};
      d.evidence.push_back(Evidence{value->source(), fmt::format("PATH entry {}", raw)});
      d.evidence.push_back(
          Evidence{"env:PATH", fmt::format("{} is not on the PATH of this console", dir)});
      out.add(std::move(d));
    }
  }
}

} // namespace doctor::checks
