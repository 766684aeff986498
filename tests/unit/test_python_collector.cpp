// SPDX-License-Identifier: MIT
#include "support/nvcc.hpp"
#include "support/temp_tree.hpp"
#include "support/test_paths.hpp"

#include <doctor/collect/collect.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace doctor {
namespace {

namespace fs = std::filesystem;
using facts::Facts;
using facts::Framework;
using facts::PythonEnv;

// A file extracted from a real wheel (tests/unit/data/python/README.md names each wheel).
std::string fixture(const std::string& name) {
  std::ifstream in(test::test_data_dir() + "/python/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr const char* k_venv = "/home/u/venv";
constexpr const char* k_venv_site = "/home/u/venv/lib/python3.11/site-packages";

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
  void venv(const std::string& prefix, const char* version = "3.11.7") const {
    tree.write(prefix + "/pyvenv.cfg",
               std::string("home = /usr/bin\ninclude-system-site-packages = "
                           "false\nversion = ")
                   + version + "\n");
    tree.link("/usr/bin/python3.11", prefix + "/bin/python3");
    tree.link("python3", prefix + "/bin/python");
    tree.mkdir(prefix + "/lib/python3.11/site-packages");
  }

  // A package record directory (only its name is read).
  void dist(const std::string& site, const std::string& dir_name) const {
    tree.write(site + "/" + dir_name + "/RECORD", "");
  }

  void torch(const std::string& site, const std::string& version_py) const {
    tree.write(site + "/torch/version.py", version_py);
    tree.write(site + "/torch/__init__.py", "");
  }

  std::vector<PythonEnv> collect() const {
    Facts f;
    collect::collect_python(tree.sysroot(env), collect::CollectOptions{}, f);
    return f.python_envs;
  }
};

constexpr const char* k_torch_cu121 =
    "from typing import Optional\n\n"
    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.5.1+cu121'\n"
    "debug = False\n"
    "cuda: Optional[str] = '12.1'\n"
    "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
    "hip: Optional[str] = None\n";

const PythonEnv* env_at(const std::vector<PythonEnv>& envs, std::string_view prefix) {
  for (const PythonEnv& e : envs) {
    if (e.prefix == prefix) {
      return &e;
    }
  }
  return nullptr;
}

const Framework* framework(const PythonEnv& env, std::string_view name) {
  for (const Framework& f : env.frameworks) {
    if (f.name == name) {
      return &f;
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

std::vector<std::string> package_names(const PythonEnv& env) {
  std::vector<std::string> out;
  for (const auto& p : env.packages) {
    out.push_back(p.name);
  }
  return out;
}

TEST(python_collector, venv_with_torch_and_the_cudnn_wheel) {
  Machine m;
  m.debian_python();
  m.venv(k_venv);
  m.torch(k_venv_site, k_torch_cu121);
  m.dist(k_venv_site, "torch-2.5.1+cu121.dist-info");
  m.dist(k_venv_site, "nvidia_cudnn_cu12-9.1.0.70.dist-info");
  m.dist(k_venv_site, "nvidia_cublas_cu12-12.1.3.1.dist-info");
  m.dist(k_venv_site, "numpy-1.26.4.dist-info");
  m.env = {{"PATH", "/home/u/venv/bin:/usr/bin:/bin"}, {"VIRTUAL_ENV", k_venv}};

  const auto envs = m.collect();
  EXPECT_EQ(prefixes(envs), (std::vector<std::string>{"/home/u/venv", "/usr"}));
  const PythonEnv* venv = env_at(envs, k_venv);
  ASSERT_NE(venv, nullptr);
  EXPECT_EQ(venv->kind, "venv");
  EXPECT_EQ(venv->found_via,
            (std::vector<std::string>{"PATH:python", "PATH:python3", "env:VIRTUAL_ENV"}));
  EXPECT_EQ(venv->python_version.value_or(""), "3.11.7");
  EXPECT_EQ(venv->python_version.source(), "file:/home/u/venv/pyvenv.cfg");
  EXPECT_EQ(venv->site_packages.value_or(""), k_venv_site);
  EXPECT_EQ(package_names(*venv),
            (std::vector<std::string>{"nvidia-cublas-cu12", "nvidia-cudnn-cu12", "torch"}));
  EXPECT_EQ(venv->packages[1].version, "9.1.0.70");
  EXPECT_EQ(venv->packages[1].source,
            std::string(k_venv_site) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info");

  ASSERT_EQ(venv->frameworks.size(), 1U);
  const Framework& torch = venv->frameworks[0];
  EXPECT_EQ(torch.name, "torch");
  EXPECT_EQ(torch.location, std::string(k_venv_site) + "/torch");
  EXPECT_EQ(torch.version.value_or(""), "2.5.1+cu121");
  // torch.__version__ from version.py, with its local label, is what users see.
  EXPECT_EQ(torch.version.source(), "file:" + std::string(k_venv_site) + "/torch/version.py");
  EXPECT_TRUE(torch.cuda_build.value_or(false));
  EXPECT_EQ(torch.cuda_version.value_or(""), "12.1");
  EXPECT_EQ(torch.cuda_version.source(), "file:" + std::string(k_venv_site) + "/torch/version.py");
  EXPECT_EQ(torch.cudnn_version.value_or(""), "9.1.0.70");
  EXPECT_TRUE(torch.cudnn_version.source().starts_with("dist-info:" + std::string(k_venv_site)
                                                       + "/nvidia_cudnn_cu12-9.1.0.70.dist-info"));
  EXPECT_NE(torch.cudnn_version.source().find("records no cuDNN"), std::string::npos);
  EXPECT_FALSE(torch.cuda_archs);
  EXPECT_NE(torch.cuda_archs.reason().find("/torch/lib/libtorch_cuda.so and "), std::string::npos)
      << torch.cuda_archs.reason();

  const PythonEnv* system = env_at(envs, "/usr");
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(system->kind, "system");
  EXPECT_EQ(system->found_via, (std::vector<std::string>{"PATH:python3", "system"}));
  EXPECT_EQ(system->python_version.value_or(""), "3.11");
  EXPECT_EQ(system->python_version.source(), "name:/usr/bin/python3.11");
  EXPECT_EQ(system->site_packages.value_or(""), "/usr/lib/python3/dist-packages");
}

TEST(python_collector, torch_cuda_archs_come_from_the_fatbin_of_libtorch_cuda) {
  Machine m;
  m.debian_python();
  m.venv(k_venv);
  m.torch(k_venv_site, k_torch_cu121);
  const std::string lib = std::string(k_venv_site) + "/torch/lib/libtorch_cuda.so";
  if (!test::make_cuda_library(m.tree.at(lib),
                               "-gencode arch=compute_75,code=sm_75 "
                               "-gencode arch=compute_90,code=[sm_90,compute_90]")) {
    GTEST_SKIP() << "no CUDA toolkit: " << test::k_nvcc << " cannot build a CUDA library here";
  }
  m.env = {{"PATH", "/home/u/venv/bin:/usr/bin:/bin"}, {"VIRTUAL_ENV", k_venv}};
  const auto envs = m.collect();
  const PythonEnv* venv = env_at(envs, k_venv);
  ASSERT_NE(venv, nullptr);
  const Framework* torch = framework(*venv, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->cuda_archs.value_or({}),
            (std::vector<std::string>{"sm_75", "sm_90", "compute_90"}))
      << torch->cuda_archs.reason();
  EXPECT_EQ(torch->cuda_archs.source(), "fatbin:" + lib);

  // A libtorch_cuda.so that is no ELF file: unknown, and why.
  m.tree.write(lib, "not a library");
  const auto again = m.collect();
  const Framework* broken = framework(*env_at(again, k_venv), "torch");
  ASSERT_NE(broken, nullptr);
  EXPECT_FALSE(broken->cuda_archs);
  EXPECT_NE(broken->cuda_archs.reason().find(lib), std::string::npos)
      << broken->cuda_archs.reason();
  EXPECT_NE(broken->cuda_archs.reason().find("neither an ELF nor a PE file"), std::string::npos)
      << broken->cuda_archs.reason();
}

TEST(python_collector, torch_without_cudnn_wheel_says_why) {
  Machine m;
  m.venv(k_venv);
  m.torch(k_venv_site, k_torch_cu121);
  m.dist(k_venv_site, "torch-2.5.1+cu121.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs = m.collect();
  ASSERT_EQ(envs.size(), 1U);
  const Framework* torch = framework(envs[0], "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_FALSE(torch->cudnn_version);
  EXPECT_EQ(
      torch->cudnn_version.reason(),
      "torch records only the CUDA it was built with; the cuDNN comes from the nvidia-cudnn-* "
      "wheel or torch/lib");
}

TEST(python_collector, torch_cudnn_wheel_for_another_cuda_is_not_taken) {
  Machine m;
  m.venv(k_venv);
  m.torch(k_venv_site, k_torch_cu121);
  m.dist(k_venv_site, "nvidia_cudnn_cu11-8.9.6.50.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs_torch = m.collect();
  ASSERT_FALSE(envs_torch.empty());
  const Framework* torch = framework(envs_torch[0], "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_FALSE(torch->cudnn_version);
  EXPECT_NE(torch->cudnn_version.reason().find("nvidia-cudnn-cu11"), std::string::npos);
  // No dist-info: the version comes from version.py.
  EXPECT_EQ(torch->version.value_or(""), "2.5.1+cu121");
  EXPECT_EQ(torch->version.source(), "file:" + std::string(k_venv_site) + "/torch/version.py");
}

TEST(python_collector, cpu_torch_from_the_real_wheel_file) {
  Machine m;
  m.venv(k_venv);
  m.torch(k_venv_site, fixture("torch-2.5.1-win-cpu.version.py"));
  m.dist(k_venv_site, "torch-2.5.1+cpu.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs_torch = m.collect();
  ASSERT_FALSE(envs_torch.empty());
  const Framework* torch = framework(envs_torch[0], "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_TRUE(torch->cuda_build);
  EXPECT_FALSE(torch->cuda_build.value_or(true));
  EXPECT_FALSE(torch->cuda_version);
  EXPECT_NE(torch->cuda_version.reason().find("CPU-only"), std::string::npos);
  EXPECT_FALSE(torch->cudnn_version);
  EXPECT_NE(torch->cudnn_version.reason().find("CPU-only"), std::string::npos);
}

TEST(python_collector, conda_prefix_bases_envs_and_environments_txt) {
  Machine m;
  m.tree.write("/opt/conda/conda-meta/python-3.10.13-h955ad1f_0.json", "{}");
  m.tree.write("/opt/conda/conda-meta/python-dateutil-2.8.2-pyhd3eb1b0_0.json", "{}");
  const std::string tf_env = "/opt/conda/envs/tf";
  const std::string tf_site = tf_env + "/lib/python3.11/site-packages";
  m.tree.write(tf_env + "/conda-meta/python-3.11.5-h955ad1f_0.json", "{}");
  m.tree.write(tf_site + "/tensorflow/python/platform/build_info.py",
               fixture("tensorflow-2.15.0-linux.build_info.py"));
  m.dist(tf_site, "tensorflow-2.15.0.dist-info");
  m.dist(tf_site, "nvidia_cudnn_cu12-8.9.4.25.dist-info");
  m.tree.mkdir("/opt/conda/envs/other/conda-meta");
  m.tree.mkdir("/home/u/envs/listed/conda-meta");
  m.tree.write("/home/u/.conda/environments.txt",
               "/opt/conda\n/home/u/envs/listed\n/home/u/envs/deleted\n");
  m.env = {{"CONDA_PREFIX", tf_env}, {"HOME", "/home/u"}, {"PATH", tf_env + "/bin:/usr/bin"}};

  const auto envs = m.collect();
  EXPECT_EQ(prefixes(envs),
            (std::vector<std::string>{
                "/home/u/envs/listed", "/opt/conda", "/opt/conda/envs/other", tf_env}));
  for (const PythonEnv& e : envs) {
    EXPECT_EQ(e.kind, "conda") << e.prefix;
  }
  EXPECT_EQ(env_at(envs, "/home/u/envs/listed")->found_via,
            (std::vector<std::string>{"conda:environments.txt"}));
  EXPECT_EQ(env_at(envs, "/opt/conda")->found_via,
            (std::vector<std::string>{"conda:base", "conda:environments.txt"}));
  EXPECT_EQ(env_at(envs, "/opt/conda")->python_version.value_or(""), "3.10.13");

  const PythonEnv* tf = env_at(envs, tf_env);
  ASSERT_NE(tf, nullptr);
  EXPECT_EQ(tf->found_via, (std::vector<std::string>{"conda:envs", "env:CONDA_PREFIX"}));
  EXPECT_EQ(tf->python_version.value_or(""), "3.11.5");
  EXPECT_EQ(tf->python_version.source(),
            "name:" + tf_env + "/conda-meta/python-3.11.5-h955ad1f_0.json");
  EXPECT_EQ(tf->site_packages.value_or(""), tf_site);
  const Framework* tensorflow = framework(*tf, "tensorflow");
  ASSERT_NE(tensorflow, nullptr);
  EXPECT_EQ(tensorflow->location, tf_site + "/tensorflow");
  EXPECT_EQ(tensorflow->version.value_or(""), "2.15.0");
  EXPECT_TRUE(tensorflow->cuda_build.value_or(false));
  EXPECT_EQ(tensorflow->cuda_version.value_or(""), "12.2");
  EXPECT_EQ(tensorflow->cudnn_version.value_or(""), "8"); // what TF records, not the wheel's
  EXPECT_EQ(tensorflow->cudnn_version.source(),
            "file:" + tf_site + "/tensorflow/python/platform/build_info.py");
  EXPECT_EQ(tensorflow->cuda_archs.value_or({}),
            (std::vector<std::string>{"sm_50", "sm_60", "sm_70", "sm_75", "compute_80"}));

  // An environment without site-packages is still listed, with the reason.
  const PythonEnv* other = env_at(envs, "/opt/conda/envs/other");
  EXPECT_FALSE(other->site_packages);
  EXPECT_NE(other->site_packages.reason().find("no lib/python3.*/site-packages"),
            std::string::npos);
  EXPECT_FALSE(other->python_version);
  EXPECT_FALSE(other->python_version.reason().empty());
}

TEST(python_collector, pyenv_shims_resolve_through_the_version_file) {
  Machine m;
  const std::string version_dir = "/home/u/.pyenv/versions/3.11.7";
  m.tree.write("/home/u/.pyenv/shims/python3", "#!/usr/bin/env bash\nexec pyenv exec \"$0\"\n");
  m.tree.write(version_dir + "/bin/python3.11", "ELF");
  m.tree.link("python3.11", version_dir + "/bin/python3");
  m.tree.mkdir(version_dir + "/lib/python3.11/site-packages");
  m.tree.write("/home/u/.pyenv/version", "3.11.7\n");
  m.env = {{"PATH", "/home/u/.pyenv/shims:/usr/bin"}, {"HOME", "/home/u"}};

  const auto envs = m.collect();
  ASSERT_EQ(prefixes(envs), (std::vector<std::string>{version_dir})); // not the shims' parent
  EXPECT_EQ(envs[0].kind, "pyenv");
  EXPECT_EQ(envs[0].found_via, (std::vector<std::string>{"pyenv:version"}));
  EXPECT_EQ(envs[0].python_version.value_or(""), "3.11");
  EXPECT_EQ(envs[0].python_version.source(), "name:" + version_dir + "/bin/python3.11");
  EXPECT_EQ(envs[0].site_packages.value_or(""), version_dir + "/lib/python3.11/site-packages");
}

// pip install --user puts packages in ~/.local/lib/python3.X/site-packages, which site.py puts
// before the environment's own (PEP 370): that torch is the one imported.
TEST(python_collector, user_site_packages_come_first_where_python_reads_them) {
  Machine m;
  m.debian_python();
  m.torch("/usr/lib/python3/dist-packages", k_torch_cu121);
  m.dist("/usr/lib/python3/dist-packages", "torch-2.5.1.dist-info");
  const std::string user = "/home/u/.local/lib/python3.11/site-packages";
  m.torch(user, "__version__ = '2.4.0+cu118'\ncuda = '11.8'\n");
  m.dist(user, "torch-2.4.0.dist-info");
  m.venv(k_venv);
  m.torch(k_venv_site, k_torch_cu121);
  m.env = {{"PATH", "/usr/bin"}, {"HOME", "/home/u"}, {"VIRTUAL_ENV", k_venv}};
  auto envs = m.collect();
  const PythonEnv* usr = env_at(envs, "/usr");
  ASSERT_NE(usr, nullptr);
  EXPECT_EQ(usr->site_packages.value_or(""), "/usr/lib/python3/dist-packages")
      << usr->site_packages.reason();
  const Framework* torch = framework(*usr, "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->location, user + "/torch");
  EXPECT_EQ(torch->version.value_or(""), "2.4.0+cu118");
  // A venv that leaves the system's packages out leaves the user's out too.
  const PythonEnv* venv = env_at(envs, k_venv);
  ASSERT_NE(venv, nullptr);
  EXPECT_EQ(framework(*venv, "torch")->version.value_or(""), "2.5.1+cu121");

  m.env["PYTHONNOUSERSITE"] = "1";
  envs = m.collect();
  EXPECT_EQ(framework(*env_at(envs, "/usr"), "torch")->version.value_or(""), "2.5.1+cu121");
  m.env.erase("PYTHONNOUSERSITE");
  m.tree.write(std::string(k_venv) + "/pyvenv.cfg",
               "home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.11.7\n");
  m.tree.write(user + "/jax/version.py", "_version = '0.4.30'\n");
  m.dist(user, "jax-0.4.30.dist-info");
  envs = m.collect();
  EXPECT_NE(framework(*env_at(envs, k_venv), "jax"), nullptr);
}

TEST(python_collector, tensorflow_build_info_junk_is_unknown_with_reason) {
  Machine m;
  m.venv(k_venv);
  m.tree.write(std::string(k_venv_site) + "/tensorflow/python/platform/build_info.py",
               std::string("build_info = {'is_cuda_build': \x01\xff\xfe garbage\0\0\0", 45));
  m.dist(k_venv_site, "tensorflow-2.15.0.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs_tf = m.collect();
  ASSERT_FALSE(envs_tf.empty());
  const Framework* tf = framework(envs_tf[0], "tensorflow");
  ASSERT_NE(tf, nullptr);
  EXPECT_EQ(tf->version.value_or(""), "2.15.0");
  EXPECT_FALSE(tf->cuda_build);
  EXPECT_NE(tf->cuda_build.reason().find("has none of the build_info keys"), std::string::npos);
  EXPECT_FALSE(tf->cuda_version);
  EXPECT_FALSE(tf->cudnn_version);
  EXPECT_FALSE(tf->cuda_archs);
  EXPECT_FALSE(tf->cuda_archs.reason().empty());
}

TEST(python_collector, windows_layout_venv_and_windows_tensorflow) {
  Machine m;
  const std::string site = "/data/winvenv/Lib/site-packages";
  m.tree.write("/data/winvenv/pyvenv.cfg", "home = C:\\Python310\nversion = 3.10.11\n");
  m.tree.write(site + "/tensorflow/python/platform/build_info.py",
               fixture("tensorflow-2.10.0-win.build_info.py"));
  m.dist(site, "tensorflow-2.10.0.dist-info");
  m.dist(site, "tensorflow_intel-2.10.0.dist-info");
  m.env = {{"VIRTUAL_ENV", "/data/winvenv"}};
  const auto envs = m.collect();
  ASSERT_EQ(envs.size(), 1U);
  EXPECT_EQ(envs[0].site_packages.value_or(""), site);
  EXPECT_EQ(package_names(envs[0]), (std::vector<std::string>{"tensorflow", "tensorflow-intel"}));
  const Framework* tf = framework(envs[0], "tensorflow");
  ASSERT_NE(tf, nullptr);
  EXPECT_EQ(tf->version.value_or(""), "2.10.0");
  EXPECT_EQ(tf->cuda_version.value_or(""), "11.2");
  EXPECT_NE(tf->cuda_version.source().find("(written '64_112')"), std::string::npos);
  EXPECT_EQ(tf->cudnn_version.value_or(""), "8");
  EXPECT_NE(tf->cudnn_version.source().find("(written '64_8')"), std::string::npos);
}

TEST(python_collector, cpu_tensorflow_has_no_cuda_versions) {
  Machine m;
  m.venv(k_venv);
  m.tree.write(std::string(k_venv_site) + "/tensorflow/python/platform/build_info.py",
               fixture("tensorflow-intel-2.15.0-win.build_info.py"));
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs_tf = m.collect();
  ASSERT_FALSE(envs_tf.empty());
  const Framework* tf = framework(envs_tf[0], "tensorflow");
  ASSERT_NE(tf, nullptr);
  EXPECT_FALSE(tf->cuda_build.value_or(true));
  EXPECT_NE(tf->cuda_version.reason().find("not a CUDA build"), std::string::npos);
  EXPECT_FALSE(tf->version); // no dist-info
  EXPECT_NE(tf->version.reason().find("no tensorflow"), std::string::npos);
}

TEST(python_collector, unreadable_site_packages_is_unknown_with_reason) {
  Machine m;
  m.venv(k_venv);
  m.torch(k_venv_site, k_torch_cu121);
  m.env = {{"VIRTUAL_ENV", k_venv}};
  fs::permissions(m.tree.at(k_venv_site), fs::perms::none);
  if (test::running_as_root()) {
    std::error_code ec;
    const fs::directory_iterator probe(m.tree.at(k_venv_site), ec);
    if (!ec) {
      GTEST_SKIP() << "running as root: permission bits do not stop reading";
    }
  }
  const auto envs = m.collect();
  ASSERT_EQ(envs.size(), 1U);
  EXPECT_FALSE(envs[0].site_packages);
  EXPECT_NE(envs[0].site_packages.reason().find("permission denied"), std::string::npos);
  EXPECT_TRUE(envs[0].packages.empty());
}

TEST(python_collector, unreadable_version_file_is_unknown_with_reason) {
  Machine m;
  m.venv(k_venv);
  m.torch(k_venv_site, k_torch_cu121);
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const fs::path file = m.tree.at(std::string(k_venv_site) + "/torch/version.py");
  fs::permissions(file, fs::perms::none);
  if (test::running_as_root() && std::ifstream(file).good()) {
    GTEST_SKIP() << "running as root: permission bits do not stop reading";
  }
  const auto envs_torch = m.collect();
  ASSERT_FALSE(envs_torch.empty());
  const Framework* torch = framework(envs_torch[0], "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_FALSE(torch->cuda_version);
  EXPECT_NE(torch->cuda_version.reason().find("permission denied"), std::string::npos);
}

TEST(python_collector, symlink_loops_give_reasons_not_hangs) {
  Machine m;
  m.venv(k_venv);
  const std::string site = k_venv_site;
  m.tree.link("torch", site + "/torch"); // torch -> torch
  m.dist(site, "torch-2.5.1.dist-info");
  m.tree.link("b", site + "/a");
  m.tree.link("a", site + "/b");
  // An environment prefix that is itself a loop, and one whose site-packages is.
  m.tree.link("/loop", "/loop");
  m.tree.write("/home/u/venv2/pyvenv.cfg", "version = 3.12.0\n");
  m.tree.link("site-packages", "/home/u/venv2/lib/python3.12/site-packages");
  m.env = {{"VIRTUAL_ENV", k_venv},
           {"CONDA_PREFIX", "/loop"},
           {"HOME", "/home/u"},
           {"PATH", "/loop/bin:/home/u/venv2/bin"}};
  m.tree.write("/home/u/.conda/environments.txt", "/loop\n/home/u/venv2\n");

  const auto envs = m.collect();
  EXPECT_EQ(prefixes(envs), (std::vector<std::string>{"/home/u/venv", "/home/u/venv2"}));
  const Framework* torch = framework(envs[0], "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->version.value_or(""), "2.5.1");
  EXPECT_FALSE(torch->cuda_build);
  EXPECT_NE(torch->cuda_build.reason().find("symbolic link loop"), std::string::npos);
  EXPECT_FALSE(envs[1].site_packages);
  EXPECT_FALSE(envs[1].site_packages.reason().empty());
}

TEST(python_collector, debian_system_reads_local_and_apt_dist_packages) {
  Machine m;
  m.debian_python();
  m.torch("/usr/lib/python3/dist-packages", fixture("torch-1.13.1-macos.version.py"));
  m.dist("/usr/lib/python3/dist-packages", "torch-1.13.1.egg-info");
  const std::string local = "/usr/local/lib/python3.11/dist-packages";
  m.tree.write(local + "/onnxruntime/capi/build_and_package_info.py",
               fixture("onnxruntime-gpu-1.22.0-linux.build_and_package_info.py"));
  m.dist(local, "onnxruntime_gpu-1.22.0.dist-info");
  m.env = {{"PATH", "/usr/bin"}};
  const auto envs = m.collect();
  ASSERT_EQ(envs.size(), 1U);
  EXPECT_EQ(envs[0].site_packages.value_or(""), local); // pip's directory comes first
  EXPECT_EQ(package_names(envs[0]), (std::vector<std::string>{"onnxruntime-gpu", "torch"}));
  ASSERT_EQ(envs[0].frameworks.size(), 2U);
  EXPECT_EQ(envs[0].frameworks[0].name, "onnxruntime"); // sorted by name
  EXPECT_EQ(envs[0].frameworks[1].name, "torch");
  EXPECT_EQ(envs[0].frameworks[1].location, "/usr/lib/python3/dist-packages/torch");
  EXPECT_EQ(envs[0].frameworks[1].version.value_or(""), "1.13.1");
  EXPECT_FALSE(envs[0].frameworks[1].cuda_build.value_or(true));
}

TEST(python_collector, onnxruntime_variants) {
  Machine m;
  m.venv(k_venv);
  m.tree.write(std::string(k_venv_site) + "/onnxruntime/capi/build_and_package_info.py",
               fixture("onnxruntime-gpu-1.22.0-linux.build_and_package_info.py"));
  m.dist(k_venv_site, "onnxruntime_gpu-1.22.0.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs_gpu = m.collect();
  ASSERT_FALSE(envs_gpu.empty());
  const Framework* gpu = framework(envs_gpu[0], "onnxruntime");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->version.value_or(""), "1.22.0");
  EXPECT_TRUE(gpu->cuda_build.value_or(false));
  EXPECT_NE(gpu->cuda_build.source().find("onnxruntime-gpu"), std::string::npos);
  EXPECT_EQ(gpu->cuda_version.value_or(""), "12.2");
  EXPECT_FALSE(gpu->cudnn_version);

  // onnxruntime-gpu 1.18 has no build_and_package_info.py: the package name still tells.
  std::filesystem::remove(
      m.tree.at(std::string(k_venv_site) + "/onnxruntime/capi/build_and_package_info.py"));
  std::filesystem::remove_all(
      m.tree.at(std::string(k_venv_site) + "/onnxruntime_gpu-1.22.0.dist-info"));
  m.dist(k_venv_site, "onnxruntime_gpu-1.18.0.dist-info");
  const auto envs_old = m.collect();
  ASSERT_FALSE(envs_old.empty());
  const Framework* old = framework(envs_old[0], "onnxruntime");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->version.value_or(""), "1.18.0");
  EXPECT_TRUE(old->cuda_build.value_or(false));
  EXPECT_FALSE(old->cuda_version);
  EXPECT_FALSE(old->cuda_version.reason().empty());

  std::filesystem::remove_all(
      m.tree.at(std::string(k_venv_site) + "/onnxruntime_gpu-1.18.0.dist-info"));
  m.dist(k_venv_site, "onnxruntime-1.18.0.dist-info");
  const auto envs_cpu = m.collect();
  ASSERT_FALSE(envs_cpu.empty());
  const Framework* cpu = framework(envs_cpu[0], "onnxruntime");
  ASSERT_NE(cpu, nullptr);
  EXPECT_FALSE(cpu->cuda_build.value_or(true));
  EXPECT_NE(cpu->cuda_version.reason().find("not a CUDA build"), std::string::npos);
}

TEST(python_collector, jax_with_cuda_plugin_wheels) {
  Machine m;
  m.venv(k_venv);
  m.tree.write(std::string(k_venv_site) + "/jax/version.py", fixture("jax-0.4.30.version.py"));
  m.tree.write(std::string(k_venv_site) + "/jaxlib/version.py",
               fixture("jaxlib-0.4.30.version.py"));
  m.dist(k_venv_site, "jax-0.4.30.dist-info");
  m.dist(k_venv_site, "jaxlib-0.4.30.dist-info");
  m.dist(k_venv_site, "jax_cuda12_plugin-0.4.30.dist-info");
  m.dist(k_venv_site, "jax_cuda12_pjrt-0.4.30.dist-info");
  m.dist(k_venv_site, "nvidia_cudnn_cu12-9.2.1.18.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs = m.collect();
  EXPECT_EQ(package_names(envs.at(0)),
            (std::vector<std::string>{
                "jax", "jax-cuda12-pjrt", "jax-cuda12-plugin", "jaxlib", "nvidia-cudnn-cu12"}));
  const Framework* jax = framework(envs[0], "jax");
  ASSERT_NE(jax, nullptr);
  EXPECT_EQ(jax->location, std::string(k_venv_site) + "/jaxlib");
  EXPECT_EQ(jax->version.value_or(""), "0.4.30");
  EXPECT_TRUE(jax->cuda_build.value_or(false));
  EXPECT_EQ(jax->cuda_version.value_or(""), "12");
  EXPECT_EQ(jax->cuda_version.source(),
            "dist-info:" + std::string(k_venv_site) + "/jax_cuda12_plugin-0.4.30.dist-info");
  EXPECT_EQ(jax->cudnn_version.value_or(""), "9.2.1.18");
}

TEST(python_collector, old_jaxlib_with_cuda_in_its_version_and_cpu_jaxlib) {
  Machine m;
  m.venv(k_venv);
  m.tree.mkdir(std::string(k_venv_site) + "/jaxlib");
  m.dist(k_venv_site, "jaxlib-0.4.7+cuda12.cudnn88.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs_old = m.collect();
  ASSERT_FALSE(envs_old.empty());
  const Framework* old = framework(envs_old[0], "jax");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->version.value_or(""), "0.4.7+cuda12.cudnn88");
  EXPECT_EQ(old->cuda_version.value_or(""), "12");
  EXPECT_EQ(old->cudnn_version.value_or(""), "8.8");

  std::filesystem::remove_all(
      m.tree.at(std::string(k_venv_site) + "/jaxlib-0.4.7+cuda12.cudnn88.dist-info"));
  m.dist(k_venv_site, "jaxlib-0.4.30.dist-info");
  const auto envs_cpu = m.collect();
  ASSERT_FALSE(envs_cpu.empty());
  const Framework* cpu = framework(envs_cpu[0], "jax");
  ASSERT_NE(cpu, nullptr);
  EXPECT_FALSE(cpu->cuda_build.value_or(true));
  EXPECT_FALSE(cpu->cuda_version);
}

TEST(python_collector, paddle_gpu_and_paddle_1_8) {
  Machine m;
  m.venv(k_venv);
  const std::string site = k_venv_site;
  m.tree.write(site + "/paddle/version/__init__.py",
               fixture("paddlepaddle-gpu-2.6.1-linux.version_init.py"));
  m.dist(site, "paddlepaddle_gpu-2.6.1.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs_gpu = m.collect();
  ASSERT_FALSE(envs_gpu.empty());
  const Framework* gpu = framework(envs_gpu[0], "paddle");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->version.value_or(""), "2.6.1");
  EXPECT_TRUE(gpu->cuda_build.value_or(false));
  EXPECT_EQ(gpu->cuda_version.value_or(""), "11.8");
  EXPECT_EQ(gpu->cudnn_version.value_or(""), "8.6.0");

  std::filesystem::remove_all(m.tree.at(site + "/paddle"));
  std::filesystem::remove_all(m.tree.at(site + "/paddlepaddle_gpu-2.6.1.dist-info"));
  m.tree.write(site + "/paddle/version.py", fixture("paddlepaddle-1.8.5-linux.version.py"));
  m.dist(site, "paddlepaddle_gpu-1.8.5.post107.dist-info");
  const auto envs_old = m.collect();
  ASSERT_FALSE(envs_old.empty());
  const Framework* old = framework(envs_old[0], "paddle");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->version.value_or(""), "1.8.5.post107");
  EXPECT_TRUE(old->cuda_build.value_or(false)); // from the -gpu package name
  EXPECT_FALSE(old->cuda_version);
  EXPECT_NE(old->cuda_version.reason().find("records no cuda_version"), std::string::npos);
}

TEST(python_collector, several_python_dirs_pick_the_newest_and_say_so) {
  Machine m;
  m.tree.mkdir("/opt/py/conda-meta");
  m.tree.mkdir("/opt/py/lib/python3.10/site-packages");
  m.tree.mkdir("/opt/py/lib/python3.12/site-packages");
  m.tree.mkdir("/opt/py/lib/python3.9/site-packages");
  m.tree.write("/home/u/.conda/environments.txt", "/opt/py\n");
  m.env = {{"HOME", "/home/u"}};
  const auto envs = m.collect();
  ASSERT_EQ(envs.size(), 1U);
  EXPECT_EQ(envs[0].python_version.value_or(""), "3.12");
  EXPECT_NE(envs[0].python_version.source().find("several"), std::string::npos);
  EXPECT_EQ(envs[0].site_packages.value_or(""), "/opt/py/lib/python3.12/site-packages");

  // With the version known, its own directory is taken.
  m.tree.write("/opt/py/conda-meta/python-3.10.14-h1.json", "{}");
  const auto known = m.collect();
  EXPECT_EQ(known.at(0).python_version.value_or(""), "3.10.14");
  EXPECT_EQ(known.at(0).site_packages.value_or(""), "/opt/py/lib/python3.10/site-packages");
}

TEST(python_collector, conflicting_dist_infos_fall_back_to_the_version_file) {
  Machine m;
  m.venv(k_venv);
  m.torch(k_venv_site, k_torch_cu121);
  m.dist(k_venv_site, "torch-2.4.0.dist-info");
  m.dist(k_venv_site, "torch-2.5.1+cu121.dist-info");
  m.env = {{"VIRTUAL_ENV", k_venv}};
  const auto envs = m.collect();
  EXPECT_EQ(package_names(envs.at(0)), (std::vector<std::string>{"torch", "torch"}));
  const Framework* torch = framework(envs[0], "torch");
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch->version.value_or(""), "2.5.1+cu121");
  EXPECT_EQ(torch->version.source(), "file:" + std::string(k_venv_site) + "/torch/version.py");
}

} // namespace
} // namespace doctor
