// SPDX-License-Identifier: MIT
// The Pythons of a Windows machine: the PEP 514 registrations the py launcher reads
// (HKCU/HKLM\Software\Python\<Company>\<Tag>), $VIRTUAL_ENV and $CONDA_PREFIX, python.exe on PATH
// (a venv's Scripts folder leads to the venv), and conda's bases with their envs; each read with
// the same framework readers as on Linux, in the Windows layout (Lib\site-packages).
#include <doctor/collect/collect.hpp>
#include <doctor/collect/python_envs.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/formats/python_files.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using platform::RegistryRoot;

std::string registration_text(const platform::Registry& reg,
                              RegistryRoot hive,
                              const std::string& key,
                              std::string_view name) {
  auto v = reg.value(hive, key, name);
  if (!v
      || (v->type != platform::RegistryValue::Type::string
          && v->type != platform::RegistryValue::Type::expand_string)) {
    return {};
  }
  return util::sanitize(v->text, 1024);
}

std::vector<PythonRegistration> pep514_registrations(const platform::SysRoot& root) {
  std::vector<PythonRegistration> out;
  const platform::Registry* reg = root.registry();
  if (reg == nullptr) {
    return out;
  }
  // PEP 514's three places; a 32-bit Python registers in HKLM's 32-bit view, which the 64-bit
  // view shows under WOW6432Node.
  struct Place {
    RegistryRoot hive;
    const char* label;
    const char* key;
  };
  constexpr Place k_places[] = {
      {RegistryRoot::current_user, "HKCU", "Software\\Python"},
      {RegistryRoot::local_machine, "HKLM", "Software\\Python"},
      {RegistryRoot::local_machine, "HKLM32", "SOFTWARE\\WOW6432Node\\Python"}};
  for (const auto& [hive, label, python_key] : k_places) {
    for (const std::string& company : registry_subkeys(root, hive, python_key)) {
      if (company == "PyLauncher") {
        continue; // the launcher's own settings (PEP 514)
      }
      const std::string company_key = fmt::format("{}\\{}", python_key, company);
      for (const std::string& tag : registry_subkeys(root, hive, company_key)) {
        const std::string tag_key = fmt::format("{}\\{}", company_key, tag);
        const std::string install_key = tag_key + "\\InstallPath";
        PythonRegistration r;
        r.hive = label;
        r.company = company;
        r.tag = tag;
        r.install_path =
            loader::normalize_windows_path(registration_text(*reg, hive, install_key, ""));
        if (r.install_path.empty()) {
          continue; // PEP 514: without InstallPath there is no installation to use
        }
        r.executable = registration_text(*reg, hive, install_key, "ExecutablePath");
        if (r.executable.empty()) {
          r.executable = loader::windows_join(r.install_path, "python.exe");
        }
        r.version = registration_text(*reg, hive, tag_key, "SysVersion");
        if (r.version.empty()) {
          r.version = registration_text(*reg, hive, tag_key, "Version");
        }
        r.display_name = registration_text(*reg, hive, tag_key, "DisplayName");
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

struct WindowsPythonCandidate {
  std::string prefix;
  std::string via;
  std::string version; // from a registration, when it says
};

// conda bases: the base of $CONDA_PREFIX (an env under <base>\envs) and the installers' usual
// folders, with their envs and ~\.conda\environments.txt.
void add_conda(const platform::SysRoot& root, std::vector<WindowsPythonCandidate>& out) {
  std::vector<std::string> bases;
  if (auto prefix = windows_env(root, "CONDA_PREFIX"); prefix && !prefix->empty()) {
    const std::string parent = loader::windows_parent(loader::normalize_windows_path(*prefix));
    bases.push_back(util::to_lower(loader::windows_file_name(parent)) == "envs"
                        ? loader::windows_parent(parent)
                        : loader::normalize_windows_path(*prefix));
  }
  const auto home = windows_env(root, "USERPROFILE");
  for (const char* name : {"anaconda3", "miniconda3", "miniforge3", "mambaforge"}) {
    if (home) {
      bases.push_back(loader::windows_join(*home, name));
    }
    bases.push_back(fmt::format("C:\\ProgramData\\{}", name));
  }
  std::set<std::string> seen;
  for (const std::string& base : bases) {
    if (!seen.insert(loader::windows_path_key(base)).second
        || !windows_is_dir(root, loader::windows_join(base, "conda-meta"))) {
      continue;
    }
    out.push_back({base, "conda:base", ""});
    const std::string envs = loader::windows_join(base, "envs");
    if (auto entries = list_windows_dir(root, envs)) {
      for (const platform::DirEntry& e : *entries) {
        if (e.kind == platform::FileKind::directory) {
          out.push_back({loader::windows_join(envs, e.name), "conda:envs", ""});
        }
      }
    }
  }
  if (home) {
    const std::string txt = loader::windows_join(*home, ".conda\\environments.txt");
    if (auto text = read_windows_file(root, txt, k_max_python_small_file)) {
      for (const std::string& line : formats::parse_conda_environments_txt(*text)) {
        out.push_back({line, "conda:environments.txt", ""});
      }
    }
  }
}

std::vector<WindowsPythonCandidate> python_candidates_windows(const platform::SysRoot& root,
                                                              const Facts& facts,
                                                              const CollectOptions& options) {
  std::vector<WindowsPythonCandidate> out;
  for (const std::string& dir :
       loader::split_windows_path_list(windows_env(root, "PATH").value_or(""))) {
    // WindowsApps holds the Store's app execution aliases, not an installation (the Store
    // Python registers itself under PEP 514).
    if (util::to_lower(dir).ends_with("\\microsoft\\windowsapps")
        || !windows_is_file(root, loader::windows_join(dir, "python.exe"))) {
      continue;
    }
    const std::string parent = loader::windows_parent(loader::normalize_windows_path(dir));
    if (util::to_lower(loader::windows_file_name(dir)) == "scripts"
        && windows_is_file(root, loader::windows_join(parent, "pyvenv.cfg"))) {
      out.push_back({parent, "PATH:python.exe", ""}); // a venv's Scripts folder
    } else {
      out.push_back({dir, "PATH:python.exe", ""});
    }
  }
  if (auto venv = windows_env(root, "VIRTUAL_ENV"); venv && !venv->empty()) {
    out.push_back({*venv, "env:VIRTUAL_ENV", ""});
  }
  if (auto conda = windows_env(root, "CONDA_PREFIX"); conda && !conda->empty()) {
    out.push_back({*conda, "env:CONDA_PREFIX", ""});
  }
  if (facts.windows.python_registrations) {
    for (const PythonRegistration& r : *facts.windows.python_registrations) {
      out.push_back(
          {r.install_path, fmt::format("pep514:{}\\{}\\{}", r.hive, r.company, r.tag), r.version});
    }
  }
  add_conda(root, out);
  for (const std::string& named : options.python_prefixes) {
    out.push_back({named, "arg:--python", ""});
  }
  return out;
}

Fact<std::string> python_version_of(const platform::SysRoot& root,
                                    const std::string& prefix,
                                    const std::string& registered) {
  const std::string cfg = loader::windows_join(prefix, "pyvenv.cfg");
  if (auto text = read_windows_file(root, cfg, k_max_python_small_file)) {
    if (auto v = formats::parse_pyvenv_cfg_version(*text)) {
      return Fact<std::string>::known(*v, "file:" + cfg);
    }
  }
  const std::string meta = loader::windows_join(prefix, "conda-meta");
  if (auto entries = list_windows_dir(root, meta)) {
    for (const platform::DirEntry& e : *entries) {
      if (auto v = formats::python_version_from_conda_meta(e.name)) {
        return Fact<std::string>::known(*v, fmt::format("file:{}\\{}", meta, e.name));
      }
    }
  }
  if (!registered.empty()) {
    return Fact<std::string>::known(registered, "registry:SysVersion");
  }
  // python311.dll next to python.exe.
  if (auto entries = list_windows_dir(root, prefix)) {
    for (const platform::DirEntry& e : *entries) {
      const std::string lower = util::to_lower(e.name);
      if (lower.size() > 11 && lower.starts_with("python3") && lower.ends_with(".dll")) {
        const std::string digits = lower.substr(7, lower.size() - 11);
        if (!digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
              return c >= '0' && c <= '9';
            })) {
          return Fact<std::string>::known("3." + digits,
                                          fmt::format("name:{}\\{}", prefix, e.name));
        }
      }
    }
  }
  return Fact<std::string>::unknown(fmt::format(
      "{} has no pyvenv.cfg version, conda-meta python record, registration or python3*.dll",
      prefix));
}

// The inner-path results of the shared readers, back in Windows form.
void to_windows_paths(const platform::SysRoot& root, PythonEnv& env) {
  if (env.site_packages) {
    env.site_packages = Fact<std::string>::known(windows_outer(root, *env.site_packages),
                                                 env.site_packages.source());
  }
  for (PythonPackage& p : env.packages) {
    p.source = windows_outer(root, p.source);
  }
  for (Framework& f : env.frameworks) {
    f.location = windows_outer(root, f.location);
  }
}

} // namespace

void collect_windows_python(const platform::SysRoot& root,
                            const CollectOptions& options,
                            Facts& facts) {
  if (facts.windows.python_registrations) {
    // collect_windows_software read them already (with each key's source).
  } else if (root.registry() == nullptr) {
    facts.windows.python_registrations = Fact<std::vector<PythonRegistration>>::unknown(
        "the registry of this machine cannot be read here");
  } else {
    facts.windows.python_registrations = Fact<std::vector<PythonRegistration>>::known(
        pep514_registrations(root),
        "registry:HKCU\\Software\\Python+HKLM\\Software\\Python+"
        "HKLM\\SOFTWARE\\WOW6432Node\\Python");
  }
  std::vector<PythonEnv> envs;
  for (const WindowsPythonCandidate& c : python_candidates_windows(root, facts, options)) {
    const std::string prefix = loader::normalize_windows_path(c.prefix);
    if (prefix.empty() || !windows_is_dir(root, prefix)) {
      continue;
    }
    const std::string key = loader::windows_path_key(prefix);
    auto it = std::find_if(envs.begin(), envs.end(), [&](const PythonEnv& e) {
      return loader::windows_path_key(e.prefix) == key;
    });
    if (it != envs.end()) {
      it->found_via.push_back(c.via);
      continue;
    }
    PythonEnv env;
    env.prefix = prefix;
    env.found_via.push_back(c.via);
    env.kind = windows_is_file(root, loader::windows_join(prefix, "pyvenv.cfg"))  ? "venv"
               : windows_is_dir(root, loader::windows_join(prefix, "conda-meta")) ? "conda"
                                                                                  : "system";
    env.python_version = python_version_of(root, prefix, c.version);
    envs.push_back(std::move(env));
  }
  for (PythonEnv& env : envs) {
    std::sort(env.found_via.begin(), env.found_via.end());
    env.found_via.erase(std::unique(env.found_via.begin(), env.found_via.end()),
                        env.found_via.end());
    const std::string site = loader::windows_join(env.prefix, "Lib\\site-packages");
    std::vector<std::string> dirs;
    if (auto inner = windows_inner(root, site); inner && root.is_dir(*inner)) {
      dirs.push_back(*inner);
      env.site_packages = Fact<std::string>::known(*inner, "dir:" + site);
    } else {
      env.site_packages = Fact<std::string>::unknown(
          fmt::format("{} has no Lib\\site-packages directory", env.prefix));
    }
    read_python_site_packages(root, env, dirs);
    to_windows_paths(root, env);
    facts.python_envs.push_back(std::move(env));
  }
  std::sort(facts.python_envs.begin(),
            facts.python_envs.end(),
            [](const PythonEnv& a, const PythonEnv& b) { return a.prefix < b.prefix; });
}

} // namespace doctor::collect
