// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <cstddef>
#include <string>
#include <vector>

// Finds the Python environments of the examined machine from environment variables, directory
// listings and a few small files: the interpreters on PATH (pyenv's shims lead to the selected
// version), $VIRTUAL_ENV, the system's /usr, and conda's bases with their envs/ and
// ~/.conda/environments.txt. Nothing found is run or imported.
namespace doctor::collect {

// The most read of a small file about a Python environment or framework build (pyvenv.cfg,
// torch/version.py, …); such files are a few KB.
inline constexpr std::size_t k_max_python_small_file = std::size_t{1024} * 1024;

// A directory that may be the prefix of a Python environment, and how it was found.
struct PythonCandidate {
  std::string prefix; // normalised, not resolved; it need not exist
  std::string kind;   // a hint: "venv", "conda", "pyenv", "system" or empty
  std::string via;    // "PATH:python3", "env:VIRTUAL_ENV", "pyenv:version", "conda:envs", …
};

// Returns the candidate prefixes in search order: for each absolute PATH directory, the prefix
// of its python3 and python (a venv's by its pyvenv.cfg, before links are followed), or for
// pyenv's shims the version PYENV_VERSION or $PYENV_ROOT/version selects; then $VIRTUAL_ENV; then
// /usr if /usr/bin/python3 exists; then conda ($CONDA_PREFIX, the bases of $CONDA_PREFIX and
// $CONDA_EXE and the usual install directories that hold conda-meta/, their envs/, and
// ~/.conda/environments.txt). Repeats are kept; at most 256 candidates.
std::vector<PythonCandidate> python_candidates(const platform::SysRoot& root);

// Returns one environment per existing directory the candidates resolve to, ordered by resolved
// prefix, with `prefix`, `kind` (what its files say, pyvenv.cfg or conda-meta/, before how it
// was found), `found_via` (sorted, no repeats) and `python_version` (from pyvenv.cfg, conda-meta
// or the name bin/python3 links to; unknown with the reason otherwise) set. Its site-packages,
// packages and frameworks are left for the caller to read. `named` are prefixes the user gave on
// the command line (`resolve --python ENV`), found via "arg:--python" even where nothing in the
// environment points at them.
std::vector<facts::PythonEnv> discover_python_envs(const platform::SysRoot& root,
                                                   const std::vector<std::string>& named = {});

// Reads the GPU-relevant packages and the frameworks of `env` from its site-packages directories
// `site_dirs` (inner paths, in the order its Python imports from them), as collect_python does
// for the environments it finds (python_collector.cpp); the Windows collector reads the
// environments it finds the same way. Sets env.site_packages unknown when the first directory
// exists but cannot be listed.
void read_python_site_packages(const platform::SysRoot& root,
                               facts::PythonEnv& env,
                               const std::vector<std::string>& site_dirs);

} // namespace doctor::collect
