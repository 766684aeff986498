// SPDX-License-Identifier: MIT
#include <doctor/collect/python_envs.hpp>
#include <doctor/collect/read_failure.hpp>
#include <doctor/formats/python_files.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

// Bounds the work a hostile environments.txt or envs/ directory can cause.
constexpr std::size_t k_max_candidates = 256;

using Candidates = std::vector<PythonCandidate>;

void add_candidate(Candidates& out, std::string_view prefix, std::string kind, std::string via) {
  if (out.size() < k_max_candidates && !prefix.empty()) {
    out.push_back(PythonCandidate{util::normalize_path(prefix), std::move(kind), std::move(via)});
  }
}

std::string home_dir(const platform::SysRoot& root) {
  auto home = root.env().get("HOME");
  return home && !home->empty() && home->front() == '/' ? util::normalize_path(*home) : "/root";
}

// The prefix of the interpreter at `exe` (a path as found on PATH). A venv's interpreter is a link
// to its base interpreter, so, as Python itself does (PEP 405), a pyvenv.cfg next to the
// executable or one directory up names the prefix before any link is followed; otherwise the
// prefix is the parent of the bin directory of the resolved executable.
std::optional<std::string> interpreter_prefix(const platform::SysRoot& root,
                                              const std::string& exe) {
  const std::string bin = util::parent_path(exe);
  for (const std::string& dir : {bin, util::parent_path(bin)}) {
    if (root.is_file(util::join_path(dir, "pyvenv.cfg"))) {
      return dir;
    }
  }
  auto real = root.resolve(exe);
  if (!real) {
    return std::nullopt;
  }
  return util::parent_path(util::parent_path(*real));
}

// True for a pyenv shims directory: "<root>/shims" where <root> is $PYENV_ROOT or holds versions/.
bool is_pyenv_shims(const platform::SysRoot& root, const std::string& dir) {
  if (util::file_name(dir) != "shims") {
    return false;
  }
  const std::string parent = util::parent_path(dir);
  auto env_root = root.env().get("PYENV_ROOT");
  return (env_root && util::normalize_path(*env_root) == parent)
         || root.is_dir(util::join_path(parent, "versions"));
}

// The shims are scripts that run `pyenv exec`; the environment they lead to is the selected
// version: PYENV_VERSION, else $PYENV_ROOT/version, else "system" (the next python3 on PATH,
// found there). A .python-version file in a working directory cannot be known from here.
void add_pyenv(const platform::SysRoot& root, const std::string& shims, Candidates& out) {
  auto env_root = root.env().get("PYENV_ROOT");
  const std::string pyenv_root =
      env_root && !env_root->empty() ? util::normalize_path(*env_root) : util::parent_path(shims);
  std::vector<std::string> names;
  if (auto selected = root.env().get("PYENV_VERSION"); selected && !selected->empty()) {
    names = formats::parse_pyenv_versions(*selected);
  } else if (auto text =
                 root.read_file(util::join_path(pyenv_root, "version"), k_max_python_small_file)) {
    names = formats::parse_pyenv_versions(*text);
  }
  for (const std::string& name : names) {
    if (name == "system") {
      return;
    }
    const std::string prefix = util::join_path(util::join_path(pyenv_root, "versions"), name);
    if (root.is_dir(prefix)) {
      add_candidate(out, prefix, "pyenv", "pyenv:version");
      return;
    }
  }
}

void add_from_path(const platform::SysRoot& root, Candidates& out) {
  for (const std::string& dir : root.env().list("PATH")) {
    if (dir.front() != '/') {
      continue;
    }
    if (is_pyenv_shims(root, dir)) {
      add_pyenv(root, util::normalize_path(dir), out);
      continue;
    }
    for (const char* exe : {"python3", "python"}) {
      const std::string path = util::join_path(dir, exe);
      if (!root.is_file(path)) {
        continue;
      }
      if (auto prefix = interpreter_prefix(root, path)) {
        add_candidate(out, *prefix, "", fmt::format("PATH:{}", exe));
      }
    }
  }
}

void add_conda(const platform::SysRoot& root, Candidates& out) {
  const std::string home = home_dir(root);
  std::vector<std::string> bases;
  if (auto prefix = root.env().get("CONDA_PREFIX"); prefix && !prefix->empty()) {
    const std::string p = util::normalize_path(*prefix);
    add_candidate(out, p, "conda", "env:CONDA_PREFIX");
    const std::string parent = util::parent_path(p);
    bases.push_back(util::file_name(parent) == "envs" ? util::parent_path(parent) : p);
  }
  if (auto exe = root.env().get("CONDA_EXE"); exe && !exe->empty()) {
    bases.push_back(util::parent_path(util::parent_path(util::normalize_path(*exe))));
  }
  for (const char* dir : {"/opt/conda", "/opt/miniconda3"}) {
    bases.emplace_back(dir);
  }
  for (const char* dir : {"miniconda3", "anaconda3", "miniforge3", "mambaforge"}) {
    bases.push_back(util::join_path(home, dir));
  }
  std::set<std::string> seen;
  for (const std::string& base : bases) {
    if (!seen.insert(base).second || !root.is_dir(util::join_path(base, "conda-meta"))) {
      continue;
    }
    add_candidate(out, base, "conda", "conda:base");
    const std::string envs = util::join_path(base, "envs");
    if (auto entries = root.list_dir(envs)) {
      for (const platform::DirEntry& e : *entries) {
        if (e.kind == platform::FileKind::directory || e.kind == platform::FileKind::symlink) {
          add_candidate(out, util::join_path(envs, e.name), "conda", "conda:envs");
        }
      }
    }
  }
  const std::string listed = util::join_path(home, ".conda/environments.txt");
  if (auto text = root.read_file(listed, k_max_python_small_file)) {
    for (const std::string& prefix : formats::parse_conda_environments_txt(*text)) {
      add_candidate(out, prefix, "conda", "conda:environments.txt");
    }
  }
}

// What the prefix's own files say wins over how it was found; among hints, the most specific.
std::string env_kind(const platform::SysRoot& root,
                     const std::string& prefix,
                     const std::set<std::string>& hints) {
  if (root.is_file(util::join_path(prefix, "pyvenv.cfg"))) {
    return "venv";
  }
  if (root.is_dir(util::join_path(prefix, "conda-meta"))) {
    return "conda";
  }
  for (const char* kind : {"venv", "conda", "pyenv"}) {
    if (hints.contains(kind)) {
      return kind;
    }
  }
  const std::string versions = util::parent_path(prefix);
  if (util::file_name(versions) == "versions"
      && root.is_dir(util::join_path(util::parent_path(versions), "shims"))) {
    return "pyenv";
  }
  return "system";
}

// The Python version the prefix's own files record, most direct first.
Fact<std::string> python_version(const platform::SysRoot& root, const std::string& prefix) {
  const std::string cfg = util::join_path(prefix, "pyvenv.cfg");
  ReadFailure failure;
  if (auto text = root.read_file(cfg, k_max_python_small_file)) {
    if (auto v = formats::parse_pyvenv_cfg_version(*text)) {
      return Fact<std::string>::known(util::sanitize(*v, 40), fmt::format("file:{}", cfg));
    }
  } else {
    failure.note(text.error());
  }
  const std::string meta = util::join_path(prefix, "conda-meta");
  if (auto entries = root.list_dir(meta)) {
    for (const platform::DirEntry& e : *entries) {
      if (auto v = formats::python_version_from_conda_meta(e.name)) {
        return Fact<std::string>::known(*v, fmt::format("name:{}", util::join_path(meta, e.name)));
      }
    }
  }
  // bin/python3 links to python3.X in conda envs, pyenv versions and /usr/bin (not in a venv,
  // whose pyvenv.cfg was read above).
  if (auto real = root.resolve(util::join_path(prefix, "bin/python3"))) {
    if (auto v = formats::python_version_from_name(util::file_name(*real))) {
      return Fact<std::string>::known(*v, fmt::format("name:{}", *real));
    }
  }
  return Fact<std::string>::unknown(
      fmt::format("{} has no pyvenv.cfg version, conda-meta python record or bin/python3.X{}",
                  prefix,
                  failure.suffix()));
}

} // namespace

std::vector<PythonCandidate> python_candidates(const platform::SysRoot& root) {
  Candidates out;
  add_from_path(root, out);
  if (auto venv = root.env().get("VIRTUAL_ENV"); venv && !venv->empty()) {
    add_candidate(out, *venv, "venv", "env:VIRTUAL_ENV");
  }
  if (root.is_file("/usr/bin/python3")) {
    add_candidate(out, "/usr", "system", "system");
  }
  // Last: the one source whose length the machine's files decide (envs/, environments.txt).
  add_conda(root, out);
  return out;
}

std::vector<PythonEnv> discover_python_envs(const platform::SysRoot& root,
                                            const std::vector<std::string>& named) {
  std::map<std::string, PythonEnv> by_prefix;
  std::map<std::string, std::set<std::string>> hints;
  Candidates candidates = python_candidates(root);
  for (const std::string& prefix : named) {
    candidates.push_back(PythonCandidate{util::normalize_path(prefix), "", "arg:--python"});
  }
  for (const PythonCandidate& c : candidates) {
    auto real = root.resolve(c.prefix);
    if (!real || !root.is_dir(*real)) {
      continue;
    }
    auto [it, inserted] = by_prefix.try_emplace(*real);
    PythonEnv& env = it->second;
    if (inserted) {
      env.prefix = *real;
    }
    if (std::find(env.found_via.begin(), env.found_via.end(), c.via) == env.found_via.end()) {
      env.found_via.push_back(c.via);
    }
    if (!c.kind.empty()) {
      hints[*real].insert(c.kind);
    }
  }
  std::vector<PythonEnv> out;
  out.reserve(by_prefix.size());
  for (auto& [prefix, env] : by_prefix) {
    env.kind = env_kind(root, prefix, hints[prefix]);
    std::sort(env.found_via.begin(), env.found_via.end());
    env.python_version = python_version(root, env.prefix);
    out.push_back(std::move(env));
  }
  return out;
}

} // namespace doctor::collect
