// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/python_envs.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace doctor {
namespace {

using collect::PythonCandidate;
using facts::PythonEnv;

constexpr const char* k_venv = "/home/u/venv";

// A fake machine: a temporary tree and the environment variables the examined system has.
struct Machine {
  test::TempDir tree;
  std::map<std::string, std::string> env;

  // A Debian-like /usr with python3 -> python3.11.
  void debian_python() const {
    tree.write("/usr/bin/python3.11", "ELF");
    tree.link("python3.11", "/usr/bin/python3");
    tree.mkdir("/usr/lib/python3.11");
    tree.mkdir("/usr/lib/python3/dist-packages");
  }

  // A venv made with `python3 -m venv`: bin/python3 links to the base interpreter.
  void venv(const std::string& prefix) const {
    tree.write(prefix + "/pyvenv.cfg",
               "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n");
    tree.link("/usr/bin/python3.11", prefix + "/bin/python3");
    tree.link("python3", prefix + "/bin/python");
    tree.mkdir(prefix + "/lib/python3.11/site-packages");
  }

  std::vector<PythonCandidate> candidates() const {
    return collect::python_candidates(tree.sysroot(env));
  }

  std::vector<PythonEnv> discover() const {
    return collect::discover_python_envs(tree.sysroot(env));
  }
};

const PythonEnv* env_at(const std::vector<PythonEnv>& envs, std::string_view prefix) {
  for (const PythonEnv& e : envs) {
    if (e.prefix == prefix) {
      return &e;
    }
  }
  return nullptr;
}

std::vector<std::string> prefixes(const std::vector<PythonEnv>& envs) {
  std::vector<std::string> out;
  out.reserve(envs.size());
  for (const PythonEnv& e : envs) {
    out.push_back(e.prefix);
  }
  return out;
}

// "prefix kind via" per candidate, to compare whole lists at once.
std::vector<std::string> described(const std::vector<PythonCandidate>& candidates) {
  std::vector<std::string> out;
  out.reserve(candidates.size());
  for (const PythonCandidate& c : candidates) {
    out.push_back(c.prefix + " " + c.kind + " " + c.via);
  }
  return out;
}

TEST(python_envs, finds_nothing_on_an_empty_machine) {
  Machine m;
  m.env = {{"PATH", "/usr/bin:/bin"}};
  EXPECT_TRUE(m.discover().empty());
}

TEST(python_envs, pyenv_version_variable_wins_and_system_means_none) {
  Machine m;
  m.tree.write("/srv/pyenv/shims/python3", "#!/bin/sh\n");
  m.tree.mkdir("/srv/pyenv/versions/3.10.4/lib/python3.10/site-packages");
  m.tree.mkdir("/srv/pyenv/versions/3.12.1/lib/python3.12/site-packages");
  m.tree.write("/srv/pyenv/version", "3.12.1\n");
  m.env = {{"PATH", "/srv/pyenv/shims"}, {"PYENV_ROOT", "/srv/pyenv"}, {"PYENV_VERSION", "3.10.4"}};
  EXPECT_EQ(prefixes(m.discover()), (std::vector<std::string>{"/srv/pyenv/versions/3.10.4"}));

  m.env.erase("PYENV_VERSION");
  EXPECT_EQ(prefixes(m.discover()), (std::vector<std::string>{"/srv/pyenv/versions/3.12.1"}));

  m.tree.write("/srv/pyenv/version", "system\n");
  EXPECT_TRUE(m.discover().empty());
}

TEST(python_envs, deduplicates_by_resolved_prefix) {
  Machine m;
  m.debian_python();
  m.tree.link("usr/bin", "/bin");
  m.venv(k_venv);
  m.tree.link("/home/u/venv", "/home/u/venv-link");
  m.env = {{"PATH", "/bin:/usr/bin:/home/u/venv-link/bin"}, {"VIRTUAL_ENV", "/home/u/venv-link/"}};
  const auto envs = m.discover();
  EXPECT_EQ(prefixes(envs), (std::vector<std::string>{"/home/u/venv", "/usr"}));
  EXPECT_EQ(env_at(envs, "/home/u/venv")->found_via,
            (std::vector<std::string>{"PATH:python", "PATH:python3", "env:VIRTUAL_ENV"}));
  EXPECT_EQ(env_at(envs, "/usr")->found_via, (std::vector<std::string>{"PATH:python3", "system"}));
}

TEST(python_envs, candidates_keep_the_search_order_and_repeats) {
  Machine m;
  m.debian_python();
  m.venv(k_venv);
  m.tree.mkdir("/opt/conda/conda-meta");
  m.tree.mkdir("/opt/conda/envs/tf");
  m.tree.write("/home/u/.conda/environments.txt", "/opt/conda/envs/tf\n");
  m.env = {{"PATH", "relative/bin:/home/u/venv/bin:/usr/bin"},
           {"VIRTUAL_ENV", "/home/u/venv/"},
           {"HOME", "/home/u"}};
  EXPECT_EQ(described(m.candidates()),
            (std::vector<std::string>{"/home/u/venv  PATH:python3",
                                      "/home/u/venv  PATH:python",
                                      "/usr  PATH:python3",
                                      "/home/u/venv venv env:VIRTUAL_ENV",
                                      "/usr system system",
                                      "/opt/conda conda conda:base",
                                      "/opt/conda/envs/tf conda conda:envs",
                                      "/opt/conda/envs/tf conda conda:environments.txt"}));
}

TEST(python_envs, candidates_are_capped) {
  Machine m;
  m.tree.mkdir("/opt/conda/conda-meta");
  for (int i = 0; i < 300; ++i) {
    m.tree.mkdir("/opt/conda/envs/e" + std::to_string(i));
  }
  m.env = {{"HOME", "/home/u"}};
  EXPECT_EQ(m.candidates().size(), 256U);
  EXPECT_EQ(m.discover().size(), 256U);
}

TEST(python_envs, files_decide_the_kind_before_hints) {
  Machine m;
  // Listed by conda, but a venv by its own pyvenv.cfg.
  m.venv("/home/u/listed");
  // Found on PATH with no hint: a pyenv version by its place beside shims/.
  m.tree.write("/srv/pyenv/versions/3.12.1/bin/python3", "ELF");
  m.tree.mkdir("/srv/pyenv/shims");
  // Found through VIRTUAL_ENV without pyvenv.cfg: the hint decides.
  m.tree.mkdir("/data/env");
  m.tree.write("/home/u/.conda/environments.txt", "/home/u/listed\n");
  m.env = {{"HOME", "/home/u"},
           {"PATH", "/srv/pyenv/versions/3.12.1/bin"},
           {"VIRTUAL_ENV", "/data/env"}};
  const auto envs = m.discover();
  ASSERT_EQ(
      prefixes(envs),
      (std::vector<std::string>{"/data/env", "/home/u/listed", "/srv/pyenv/versions/3.12.1"}));
  EXPECT_EQ(envs[0].kind, "venv");
  EXPECT_EQ(envs[1].kind, "venv");
  EXPECT_EQ(envs[1].found_via, (std::vector<std::string>{"conda:environments.txt"}));
  EXPECT_EQ(envs[1].python_version.value_or(""), "3.11.7");
  EXPECT_EQ(envs[2].kind, "pyenv");
  EXPECT_EQ(envs[2].found_via, (std::vector<std::string>{"PATH:python3"}));
  EXPECT_FALSE(envs[0].python_version);
  EXPECT_NE(envs[0].python_version.reason().find("/data/env has no pyvenv.cfg version"),
            std::string::npos);
}

} // namespace
} // namespace doctor
