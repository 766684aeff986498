// SPDX-License-Identifier: MIT
#include "support/junk.hpp"
#include "support/test_paths.hpp"

#include <doctor/formats/python_files.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace doctor {
namespace {

using namespace formats; // NOLINT(google-build-using-namespace): test-local

// A file extracted from a real wheel (tests/unit/data/python/README.md names each wheel).
std::string fixture(const std::string& name) {
  const std::string path = test::test_data_dir() + "/python/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

using test::junk;
using test::python_junk;

std::string utf16le(std::string_view ascii) {
  std::string out;
  for (char c : ascii) {
    out += c;
    out += '\0';
  }
  return out;
}

// --- torch ------------------------------------------------------------------------------------

TEST(python_files, torch_cuda_build_2_5_1) {
  const auto t = parse_torch_version_py(fixture("torch-2.5.1-linux-cu124.version.py"));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->version, "2.5.1+cu124");
  EXPECT_TRUE(t->cuda_recorded);
  EXPECT_EQ(t->cuda, "12.4");
  EXPECT_FALSE(t->hip);
  EXPECT_EQ(t->git_version, "a8d6afb511a69687bbb2b7e88a3cf67917e1697e");
  EXPECT_EQ(t->debug, false);
}

TEST(python_files, torch_cuda_build_2_15_with_rocm_and_xpu_lines) {
  const auto t = parse_torch_version_py(fixture("torch-2.15.0-linux-cu132.version.py"));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->version, "2.15.0+cu132");
  EXPECT_EQ(t->cuda, "13.2");
  EXPECT_FALSE(t->rocm);
}

TEST(python_files, torch_cpu_builds_say_cuda_none) {
  for (const char* name : {"torch-2.5.1-win-cpu.version.py", "torch-1.13.1-macos.version.py"}) {
    const auto t = parse_torch_version_py(fixture(name));
    ASSERT_TRUE(t) << name;
    EXPECT_TRUE(t->cuda_recorded) << name;
    EXPECT_FALSE(t->cuda) << name;
  }
  EXPECT_EQ(parse_torch_version_py(fixture("torch-2.5.1-win-cpu.version.py"))->version,
            "2.5.1+cpu");
  EXPECT_EQ(parse_torch_version_py(fixture("torch-1.13.1-macos.version.py"))->version, "1.13.1");
}

TEST(python_files, torch_old_style_cuda_string_and_rocm_build) {
  const auto cuda = parse_torch_version_py(
      "__version__ = '1.13.1+cu117'\ndebug = False\n"
      "cuda = '11.7'\nhip = None\n");
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->cuda, "11.7");
  const auto rocm = parse_torch_version_py(
      "__version__ = '2.3.0+rocm6.0'\ncuda = None\n"
      "hip = '6.0.32830-d62f6a171'\n");
  ASSERT_TRUE(rocm);
  EXPECT_FALSE(rocm->cuda);
  EXPECT_EQ(rocm->hip, "6.0.32830-d62f6a171");
}

TEST(python_files, torch_rejects_junk_and_utf16) {
  EXPECT_FALSE(parse_torch_version_py(""));
  EXPECT_FALSE(parse_torch_version_py("print('hello')\n"));
  EXPECT_FALSE(parse_torch_version_py(utf16le(fixture("torch-2.5.1-linux-cu124.version.py"))));
  // A file cut inside the cuda string still gives the version, but no CUDA verdict.
  const std::string text = fixture("torch-2.5.1-linux-cu124.version.py");
  const auto cut = parse_torch_version_py(text.substr(0, text.find("'12.4'") + 3));
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->version, "2.5.1+cu124");
  EXPECT_FALSE(cut->cuda_recorded);
}

// --- tensorflow -------------------------------------------------------------------------------

TEST(python_files, torch_cuda_bound_twice_is_evaluated_or_unknown_never_the_first_value) {
  const auto joined = parse_torch_version_py("__version__ = '2.5.1'\ncuda = '12'\ncuda += '.1'\n");
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->cuda, "12.1");
  EXPECT_TRUE(joined->unknown.empty());
  const auto computed =
      parse_torch_version_py("__version__ = '2.5.1'\ncuda = '12'\ncuda = _detect()\n");
  ASSERT_TRUE(computed);
  EXPECT_FALSE(computed->cuda);
  EXPECT_FALSE(computed->cuda_recorded);
  EXPECT_EQ(computed->unknown.at("cuda"),
            "assigned by `cuda = _detect()`, whose value is not a literal");
  // Only an unknown cuda: still a torch version file, with nothing guessed.
  const auto only = parse_torch_version_py("cuda = '12'\ncuda += suffix\n");
  ASSERT_TRUE(only);
  EXPECT_FALSE(only->cuda);
  EXPECT_EQ(only->unknown.count("cuda"), 1U);
  // jax: an unknown _release_version is not replaced by _version.
  EXPECT_FALSE(parse_jax_version_py("_version = '0.4.30'\n_release_version = _compute()\n"));
}

TEST(python_files, tensorflow_ordered_dict_linux) {
  const auto b = parse_tensorflow_build_info(fixture("tensorflow-2.15.0-linux.build_info.py"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->layout, "ordered_dict");
  EXPECT_EQ(b->is_cuda_build, true);
  EXPECT_EQ(b->is_rocm_build, false);
  EXPECT_EQ(b->is_tensorrt_build, true);
  EXPECT_EQ(b->cuda_version, "12.2");
  EXPECT_EQ(b->cuda_version_raw, "12.2");
  EXPECT_EQ(b->cudnn_version, "8");
  EXPECT_EQ(b->cuda_compute_capabilities,
            (std::vector<std::string>{"sm_50", "sm_60", "sm_70", "sm_75", "compute_80"}));
  EXPECT_FALSE(b->cudart_dll_name);

  const auto newest = parse_tensorflow_build_info(fixture("tensorflow-2.21.0-linux.build_info.py"));
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->cuda_version, "12.5.1");
  EXPECT_EQ(newest->cudnn_version, "9");

  const auto old = parse_tensorflow_build_info(fixture("tensorflow-2.4.0-linux.build_info.py"));
  ASSERT_TRUE(old);
  EXPECT_EQ(old->layout, "ordered_dict");
  EXPECT_EQ(old->cuda_version, "11.0");
  EXPECT_FALSE(old->is_tensorrt_build);
}

TEST(python_files, tensorflow_windows_versions_are_normalised_and_kept_raw) {
  const auto b = parse_tensorflow_build_info(fixture("tensorflow-2.10.0-win.build_info.py"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->layout, "ordered_dict");
  EXPECT_EQ(b->cuda_version, "11.2");
  EXPECT_EQ(b->cuda_version_raw, "64_112");
  EXPECT_EQ(b->cudnn_version, "8");
  EXPECT_EQ(b->cudnn_version_raw, "64_8");
  EXPECT_EQ(b->cudart_dll_name, "cudart64_112.dll");
  EXPECT_EQ(b->cudnn_dll_name, "cudnn64_8.dll");
  EXPECT_EQ(b->msvcp_dll_names, "msvcp140.dll,msvcp140_1.dll");
  EXPECT_EQ(b->is_cuda_build, true);
}

TEST(python_files, tensorflow_plain_dict_of_2_3) {
  const auto b = parse_tensorflow_build_info(fixture("tensorflow-2.3.0-win.build_info.py"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->layout, "dict");
  EXPECT_EQ(b->cuda_version, "10.1");
  EXPECT_EQ(b->cuda_version_raw, "64_101");
  EXPECT_EQ(b->cudnn_version, "7");
  EXPECT_EQ(b->cudnn_dll_name, "cudnn64_7.dll");
  ASSERT_TRUE(b->cuda_compute_capabilities);
  EXPECT_EQ(b->cuda_compute_capabilities->back(), "compute_70");
}

TEST(python_files, tensorflow_module_variables_of_2_2) {
  const auto linux_build =
      parse_tensorflow_build_info(fixture("tensorflow-2.2.0-linux.build_info.py"));
  ASSERT_TRUE(linux_build);
  EXPECT_EQ(linux_build->layout, "variables");
  EXPECT_EQ(linux_build->is_cuda_build, true);
  EXPECT_EQ(linux_build->cuda_version, "10"); // as that wheel wrote it
  EXPECT_EQ(linux_build->cudnn_version, "7");
  EXPECT_FALSE(linux_build->cuda_compute_capabilities);

  const auto windows =
      parse_tensorflow_build_info(fixture("tensorflow-gpu-2.2.0-win.build_info.py"));
  ASSERT_TRUE(windows);
  EXPECT_EQ(windows->cuda_version, "10.1");
  EXPECT_EQ(windows->cudart_dll_name, "cudart64_101.dll");
}

TEST(python_files, tensorflow_cpu_build) {
  const auto b = parse_tensorflow_build_info(fixture("tensorflow-intel-2.15.0-win.build_info.py"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->is_cuda_build, false);
  EXPECT_FALSE(b->cuda_version);
  EXPECT_FALSE(b->cudnn_version);
}

TEST(python_files, tensorflow_rejects_junk) {
  EXPECT_FALSE(parse_tensorflow_build_info(""));
  EXPECT_FALSE(parse_tensorflow_build_info("build_info = make_build_info()\n"));
  EXPECT_FALSE(parse_tensorflow_build_info("build_info = {'cpu_compiler': 'gcc'}\n"));
  const std::string text = fixture("tensorflow-2.15.0-linux.build_info.py");
  EXPECT_FALSE(
      parse_tensorflow_build_info(text.substr(0, text.size() / 2 + 200))); // cut in the dict
  EXPECT_FALSE(parse_tensorflow_build_info(junk(4096, 1)));
}

TEST(python_files, tensorflow_version_normalisation) {
  EXPECT_EQ(normalize_tensorflow_cuda_version("64_112"), "11.2");
  EXPECT_EQ(normalize_tensorflow_cuda_version("64_101"), "10.1");
  EXPECT_EQ(normalize_tensorflow_cuda_version("64_110"), "11.0");
  EXPECT_EQ(normalize_tensorflow_cuda_version("64_92"), "9.2");
  EXPECT_EQ(normalize_tensorflow_cuda_version("64_11"), "11");
  EXPECT_EQ(normalize_tensorflow_cuda_version("11.2"), "11.2");
  EXPECT_EQ(normalize_tensorflow_cuda_version("64_"), "64_");
  EXPECT_EQ(normalize_tensorflow_cuda_version("64_1x2"), "64_1x2");
  EXPECT_EQ(normalize_tensorflow_cudnn_version("64_8"), "8");
  EXPECT_EQ(normalize_tensorflow_cudnn_version("8"), "8");
  EXPECT_EQ(normalize_tensorflow_cudnn_version("64_"), "64_");
}

// --- jax --------------------------------------------------------------------------------------

TEST(python_files, jax_version_files) {
  EXPECT_EQ(parse_jax_version_py(fixture("jax-0.4.30.version.py")), "0.4.30");
  EXPECT_EQ(parse_jax_version_py(fixture("jaxlib-0.4.30.version.py")), "0.4.30");
  EXPECT_EQ(parse_jax_version_py(fixture("jax-0.10.2.version.py")), "0.10.2");
  // A source checkout has no release version: the base version is what there is.
  EXPECT_EQ(parse_jax_version_py("_version = \"0.4.31\"\n_release_version: str | None = None\n"
                                 "__version__ = _get_version_string()\n"),
            "0.4.31");
  EXPECT_FALSE(parse_jax_version_py("__version__ = _get_version_string()\n"));
  EXPECT_FALSE(parse_jax_version_py(junk(2000, 2)));
}

TEST(python_files, jaxlib_local_version_labels) {
  const auto a = parse_jaxlib_local_version("0.4.7+cuda12.cudnn88");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->cuda, "12");
  EXPECT_EQ(a->cudnn, "8.8");
  const auto b = parse_jaxlib_local_version("0.3.25+cuda11.cudnn805");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->cuda, "11");
  EXPECT_EQ(b->cudnn, "8.0.5");
  const auto c = parse_jaxlib_local_version("0.1.69+cuda111");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cuda, "11.1");
  EXPECT_FALSE(c->cudnn);
  EXPECT_EQ(parse_jaxlib_local_version("0.1.57+cuda92")->cuda, "9.2");
  EXPECT_FALSE(parse_jaxlib_local_version("0.4.30"));
  EXPECT_FALSE(parse_jaxlib_local_version("0.4.30+cpu"));
  EXPECT_FALSE(parse_jaxlib_local_version("0.4.30+cudnn88")); // no CUDA named
  EXPECT_FALSE(parse_jaxlib_local_version("0.4.30+cuda"));
  EXPECT_FALSE(parse_jaxlib_local_version("+"));
}

TEST(python_files, jax_plugin_names) {
  EXPECT_EQ(jax_plugin_cuda_major("jax-cuda12-plugin"), "12");
  EXPECT_EQ(jax_plugin_cuda_major("jax-cuda12-pjrt"), "12");
  EXPECT_EQ(jax_plugin_cuda_major("jax-cuda13-plugin"), "13");
  EXPECT_EQ(jax_plugin_cuda_major("jax-cuda11-plugin"), "11");
  EXPECT_FALSE(jax_plugin_cuda_major("jax-rocm60-plugin"));
  EXPECT_FALSE(jax_plugin_cuda_major("jax-cuda-plugin"));
  EXPECT_FALSE(jax_plugin_cuda_major("jax-cuda12-plugins"));
  EXPECT_FALSE(jax_plugin_cuda_major("jaxlib"));
}

// --- paddle -----------------------------------------------------------------------------------

TEST(python_files, paddle_gpu_build) {
  const auto p = parse_paddle_version_py(fixture("paddlepaddle-gpu-2.6.1-linux.version_init.py"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->full_version, "2.6.1");
  EXPECT_TRUE(p->cuda_recorded);
  EXPECT_EQ(p->cuda_version, "11.8");
  EXPECT_EQ(p->cudnn_version, "8.6.0");
  EXPECT_EQ(p->commit, "fbf852dd832bc0e63ae31cd4aa37defd829e4c03");
  EXPECT_FALSE(p->with_gpu);
}

TEST(python_files, paddle_cpu_builds_say_false) {
  for (const char* name :
       {"paddlepaddle-2.6.2-linux.version_init.py", "paddlepaddle-3.3.1-linux.version_init.py"}) {
    const auto p = parse_paddle_version_py(fixture(name));
    ASSERT_TRUE(p) << name;
    EXPECT_TRUE(p->cuda_recorded) << name;
    EXPECT_FALSE(p->cuda_version) << name;
    EXPECT_FALSE(p->cudnn_version) << name;
  }
  const auto p3 = parse_paddle_version_py(fixture("paddlepaddle-3.3.1-linux.version_init.py"));
  EXPECT_EQ(p3->full_version, "3.3.1");
  ASSERT_TRUE(p3->cuda_archs);
  EXPECT_TRUE(p3->cuda_archs->empty());
}

TEST(python_files, paddle_1_8_records_no_cuda) {
  const auto p = parse_paddle_version_py(fixture("paddlepaddle-1.8.5-linux.version.py"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->full_version, "1.8.5");
  EXPECT_FALSE(p->cuda_recorded);
}

TEST(python_files, paddle_with_gpu_string_and_archs) {
  const auto p = parse_paddle_version_py(
      "full_version = '2.5.0'\nwith_gpu = 'True'\n"
      "cuda_version = '12.0'\ncudnn_version = '8.9.1'\n"
      "compiled_cuda_archs = [80, 86, 90]\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->with_gpu, true);
  EXPECT_EQ(p->cuda_version, "12.0");
  EXPECT_EQ(p->cuda_archs, (std::vector<std::string>{"80", "86", "90"}));
  EXPECT_EQ(parse_paddle_version_py("major = '2'\nwith_gpu = 'OFF'\n")->with_gpu, false);
  EXPECT_FALSE(parse_paddle_version_py("with_gpu = 'True'\n"));
  EXPECT_FALSE(parse_paddle_version_py(junk(3000, 3)));
}

// --- onnxruntime ------------------------------------------------------------------------------

TEST(python_files, onnxruntime_build_and_package_info) {
  const auto gpu = parse_onnxruntime_build_info(
      fixture("onnxruntime-gpu-1.22.0-linux.build_and_package_info.py"));
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->package_name, "onnxruntime-gpu");
  EXPECT_EQ(gpu->version, "1.22.0");
  EXPECT_EQ(gpu->cuda_version, "12.2");
  EXPECT_FALSE(gpu->cudnn_version);

  const auto win =
      parse_onnxruntime_build_info(fixture("onnxruntime-gpu-1.22.0-win.build_and_package_info.py"));
  ASSERT_TRUE(win);
  EXPECT_EQ(win->cuda_version, "12.2");

  const auto cpu =
      parse_onnxruntime_build_info(fixture("onnxruntime-1.22.0-linux.build_and_package_info.py"));
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->package_name, "onnxruntime");
  EXPECT_FALSE(cpu->cuda_version);

  const auto training = parse_onnxruntime_build_info(
      "package_name = 'onnxruntime-training'\n__version__ = '1.16.3'\ncuda_version = '11.8'\n"
      "cudart_version = 11080\ncudnn_version = '8.9'\n");
  ASSERT_TRUE(training);
  EXPECT_EQ(training->cudart_version, "11080");
  EXPECT_EQ(training->cudnn_version, "8.9");

  EXPECT_FALSE(parse_onnxruntime_build_info("cuda_version = '12.2'\n"));
  EXPECT_FALSE(parse_onnxruntime_build_info(junk(500, 4)));
}

// --- environment files ------------------------------------------------------------------------

TEST(python_files, pyvenv_cfg_versions) {
  EXPECT_EQ(parse_pyvenv_cfg_version("home = /usr/bin\ninclude-system-site-packages = false\n"
                                     "version = 3.11.7\nexecutable = /usr/bin/python3.11\n"),
            "3.11.7");
  EXPECT_EQ(parse_pyvenv_cfg_version("home = /usr/bin\nimplementation = CPython\n"
                                     "version_info = 3.10.12.final.0\nvirtualenv = 20.24.6\n"),
            "3.10.12");
  EXPECT_EQ(parse_pyvenv_cfg_version("version_info = 3.12.1\r\nversion = 3.12.2\r\n"), "3.12.2");
  EXPECT_FALSE(parse_pyvenv_cfg_version("home = /usr/bin\nvirtualenv = 20.24.6\n"));
  EXPECT_FALSE(parse_pyvenv_cfg_version("version = three\n"));
  EXPECT_FALSE(parse_pyvenv_cfg_version(junk(1000, 5)));
}

TEST(python_files, pyvenv_cfg_system_site_packages) {
  EXPECT_TRUE(
      pyvenv_cfg_includes_system_site("home = C:\\Python311\r\n"
                                      "include-system-site-packages = true\r\n"));
  EXPECT_TRUE(pyvenv_cfg_includes_system_site("Include-System-Site-Packages=True\n"));
  EXPECT_FALSE(pyvenv_cfg_includes_system_site("include-system-site-packages = false\n"));
  EXPECT_FALSE(pyvenv_cfg_includes_system_site("include-system-site-packages = yes\n"));
  EXPECT_FALSE(pyvenv_cfg_includes_system_site("home = /usr/bin\nversion = 3.11.7\n"));
  EXPECT_FALSE(pyvenv_cfg_includes_system_site(junk(1000, 6)));
}

TEST(python_files, store_python_folder_names) {
  const auto family =
      parse_store_python_folder("PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0");
  ASSERT_TRUE(family);
  EXPECT_EQ(family->minor_version, "3.11");
  EXPECT_EQ(family->publisher_id, "qbz5n2kfra8p0");
  EXPECT_FALSE(family->install_folder);
  const auto full = parse_store_python_folder(
      "pythonsoftwarefoundation.python.3.13_3.13.1264.0_x64__qbz5n2kfra8p0");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->minor_version, "3.13");
  EXPECT_EQ(full->package_version, "3.13.1264.0");
  EXPECT_EQ(full->architecture, "x64");
  EXPECT_EQ(full->publisher_id, "qbz5n2kfra8p0");
  EXPECT_TRUE(full->install_folder);
  for (const char* other :
       {"Microsoft.WindowsTerminal_8wekyb3d8bbwe",
        "PythonSoftwareFoundation.Python.3.11",
        "PythonSoftwareFoundation.Python.3.11_",
        "PythonSoftwareFoundation.Python.three_qbz5n2kfra8p0",
        "PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0_extra",
        "PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64_res_qbz5n2kfra8p0",
        "PythonSoftwareFoundation.Python.3.11_qbz5n2kf/../x"}) {
    EXPECT_FALSE(parse_store_python_folder(other)) << other;
  }
  EXPECT_FALSE(parse_store_python_folder(junk(300, 7)));
}

TEST(python_files, conda_meta_python_record_names) {
  EXPECT_EQ(python_version_from_conda_meta("python-3.11.7-h955ad1f_0.json"), "3.11.7");
  EXPECT_EQ(python_version_from_conda_meta("python-3.12.0-hab00c5b_0_cpython.json"), "3.12.0");
  EXPECT_FALSE(python_version_from_conda_meta("python-dateutil-2.8.2-pyhd3eb1b0_0.json"));
  EXPECT_FALSE(python_version_from_conda_meta("python_abi-3.11-4_cp311.json"));
  EXPECT_FALSE(python_version_from_conda_meta("python-3.11.7-h955ad1f_0.txt"));
  EXPECT_FALSE(python_version_from_conda_meta("pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0.json"));
}

TEST(python_files, python_names) {
  EXPECT_EQ(python_version_from_name("python3.11"), "3.11");
  EXPECT_EQ(python_version_from_name("python3.13t"), "3.13");
  EXPECT_EQ(python_version_from_name("python2.7"), "2.7");
  for (const char* name : {"python3",
                           "python",
                           "python3.11-config",
                           "python3.11.7",
                           "pythonx.y",
                           "site-packages",
                           "python3.11tt"}) {
    EXPECT_FALSE(python_version_from_name(name)) << name;
  }
}

TEST(python_files, pyenv_version_names) {
  EXPECT_EQ(parse_pyenv_versions("3.11.7\n"), (std::vector<std::string>{"3.11.7"}));
  EXPECT_EQ(parse_pyenv_versions("# comment\n3.11.7 3.10.4\nsystem\n"),
            (std::vector<std::string>{"3.11.7", "3.10.4", "system"}));
  EXPECT_EQ(parse_pyenv_versions("3.12.1:miniconda3-latest"),
            (std::vector<std::string>{"3.12.1", "miniconda3-latest"}));
  EXPECT_EQ(parse_pyenv_versions("3.11.7/envs/myenv"),
            (std::vector<std::string>{"3.11.7/envs/myenv"}));
  EXPECT_TRUE(parse_pyenv_versions("../../etc\n/abs\n..\n").empty());
  EXPECT_TRUE(parse_pyenv_versions(std::string(300, 'x')).empty());
  EXPECT_LE(
      parse_pyenv_versions(std::string(100000, 'a') + " " + std::string(10000, ' ') + "b").size(),
      64U);
  std::string many;
  for (int i = 0; i < 200; ++i) {
    many += "v" + std::to_string(i) + "\n";
  }
  EXPECT_EQ(parse_pyenv_versions(many).size(), 64U);
}

TEST(python_files, conda_environments_txt) {
  EXPECT_EQ(parse_conda_environments_txt("/opt/conda\n/home/u/.conda/envs/a/\n\nrelative\n"
                                         "  /home/u/envs/b  \r\nC:\\Users\\u\\env\n/bad\x01path\n"),
            (std::vector<std::string>{"/opt/conda", "/home/u/.conda/envs/a", "/home/u/envs/b"}));
  std::string many;
  for (int i = 0; i < 3000; ++i) {
    many += "/e/" + std::to_string(i) + "\n";
  }
  EXPECT_EQ(parse_conda_environments_txt(many).size(), 1024U);
}

// --- bad input --------------------------------------------------------------------------------

TEST(python_files, every_parser_survives_junk) {
  for (unsigned seed = 0; seed < 40; ++seed) {
    for (const std::string& text :
         {junk(64 + seed * 97, seed), python_junk(64 + seed * 131, seed)}) {
      // No crash, hang or exception is the point; junk must also not pass for a version file.
      EXPECT_FALSE(parse_torch_version_py(text)) << seed;
      EXPECT_FALSE(parse_tensorflow_build_info(text)) << seed;
      EXPECT_FALSE(parse_onnxruntime_build_info(text)) << seed;
      EXPECT_FALSE(parse_paddle_version_py(text)) << seed;
      (void)parse_jax_version_py(text);
      (void)parse_pyvenv_cfg_version(text);
      (void)parse_pyenv_versions(text);
      (void)parse_conda_environments_txt(text);
      (void)parse_jaxlib_local_version(text);
      (void)jax_plugin_cuda_major(text);
      (void)python_version_from_conda_meta(text);
      (void)python_version_from_name(text);
      (void)normalize_tensorflow_cuda_version(text);
      (void)normalize_tensorflow_cudnn_version(text);
    }
  }
}

} // namespace
} // namespace doctor
