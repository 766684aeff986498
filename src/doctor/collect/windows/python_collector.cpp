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
#include <doctor/util/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

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
  std::string version;  // from a registration, when it says
  std::string userbase; // the Store Python's PYTHONUSERBASE; "" for any other
  std::string version_source = "registry:SysVersion";
};

WindowsPythonCandidate
candidate(std::string prefix, std::string via, std::string version = std::string()) {
  WindowsPythonCandidate c;
  c.prefix = std::move(prefix);
  c.via = std::move(via);
  c.version = std::move(version);
  return c;
}

// A folder of the examined user's profile: the variable `name` (LOCALAPPDATA, APPDATA), else
// %USERPROFILE%\<under_profile>, else what the user's own hive records under Explorer's Shell
// Folders (`shell_folder`), which is how a mounted disk's user is known.
std::optional<std::string> user_folder(const platform::SysRoot& root,
                                       std::string_view name,
                                       std::string_view under_profile,
                                       std::string_view shell_folder) {
  if (auto v = windows_env(root, name); v && !v->empty()) {
    return loader::normalize_windows_path(*v);
  }
  if (auto home = windows_env(root, "USERPROFILE"); home && !home->empty()) {
    return loader::windows_join(loader::normalize_windows_path(*home), under_profile);
  }
  const auto recorded =
      registry_text(root,
                    RegistryRoot::current_user,
                    "Software\\Microsoft\\Windows\\CurrentVersion\\Explorer\\Shell Folders",
                    shell_folder);
  if (recorded && !recorded->empty()) {
    return loader::normalize_windows_path(expand_windows_variables(root, *recorded));
  }
  return std::nullopt;
}

// The install folder of the Store Python `family` (a data folder's name): where the user's PEP
// 514 key points, if it names that package; else the newest matching folder in WindowsApps,
// which only an administrator may list on a live machine. "" when neither tells.
std::string store_install_folder(const platform::SysRoot& root,
                                 const formats::StorePythonName& family,
                                 std::string& version,
                                 std::string& version_source) {
  const std::string key =
      fmt::format("Software\\Python\\PythonCore\\{}\\InstallPath", family.minor_version);
  const auto registered = registry_text(root, RegistryRoot::current_user, key, "");
  if (registered) {
    std::string dir = loader::normalize_windows_path(*registered);
    const auto named = formats::parse_store_python_folder(loader::windows_file_name(dir));
    if (named && named->install_folder && named->minor_version == family.minor_version
        && util::to_lower(named->publisher_id) == util::to_lower(family.publisher_id)) {
      const auto sys_version =
          registry_text(root,
                        RegistryRoot::current_user,
                        fmt::format("Software\\Python\\PythonCore\\{}", family.minor_version),
                        "SysVersion");
      version = sys_version ? *sys_version : family.minor_version;
      version_source = sys_version ? registry_source(
                           root,
                           RegistryRoot::current_user,
                           fmt::format("Software\\Python\\PythonCore\\{}", family.minor_version),
                           "SysVersion")
                                   : fmt::format("name:{}", dir);
      return dir;
    }
  }
  const std::string program_files = loader::normalize_windows_path(
      windows_env(root, "ProgramFiles").value_or("C:\\Program Files"));
  const std::string apps = loader::windows_join(program_files, "WindowsApps");
  std::string best;
  std::optional<Version> best_version;
  if (auto entries = list_windows_dir(root, apps)) {
    for (const platform::DirEntry& e : *entries) {
      const auto named = formats::parse_store_python_folder(e.name);
      if (e.kind != platform::FileKind::directory || !named || !named->install_folder
          || named->minor_version != family.minor_version
          || util::to_lower(named->publisher_id) != util::to_lower(family.publisher_id)) {
        continue;
      }
      const auto v = Version::parse(named->package_version);
      if (best.empty() || (v && best_version && *best_version < *v)) {
        best = loader::windows_join(apps, e.name);
        best_version = v;
      }
    }
  }
  version = family.minor_version;
  version_source = fmt::format("name:{}", best.empty() ? family.minor_version : best);
  return best;
}

// The Microsoft Store's Pythons of the examined user. Their PEP 514 keys exist but cannot be
// enumerated (cpython PC/launcher.c opens them by name), so the way in is each package's data
// folder under %LOCALAPPDATA%\Packages; the Store's python.exe sets PYTHONUSERBASE to the
// folder's LocalCache\local-packages (cpython PC/python_uwp.cpp), where pip installs everything
// because the install folder is read-only.
void add_store_pythons(const platform::SysRoot& root, std::vector<WindowsPythonCandidate>& out) {
  const auto local = user_folder(root, "LOCALAPPDATA", "AppData\\Local", "Local AppData");
  if (!local) {
    return;
  }
  const std::string packages = loader::windows_join(*local, "Packages");
  auto entries = list_windows_dir(root, packages);
  if (!entries) {
    return;
  }
  for (const platform::DirEntry& e : *entries) {
    const auto family = formats::parse_store_python_folder(e.name);
    if (e.kind != platform::FileKind::directory || !family || family->install_folder) {
      continue;
    }
    const std::string data = loader::windows_join(packages, e.name);
    std::string version;
    std::string source;
    const std::string install = store_install_folder(root, *family, version, source);
    if (install.empty()) {
      source = fmt::format("name:{}", data);
    }
    WindowsPythonCandidate c =
        candidate(install.empty() ? data : install, fmt::format("store:{}", e.name), version);
    c.userbase = loader::windows_join(data, "LocalCache\\local-packages");
    c.version_source = source;
    out.push_back(std::move(c));
  }
}

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
    out.push_back(candidate(base, "conda:base"));
    const std::string envs = loader::windows_join(base, "envs");
    if (auto entries = list_windows_dir(root, envs)) {
      for (const platform::DirEntry& e : *entries) {
        if (e.kind == platform::FileKind::directory) {
          out.push_back(candidate(loader::windows_join(envs, e.name), "conda:envs"));
        }
      }
    }
  }
  if (home) {
    const std::string txt = loader::windows_join(*home, ".conda\\environments.txt");
    if (auto text = read_windows_file(root, txt, k_max_python_small_file)) {
      for (const std::string& line : formats::parse_conda_environments_txt(*text)) {
        out.push_back(candidate(line, "conda:environments.txt"));
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
      out.push_back(candidate(parent, "PATH:python.exe")); // a venv's Scripts folder
    } else {
      out.push_back(candidate(dir, "PATH:python.exe"));
    }
  }
  if (auto venv = windows_env(root, "VIRTUAL_ENV"); venv && !venv->empty()) {
    out.push_back(candidate(*venv, "env:VIRTUAL_ENV"));
  }
  if (auto conda = windows_env(root, "CONDA_PREFIX"); conda && !conda->empty()) {
    out.push_back(candidate(*conda, "env:CONDA_PREFIX"));
  }
  if (facts.windows.python_registrations) {
    for (const PythonRegistration& r : *facts.windows.python_registrations) {
      out.push_back(candidate(
          r.install_path, fmt::format("pep514:{}\\{}\\{}", r.hive, r.company, r.tag), r.version));
    }
  }
  add_conda(root, out);
  add_store_pythons(root, out);
  for (const std::string& named : options.python_prefixes) {
    out.push_back(candidate(named, "arg:--python"));
  }
  return out;
}

Fact<std::string> python_version_of(const platform::SysRoot& root,
                                    const std::string& prefix,
                                    const std::string& registered,
                                    const std::string& registered_source) {
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
    return Fact<std::string>::known(registered, registered_source);
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

// Whether the folder is a Store Python's install or data folder.
bool is_store_folder(std::string_view prefix) {
  return formats::parse_store_python_folder(loader::windows_file_name(prefix)).has_value();
}

// The user site-packages folder (PEP 370) the environment's Python puts on sys.path before its
// own site-packages, or nullopt when it has none: PYTHONNOUSERSITE is set, or a venv leaves the
// system's packages out. The folder is <userbase>\Python<XY>\site-packages, with the userbase
// from PYTHONUSERBASE, the Store's LocalCache\local-packages, or %APPDATA%\Python (site.py).
std::optional<std::string> windows_user_site(const platform::SysRoot& root,
                                             const PythonEnv& env,
                                             const std::string& store_userbase) {
  if (auto off = windows_env(root, "PYTHONNOUSERSITE"); off && !off->empty()) {
    return std::nullopt;
  }
  if (env.kind == "venv") {
    const auto cfg = read_windows_file(
        root, loader::windows_join(env.prefix, "pyvenv.cfg"), k_max_python_small_file);
    if (!cfg || !formats::pyvenv_cfg_includes_system_site(*cfg)) {
      return std::nullopt;
    }
  }
  const auto version =
      env.python_version ? Version::parse_prefix(*env.python_version) : std::nullopt;
  if (!version || version->size() < 2) {
    return std::nullopt;
  }
  std::string base;
  if (auto v = windows_env(root, "PYTHONUSERBASE"); v && !v->empty()) {
    base = *v;
  } else if (!store_userbase.empty()) {
    base = store_userbase;
  } else if (auto appdata = user_folder(root, "APPDATA", "AppData\\Roaming", "AppData")) {
    base = loader::windows_join(*appdata, "Python");
  } else {
    return std::nullopt;
  }
  return loader::windows_join(
      loader::normalize_windows_path(base),
      fmt::format("Python{}{}\\site-packages", version->part(0), version->part(1)));
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
  std::map<std::string, std::string> store_userbases; // windows_path_key(prefix) -> userbase
  for (const WindowsPythonCandidate& c : python_candidates_windows(root, facts, options)) {
    const std::string prefix = loader::normalize_windows_path(c.prefix);
    if (prefix.empty() || !windows_is_dir(root, prefix)) {
      continue;
    }
    const std::string key = loader::windows_path_key(prefix);
    if (!c.userbase.empty()) {
      store_userbases.emplace(key, c.userbase);
    }
    auto it = std::find_if(envs.begin(), envs.end(), [&](const PythonEnv& e) {
      return loader::windows_path_key(e.prefix) == key;
    });
    if (it != envs.end()) {
      it->found_via.push_back(c.via);
      if (!it->python_version && !c.version.empty()) {
        it->python_version = Fact<std::string>::known(c.version, c.version_source);
      }
      continue;
    }
    PythonEnv env;
    env.prefix = prefix;
    env.found_via.push_back(c.via);
    env.kind = windows_is_file(root, loader::windows_join(prefix, "pyvenv.cfg"))  ? "venv"
               : windows_is_dir(root, loader::windows_join(prefix, "conda-meta")) ? "conda"
               : is_store_folder(prefix)                                          ? "store"
                                                                                  : "system";
    env.python_version = python_version_of(root, prefix, c.version, c.version_source);
    envs.push_back(std::move(env));
  }
  for (PythonEnv& env : envs) {
    std::sort(env.found_via.begin(), env.found_via.end());
    env.found_via.erase(std::unique(env.found_via.begin(), env.found_via.end()),
                        env.found_via.end());
    // sys.path order: the user's site-packages first, then the environment's own. site_packages
    // names the environment's own, or the user's where only that exists (a Store Python's
    // install folder holds none a user can add to).
    const std::string site = loader::windows_join(env.prefix, "Lib\\site-packages");
    const auto userbase = store_userbases.find(loader::windows_path_key(env.prefix));
    const auto user_site =
        windows_user_site(root, env, userbase == store_userbases.end() ? "" : userbase->second);
    std::vector<std::string> dirs;
    std::optional<std::string> user_inner;
    if (user_site) {
      if (auto inner = windows_inner(root, *user_site); inner && root.is_dir(*inner)) {
        user_inner = *inner;
        dirs.push_back(*inner);
      }
    }
    if (auto inner = windows_inner(root, site); inner && root.is_dir(*inner)) {
      dirs.push_back(*inner);
      env.site_packages = Fact<std::string>::known(*inner, "dir:" + site);
    } else if (user_inner) {
      env.site_packages = Fact<std::string>::known(*user_inner, "dir:" + *user_site);
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
