// SPDX-License-Identifier: MIT
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace doctor::loader {

namespace {

// The value of environment variable `name` in the facts, whatever its case ("Path", "PATH").
std::string variable(const facts::Facts& facts, std::string_view name) {
  for (const auto& [k, v] : facts.environment) {
    if (util::to_lower(k) == util::to_lower(name)) {
      return v;
    }
  }
  return {};
}

// "3.10.11" -> 10; `fallback` when the version is not known or not 3.x.
unsigned python_minor(const facts::Fact<std::string>& version, unsigned fallback) {
  if (!version) {
    return fallback;
  }
  const auto v = Version::parse_prefix(*version);
  return v && v->major() == 3 ? v->minor() : fallback;
}

// The install folder of the registered interpreter of Python 3.`minor`, 64-bit, HKCU first (the
// py launcher's order); "" if none is registered.
std::string registered_interpreter(const facts::Facts& facts, unsigned minor) {
  const auto& regs = facts.windows.python_registrations;
  if (!regs) {
    return {};
  }
  const std::string tag = fmt::format("3.{}", minor);
  for (const char* hive : {"HKCU", "HKLM"}) {
    for (const facts::PythonRegistration& r : *regs) {
      if (r.hive == hive && r.tag == tag && !r.install_path.empty()) {
        return normalize_windows_path(r.install_path);
      }
    }
  }
  return {};
}

const std::set<std::string>& modelled_frameworks() {
  static const std::set<std::string> k_names{"torch", "tensorflow", "paddle", "onnxruntime"};
  return k_names;
}

} // namespace

WindowsLoaderConfig windows_config_from(const facts::Facts& facts) {
  WindowsLoaderConfig c;
  const facts::WindowsInfo& w = facts.windows;
  if (!w.windows_dir.empty()) {
    c.windows_dir = w.windows_dir;
  }
  c.system32 = w.system32;
  c.known_dlls = w.known_dlls.value_or(std::vector<std::string>{});
  c.safe_dll_search_mode = w.safe_dll_search_mode.value_or(true);
  c.path = variable(facts, "PATH");
  return c;
}

WindowsPythonProcess windows_python_process(const facts::Facts& facts,
                                            const facts::PythonEnv& env) {
  WindowsPythonProcess p;
  p.exec_prefix = normalize_windows_path(env.prefix);
  p.base_exec_prefix = p.exec_prefix;
  p.site_packages = env.site_packages ? normalize_windows_path(*env.site_packages)
                                      : windows_join(p.exec_prefix, "Lib\\site-packages");
  p.python_minor = python_minor(env.python_version, p.python_minor);
  p.loader = windows_config_from(facts);
  p.loader.application_dir = p.exec_prefix;
  if (env.kind == "venv") {
    // A venv's Scripts\python.exe starts the base interpreter, which is the process.
    const std::string base = registered_interpreter(facts, p.python_minor);
    p.base_exec_prefix = base.empty() ? p.exec_prefix : base;
    p.loader.application_dir = base.empty() ? windows_join(p.exec_prefix, "Scripts") : base;
  }
  for (const auto& [k, v] : facts.environment) {
    if (util::to_lower(k) != "path") {
      p.environment[k] = v;
    }
  }
  // The listings of this environment's folders: its site-packages and, for a framework in the
  // user's site-packages (PEP 370), the folder that holds it.
  std::vector<std::string> site_keys = {windows_path_key(p.site_packages)};
  for (const facts::Framework& fw : env.frameworks) {
    if (!fw.location.empty()) {
      site_keys.push_back(windows_path_key(windows_parent(fw.location)));
    }
  }
  for (const auto& [dir, names] : facts.windows.dll_listings) {
    const std::string key = windows_path_key(dir);
    if (std::any_of(site_keys.begin(), site_keys.end(), [&](const std::string& site) {
          return key.starts_with(site + "\\") || key == site;
        })) {
      p.listings[dir] = names;
    }
  }
  return p;
}

std::vector<WindowsLoadContext>
analyse_windows(const facts::Facts& facts, const kb::KnowledgeBase& kb, FileProbe& probe) {
  std::vector<WindowsLoadContext> out;
  if (facts.collection.os_family != "windows") {
    return out;
  }
  for (const facts::PythonEnv& env : facts.python_envs) {
    const WindowsPythonProcess process = windows_python_process(facts, env);
    for (const facts::Framework& fw : env.frameworks) {
      if (!modelled_frameworks().contains(fw.name)) {
        continue;
      }
      WindowsLoadContext ctx = simulate_windows_framework(fw, process, kb, probe);
      if (!ctx.steps.empty()) {
        out.push_back(std::move(ctx));
      }
    }
  }
  // A program that loads cuDNN by name: what the machine's PATH gives every program started from
  // the console the doctor ran in.
  std::set<unsigned> majors;
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    if (inst.major != 0) {
      majors.insert(inst.major);
    }
  }
  std::vector<std::string> dlls;
  dlls.reserve(majors.size() + 1);
  for (unsigned major : majors) {
    dlls.push_back(fmt::format("cudnn64_{}.dll", major));
  }
  dlls.emplace_back("nvcuda.dll");
  WindowsPythonProcess program;
  program.loader = windows_config_from(facts);
  out.push_back(simulate_windows_program(dlls, program, kb, probe));
  return out;
}

} // namespace doctor::loader
