// SPDX-License-Identifier: MIT
#include "support/fake_win_fs.hpp"

#include <doctor/loader/windows_frameworks.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

namespace doctor {
namespace {

using loader::FoundVia;
using loader::LibraryRole;

using test::FakeWinFs;

const std::string k_sp = "C:\\venv\\Lib\\site-packages";
const std::string k_torch_lib = k_sp + "\\torch\\lib";
const std::string k_cuda_bin = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin";

const kb::KnowledgeBase& knowledge() {
  static const kb::KnowledgeBase kb = *kb::KnowledgeBase::load_embedded();
  return kb;
}

loader::WindowsPythonProcess process(std::string path = "C:\\Windows\\System32;C:\\Windows") {
  loader::WindowsPythonProcess p;
  p.exec_prefix = "C:\\venv";
  p.base_exec_prefix = "C:\\Python310";
  p.site_packages = k_sp;
  p.python_minor = 10;
  p.loader.windows_dir = "C:\\Windows";
  p.loader.application_dir = "C:\\Python310";
  p.loader.current_dir = "C:\\work";
  p.loader.path = std::move(path);
  p.loader.known_dlls = {"kernel32.dll"};
  return p;
}

facts::Framework framework(std::string name,
                           const std::string& version,
                           const std::string& cuda,
                           const std::string& cudnn) {
  facts::Framework f;
  f.name = name;
  f.location = k_sp + "\\" + (name == "tensorflow" ? "tensorflow" : name);
  f.version = facts::Fact<std::string>::known(version, "test");
  f.cuda_version = facts::Fact<std::string>::known(cuda, "test");
  f.cudnn_version = facts::Fact<std::string>::known(cudnn, "test");
  return f;
}

// The cuDNN 8 set with the import tables the PE reader found in the 8.9.4.19 wheel.
void cudnn8(FakeWinFs& fs, const std::string& dir) {
  fs.dll(dir + "\\cudnn64_8.dll");
  fs.dll(dir + "\\cudnn_ops_infer64_8.dll");
  fs.dll(dir + "\\cudnn_ops_train64_8.dll", {"KERNEL32.dll", "cudnn_ops_infer64_8.dll"});
  fs.dll(dir + "\\cudnn_cnn_infer64_8.dll", {"KERNEL32.dll", "cudnn_ops_infer64_8.dll"});
  fs.dll(dir + "\\cudnn_adv_infer64_8.dll", {"KERNEL32.dll", "cudnn_ops_infer64_8.dll"});
  fs.dll(dir + "\\cudnn_cnn_train64_8.dll",
         {"cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll", "cudnn_cnn_infer64_8.dll"});
  fs.dll(dir + "\\cudnn_adv_train64_8.dll",
         {"cudnn_ops_infer64_8.dll", "cudnn_ops_train64_8.dll", "cudnn_adv_infer64_8.dll"});
}

const std::vector<std::string> k_cudnn8_names{"cudnn64_8.dll",
                                              "cudnn_ops_infer64_8.dll",
                                              "cudnn_ops_train64_8.dll",
                                              "cudnn_cnn_infer64_8.dll",
                                              "cudnn_cnn_train64_8.dll",
                                              "cudnn_adv_infer64_8.dll",
                                              "cudnn_adv_train64_8.dll"};

// A torch 2.0.1+cu118 wheel layout: everything GPU in torch\lib.
loader::WindowsPythonProcess torch_install(FakeWinFs& fs, bool with_zlib) {
  auto p = process();
  cudnn8(fs, k_torch_lib);
  std::vector<std::string> names = k_cudnn8_names;
  for (const char* n : {"cudart64_110.dll",
                        "cublas64_11.dll",
                        "cublasLt64_11.dll",
                        "nvrtc64_112_0.dll",
                        "c10.dll"}) {
    fs.dll(k_torch_lib + "\\" + n);
    names.emplace_back(n);
  }
  fs.dll(k_torch_lib + "\\torch_cuda.dll",
         {"KERNEL32.dll", "c10.dll", "cudart64_110.dll", "cublas64_11.dll", "cudnn64_8.dll"});
  names.emplace_back("torch_cuda.dll");
  if (with_zlib) {
    fs.dll(k_torch_lib + "\\zlibwapi.dll");
    names.emplace_back("zlibwapi.dll");
  }
  p.listings[k_torch_lib] = names;
  fs.dll("C:\\Windows\\System32\\nvcuda.dll");
  return p;
}

std::vector<const loader::WindowsLoadStep*> run_time_steps(const loader::WindowsLoadContext& ctx) {
  std::vector<const loader::WindowsLoadStep*> out;
  for (const auto& s : ctx.steps) {
    if (s.reason.rfind("opened at run time by", 0) == 0) {
      out.push_back(&s);
    }
  }
  return out;
}

const loader::WindowsLoadStep* step_for(const loader::WindowsLoadContext& ctx,
                                        const std::string& dll,
                                        const std::string& reason_prefix = "") {
  for (const auto& s : ctx.steps) {
    if (loader::windows_path_key(loader::windows_file_name(s.dll)) == loader::windows_path_key(dll)
        && s.reason.rfind(reason_prefix, 0) == 0) {
      return &s;
    }
  }
  return nullptr;
}

TEST(windows_frameworks, roles_and_name_patterns) {
  EXPECT_EQ(loader::windows_role_of("CUDNN64_9.dll"), LibraryRole::cudnn_dispatcher);
  EXPECT_EQ(loader::windows_role_of("C:\\x\\cudnn_ops64_9.dll"), LibraryRole::cudnn_sublibrary);
  EXPECT_EQ(loader::windows_role_of("cublasLt64_12.dll"), LibraryRole::cuda_library);
  EXPECT_EQ(loader::windows_role_of("cudart64_110.dll"), LibraryRole::cuda_runtime);
  EXPECT_EQ(loader::windows_role_of("nvcuda.dll"), LibraryRole::driver);
  EXPECT_EQ(loader::windows_role_of("zlibwapi.dll"), LibraryRole::zlib);
  EXPECT_EQ(loader::windows_role_of("KERNEL32.dll"), LibraryRole::other);
  const Version cu118 = *Version::parse("11.8");
  EXPECT_EQ(loader::expand_dll_name("nvrtc64_{nvrtc_tag}_0.dll", cu118, 8), "nvrtc64_112_0.dll");
  EXPECT_EQ(loader::expand_dll_name("nvrtc64_{nvrtc_tag}_0.dll", *Version::parse("12.4"), 9),
            "nvrtc64_120_0.dll");
  EXPECT_EQ(loader::expand_dll_name("cublas64_{cuda_major}{cuda_minor}.dll", cu118, 8),
            "cublas64_118.dll");
  EXPECT_EQ(loader::expand_dll_name("cudnn64_{cudnn_major}.dll", Version{}, 8), "cudnn64_8.dll");
  EXPECT_EQ(loader::expand_dll_name("cublas64_{cuda_major}.dll", Version{}, 8), "");
}

// torch preloads every DLL of torch\lib (0x1100), so when cuDNN asks for its sub-DLLs, cuBLAS,
// NVRTC and zlibwapi by name at run time, each is already loaded; only the driver comes from
// System32.
TEST(windows_frameworks, torch_with_bundled_cudnn_finds_everything_already_loaded) {
  FakeWinFs fs;
  const auto p = torch_install(fs, true);
  const auto ctx = loader::simulate_windows_framework(
      framework("torch", "2.0.1+cu118", "11.8", "8.7.0"), p, knowledge(), fs);
  EXPECT_FALSE(ctx.import_failed);
  for (const auto& s : ctx.steps) {
    EXPECT_EQ(s.error, 0U) << s.dll << ": " << s.reason;
  }
  const auto rt = run_time_steps(ctx);
  ASSERT_GE(rt.size(), 10U); // six sub-DLLs, cuBLAS, cuBLASLt, NVRTC, nvcuda, zlibwapi
  std::set<std::string> asked;
  for (const auto* s : rt) {
    asked.insert(s->dll);
    ASSERT_TRUE(s->resolution.chosen) << s->dll;
    if (s->dll == "nvcuda.dll") {
      EXPECT_EQ(s->resolution.chosen->via, FoundVia::system32);
    } else {
      EXPECT_EQ(s->resolution.chosen->via, FoundVia::loaded_module) << s->dll;
      EXPECT_EQ(loader::windows_parent(s->resolution.chosen->path), k_torch_lib) << s->dll;
    }
  }
  for (const char* n : {"zlibwapi.dll",
                        "cudnn_ops_infer64_8.dll",
                        "cudnn_adv_train64_8.dll",
                        "cublas64_11.dll",
                        "cublasLt64_11.dll",
                        "nvrtc64_112_0.dll"}) {
    EXPECT_EQ(asked.count(n), 1U) << n << " was not asked for";
  }
  // An import inside the preload of cudnn_adv_infer64_8.dll (before cudnn_ops_infer64_8.dll in
  // name order) is found through the DLL load directory.
  const auto* imp = step_for(ctx, "cudnn_ops_infer64_8.dll", "import of");
  ASSERT_NE(imp, nullptr);
  EXPECT_EQ(imp->resolution.chosen->via, FoundVia::dll_load_dir);
}

// Without zlibwapi.dll in torch\lib, cuDNN's run-time LoadLibrary("zlibwapi.dll") uses the
// process default order (python.exe never calls SetDefaultDllDirectories), so PATH is searched
// and a 32-bit copy there is taken first: error 193 (research E10), although a 64-bit copy comes
// later.
TEST(windows_frameworks, torch_without_zlibwapi_takes_a_32_bit_copy_on_path_and_fails_193) {
  FakeWinFs fs;
  auto p = torch_install(fs, false);
  p.loader.path = "C:\\Windows\\System32;C:\\old\\zlib32;C:\\good";
  fs.dll("C:\\old\\zlib32\\zlibwapi.dll", {"KERNEL32.dll"}, 32);
  fs.dll("C:\\good\\zlibwapi.dll");
  const auto ctx = loader::simulate_windows_framework(
      framework("torch", "2.0.1+cu118", "11.8", "8.9.2"), p, knowledge(), fs);
  EXPECT_FALSE(ctx.import_failed);
  const auto* z = step_for(ctx, "zlibwapi.dll", "opened at run time by");
  ASSERT_NE(z, nullptr);
  ASSERT_TRUE(z->resolution.chosen);
  EXPECT_EQ(z->resolution.chosen->path, "C:\\old\\zlib32\\zlibwapi.dll");
  EXPECT_EQ(z->resolution.chosen->via, FoundVia::path);
  EXPECT_EQ(z->resolution.fatal_error, loader::k_error_bad_exe_format);
  EXPECT_EQ(z->error, 193U);
  EXPECT_EQ(z->resolution.requested_by, k_torch_lib + "\\cudnn_ops_infer64_8.dll");
  ASSERT_EQ(z->resolution.shadowed.size(), 1U);
  EXPECT_EQ(z->resolution.shadowed[0].path, "C:\\good\\zlibwapi.dll");
}

// With the cuDNN version unknown, loads that only some cuDNN 8 releases make (zlibwapi: 8.3+)
// are still simulated, and marked as such.
TEST(windows_frameworks, unknown_cudnn_version_keeps_version_bound_loads_and_marks_them) {
  FakeWinFs fs;
  const auto p = torch_install(fs, true);
  auto fw = framework("torch", "2.0.1+cu118", "11.8", "");
  fw.cudnn_version = facts::Fact<std::string>::unknown("no version header");
  const auto ctx = loader::simulate_windows_framework(fw, p, knowledge(), fs);
  const auto* z = step_for(ctx, "zlibwapi.dll", "opened at run time by");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->error, 0U);
  ASSERT_FALSE(z->notes.empty());
  EXPECT_NE(z->notes.back().find("cuDNN 8.3-8.9"), std::string::npos);
  const auto* ops = step_for(ctx, "cudnn_ops_infer64_8.dll", "opened at run time by");
  ASSERT_NE(ops, nullptr);
  EXPECT_TRUE(ops->notes.empty()) << "every cuDNN 8 opens its sub-DLLs";
  bool noted = false;
  for (const auto& n : ctx.notes) {
    noted = noted || n.find("exact version") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

// torch adds CUDA_PATH_V<major>_<minor>\bin only when no cudart64*.dll is in its directories, and
// retries a DLL whose 0x1100 load fails with 126 with LoadLibraryW after putting them on PATH.
TEST(windows_frameworks, torch_plan_adds_cuda_path_and_retries_with_path) {
  FakeWinFs fs;
  auto p = process("C:\\Windows\\System32;C:\\deps");
  p.environment["CUDA_PATH_V11_8"] = "D:\\CUDA\\v11.8";
  fs.dir("D:\\CUDA\\v11.8\\bin");
  fs.dir("C:\\venv\\Library\\bin");
  fs.dll(k_torch_lib + "\\caffe2_helper.dll", {"KERNEL32.dll", "cufft64_10.dll"});
  fs.dll("C:\\deps\\cufft64_10.dll");
  p.listings[k_torch_lib] = {"caffe2_helper.dll"};
  const auto fw = framework("torch", "1.13.1+cu118", "11.8", "8.7.0");
  const auto plan = loader::plan_windows_framework(fw, p, knowledge(), fs);
  std::vector<std::string> dirs;
  for (const auto& c : plan.calls) {
    if (c.kind == loader::WindowsLoadCall::Kind::add_dll_directory) {
      dirs.push_back(c.target);
    }
  }
  EXPECT_EQ(
      dirs,
      (std::vector<std::string>{k_torch_lib, "C:\\venv\\Library\\bin", "D:\\CUDA\\v11.8\\bin"}));
  ASSERT_EQ(plan.calls.back().flags, 0x1100U);
  EXPECT_EQ(plan.calls.back().rule, "torch.preload");

  const auto ctx = loader::simulate_windows_framework(fw, p, knowledge(), fs);
  EXPECT_FALSE(ctx.import_failed);
  ASSERT_GE(ctx.steps.size(), 4U);
  EXPECT_EQ(ctx.steps[0].error, 126U) << "0x1100 does not search PATH for cufft64_10.dll";
  const auto* retried = step_for(ctx, "caffe2_helper.dll", "retried by torch");
  ASSERT_NE(retried, nullptr);
  EXPECT_EQ(retried->error, 0U);
  EXPECT_EQ(retried->flags, 0U);
  const auto* cufft = &ctx.steps.back();
  ASSERT_TRUE(cufft->resolution.chosen);
  EXPECT_EQ(cufft->resolution.chosen->path, "C:\\deps\\cufft64_10.dll");
}

TEST(windows_frameworks, torch_preload_error_other_than_126_makes_the_import_fail) {
  FakeWinFs fs;
  auto p = process();
  fs.dll(k_torch_lib + "\\c10.dll", {"KERNEL32.dll", "zlibwapi.dll"});
  fs.dll(k_torch_lib + "\\zlibwapi.dll", {"KERNEL32.dll"}, 32);
  p.listings[k_torch_lib] = {"c10.dll", "zlibwapi.dll"};
  const auto ctx = loader::simulate_windows_framework(
      framework("torch", "2.1.0+cu118", "11.8", "8.7.0"), p, knowledge(), fs);
  EXPECT_TRUE(ctx.import_failed);
  ASSERT_FALSE(ctx.steps.empty());
  EXPECT_EQ(ctx.steps.front().error, 193U);
  EXPECT_TRUE(loader::simulate_windows_framework(
                  framework("torch", "1.4.0", "10.1", "7.6.3"), p, knowledge(), fs)
                  .steps.empty());
}

// TensorFlow 2.10 loads bare names with LOAD_WITH_ALTERED_SEARCH_PATH, which without a path is
// the standard order: cuDNN in C:\tools\cuda\bin on PATH is found there, and so are the
// sub-DLLs cudnn64_8.dll opens at run time. cuDNN 8.1 asks for no zlibwapi.
TEST(windows_frameworks, tensorflow_2_10_finds_cudnn_on_path) {
  FakeWinFs fs;
  auto p = process("C:\\Windows\\System32;" + k_cuda_bin + ";C:\\tools\\cuda\\bin");
  cudnn8(fs, "C:\\tools\\cuda\\bin");
  for (const char* n : {"cudart64_110.dll",
                        "cublas64_11.dll",
                        "cublasLt64_11.dll",
                        "cufft64_10.dll",
                        "curand64_10.dll",
                        "cusolver64_11.dll",
                        "cusparse64_11.dll",
                        "nvrtc64_112_0.dll"}) {
    fs.dll(k_cuda_bin + "\\" + n);
  }
  fs.dll("C:\\Windows\\System32\\nvcuda.dll");
  const auto ctx = loader::simulate_windows_framework(
      framework("tensorflow", "2.10.1", "11.2", "8.1.0"), p, knowledge(), fs);
  const auto* cudnn = step_for(ctx, "cudnn64_8.dll");
  ASSERT_NE(cudnn, nullptr);
  ASSERT_TRUE(cudnn->resolution.chosen);
  EXPECT_EQ(cudnn->resolution.chosen->path, "C:\\tools\\cuda\\bin\\cudnn64_8.dll");
  EXPECT_EQ(cudnn->resolution.chosen->via, FoundVia::path);
  EXPECT_EQ(cudnn->flags, loader::k_load_with_altered_search_path);
  for (const auto& s : ctx.steps) {
    EXPECT_EQ(s.error, 0U) << s.dll;
  }
  const auto* ops = step_for(ctx, "cudnn_ops_infer64_8.dll", "opened at run time by");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->resolution.chosen->via, FoundVia::path);
  EXPECT_EQ(step_for(ctx, "zlibwapi.dll"), nullptr) << "cuDNN 8.1 predates zlibwapi";
  const auto* cublas = step_for(ctx, "cublas64_11.dll", "opened at run time by");
  ASSERT_NE(cublas, nullptr);
  EXPECT_EQ(cublas->resolution.chosen->via, FoundVia::loaded_module) << "TF loaded it first";
}

// A cudnn64_8.dll a user copied into System32 is found there before PATH; its sub-DLLs, not
// copied, are then looked for everywhere in vain (research E11).
TEST(windows_frameworks, tensorflow_with_cudnn_copied_into_system32_is_flagged) {
  FakeWinFs fs;
  auto p = process("C:\\Windows\\System32;" + k_cuda_bin);
  fs.dll("C:\\Windows\\System32\\cudnn64_8.dll");
  fs.dll(k_cuda_bin + "\\cudart64_110.dll");
  const auto ctx = loader::simulate_windows_framework(
      framework("tensorflow", "2.10.0", "11.2", "8.1.0"), p, knowledge(), fs);
  const auto* cudnn = step_for(ctx, "cudnn64_8.dll");
  ASSERT_NE(cudnn, nullptr);
  ASSERT_TRUE(cudnn->resolution.chosen);
  EXPECT_EQ(cudnn->resolution.chosen->via, FoundVia::system32);
  ASSERT_FALSE(cudnn->notes.empty());
  EXPECT_NE(cudnn->notes[0].find("copied there by hand"), std::string::npos);
  const auto* ops = step_for(ctx, "cudnn_ops_infer64_8.dll", "opened at run time by");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->error, 126U);
  EXPECT_GE(ops->resolution.steps.size(), 6U) << "every directory of the order is listed";

  // With a full cuDNN on PATH as well, the System32 copy shadows it and the sub-DLLs come from
  // another directory than the dispatcher.
  cudnn8(fs, "C:\\tools\\cuda\\bin");
  p.loader.path += ";C:\\tools\\cuda\\bin";
  const auto mixed = loader::simulate_windows_framework(
      framework("tensorflow", "2.10.0", "11.2", "8.1.0"), p, knowledge(), fs);
  const auto* d = step_for(mixed, "cudnn64_8.dll");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->resolution.shadowed.size(), 1U);
  EXPECT_EQ(d->resolution.shadowed[0].path, "C:\\tools\\cuda\\bin\\cudnn64_8.dll");
  EXPECT_EQ(d->notes.size(), 2U);
  const auto* sub = step_for(mixed, "cudnn_ops_infer64_8.dll", "opened at run time by");
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->resolution.chosen->path, "C:\\tools\\cuda\\bin\\cudnn_ops_infer64_8.dll");
}

TEST(windows_frameworks, tensorflow_2_11_loads_nothing_on_windows) {
  FakeWinFs fs;
  const auto ctx = loader::simulate_windows_framework(
      framework("tensorflow", "2.11.0", "11.2", "8.1.0"), process(), knowledge(), fs);
  EXPECT_TRUE(ctx.steps.empty());
  ASSERT_EQ(ctx.notes.size(), 1U);
  EXPECT_NE(ctx.notes[0].find("no native Windows GPU"), std::string::npos);
}

// A Python 3.8+ extension module's dependency only on PATH is not found: the .pyd is loaded with
// DEFAULT_DIRS | DLL_LOAD_DIR, and every directory considered is listed, PATH as "not searched".
TEST(windows_frameworks, python_extension_dependency_only_on_path_is_not_found) {
  FakeWinFs fs;
  const std::string pyd = k_sp + "\\myext\\_ext.cp310-win_amd64.pyd";
  fs.dll(pyd, {"KERNEL32.dll", "python310.dll", "cudnn64_8.dll"});
  fs.dll("C:\\tools\\cuda\\bin\\cudnn64_8.dll");
  auto p = process("C:\\Windows\\System32;C:\\tools\\cuda\\bin");
  p.loader.user_dirs = {k_sp + "\\other\\libs"};
  const auto ctx = loader::simulate_python_extension(pyd, p, knowledge(), fs);
  ASSERT_EQ(ctx.steps.size(), 2U);
  EXPECT_EQ(ctx.steps[0].flags, 0x1100U);
  EXPECT_EQ(ctx.steps[0].error, 126U);
  const auto& dep = ctx.steps[1];
  EXPECT_EQ(dep.dll, "cudnn64_8.dll");
  EXPECT_EQ(dep.error, 126U);
  EXPECT_FALSE(dep.resolution.chosen);
  std::vector<std::string> considered;
  for (const auto& s : dep.resolution.steps) {
    considered.push_back(s.path);
  }
  EXPECT_EQ(considered,
            (std::vector<std::string>{
                k_sp + "\\myext\\cudnn64_8.dll",
                "C:\\Python310\\cudnn64_8.dll",
                k_sp + "\\other\\libs\\cudnn64_8.dll",
                "C:\\Windows\\System32\\cudnn64_8.dll",
                "C:\\work\\cudnn64_8.dll",
                "C:\\Windows\\System32\\cudnn64_8.dll",
                "C:\\tools\\cuda\\bin\\cudnn64_8.dll",
            }));
  EXPECT_EQ(dep.resolution.steps.back().outcome.rfind("the file is here, but not searched", 0), 0U);
}

// Paddle puts its own directories on PATH and tries each name in FLAGS_cudnn_dir, then by name
// (the standard order), then in the CUDA directory it was built with.
TEST(windows_frameworks, paddle_tries_flags_dir_then_name_then_cuda_dir) {
  FakeWinFs fs;
  auto p = process();
  p.environment["flags_cudnn_dir"] = "D:\\cudnn\\bin";
  fs.dir(k_sp + "\\paddle\\base");
  cudnn8(fs, "D:\\cudnn\\bin");
  const auto fw = framework("paddle", "2.6.1", "11.8", "8.6.0");
  const auto ctx = loader::simulate_windows_framework(fw, p, knowledge(), fs);
  const auto* cudnn = step_for(ctx, "cudnn64_8.dll");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_EQ(cudnn->dll, "D:\\cudnn\\bin\\cudnn64_8.dll");
  EXPECT_EQ(cudnn->error, 0U);
  int cudnn_tries = 0;
  for (const auto& s : ctx.steps) {
    cudnn_tries += loader::windows_file_name(s.dll) == "cudnn64_8.dll";
  }
  EXPECT_EQ(cudnn_tries, 1) << "the first that loads ends the alternatives";
  // cuBLAS is nowhere: cublas64_118.dll and cublas64_11.dll, each by name and in the CUDA dir.
  int cublas_tries = 0;
  for (const auto& s : ctx.steps) {
    if (s.rule == "paddle.dynload" && s.dll.find("cublas64_") != std::string::npos) {
      ++cublas_tries;
      EXPECT_EQ(s.error, 126U);
    }
  }
  EXPECT_EQ(cublas_tries, 4);
  // The sub-DLLs cuDNN opens by name are not in Paddle's directories nor on PATH.
  const auto* ops = step_for(ctx, "cudnn_ops_infer64_8.dll", "opened at run time by");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->error, 126U);
  bool paddle_dir_on_path = false;
  for (const auto& s : ops->resolution.steps) {
    paddle_dir_on_path =
        paddle_dir_on_path || s.path == k_sp + "\\paddle\\libs\\cudnn_ops_infer64_8.dll";
  }
  EXPECT_TRUE(paddle_dir_on_path);
}

// ONNX Runtime loads its CUDA provider by full path with LOAD_WITH_ALTERED_SEARCH_PATH: the
// provider's imports are searched from onnxruntime\capi, then the standard directories and PATH.
TEST(windows_frameworks, onnxruntime_provider_imports_use_the_altered_order) {
  FakeWinFs fs;
  const std::string capi = k_sp + "\\onnxruntime\\capi";
  const std::string nv = k_sp + "\\nvidia\\cudnn\\bin";
  fs.dll(capi + "\\onnxruntime_providers_shared.dll");
  fs.dll(
      capi + "\\onnxruntime_providers_cuda.dll",
      {"KERNEL32.dll", "onnxruntime_providers_shared.dll", "cudnn64_9.dll", "cublasLt64_12.dll"});
  fs.dll(capi + "\\cublasLt64_12.dll");
  fs.dll(nv + "\\cudnn64_9.dll");
  auto p = process("C:\\Windows\\System32;" + nv);
  const auto ctx = loader::simulate_windows_framework(
      framework("onnxruntime", "1.20.1", "12.4", "9.5.1"), p, knowledge(), fs);
  const auto* lt = step_for(ctx, "cublasLt64_12.dll", "import of");
  ASSERT_NE(lt, nullptr);
  EXPECT_EQ(lt->resolution.chosen->via, FoundVia::dll_load_dir);
  const auto* cudnn = step_for(ctx, "cudnn64_9.dll", "import of");
  ASSERT_NE(cudnn, nullptr);
  ASSERT_TRUE(cudnn->resolution.chosen);
  EXPECT_EQ(cudnn->resolution.chosen->via, FoundVia::path);
  // cuDNN 9's sub-DLLs are missing next to it: the run-time loads fail.
  const auto* graph = step_for(ctx, "cudnn_graph64_9.dll", "opened at run time by");
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->error, 126U);
  EXPECT_EQ(step_for(ctx, "zlibwapi.dll"), nullptr) << "cuDNN 9.5 has zlib built in";
}

// What runs is the cuDNN that loads: TensorFlow 2.10 was built with cuDNN 8.1 (no zlibwapi), but
// the cudnn_ops_infer64_8.dll it gets from PATH says 8.9.4.19 in its version resource, so it asks
// for zlibwapi.dll. Without version resources the framework's cuDNN version decides.
TEST(windows_frameworks, run_time_loads_follow_the_loaded_cudnn_version_resource) {
  for (const bool with_resource : {true, false}) {
    FakeWinFs fs;
    cudnn8(fs, "C:\\cuda\\bin");
    for (const std::string& n : k_cudnn8_names) {
      if (with_resource) {
        fs.dll("C:\\cuda\\bin\\" + n).file_version = "8.9.4.19";
      }
    }
    fs.dll("C:\\Windows\\System32\\nvcuda.dll");
    const auto ctx =
        loader::simulate_windows_framework(framework("tensorflow", "2.10.0", "11.2", "8.1.0"),
                                           process("C:\\Windows\\System32;C:\\cuda\\bin"),
                                           knowledge(),
                                           fs);
    const auto* z = step_for(ctx, "zlibwapi.dll", "opened at run time by");
    if (!with_resource) {
      EXPECT_EQ(z, nullptr);
      continue;
    }
    ASSERT_NE(z, nullptr);
    EXPECT_EQ(z->error, 126U);
    EXPECT_EQ(z->resolution.requested_by, "C:\\cuda\\bin\\cudnn_ops_infer64_8.dll");
    EXPECT_TRUE(z->notes.empty()) << "the version is known, not guessed";
  }
}

// A missing Visual C++ runtime import fails the load like a missing GPU DLL (126); KERNEL32 is
// not followed.
TEST(windows_frameworks, missing_vc_runtime_import_fails_the_load) {
  FakeWinFs fs;
  const std::string pyd = k_sp + "\\myext\\_ext.pyd";
  fs.dll(pyd, {"KERNEL32.dll", "cudnn64_8.dll"});
  fs.dll("C:\\cudnn\\bin\\cudnn64_8.dll", {"KERNEL32.dll", "MSVCP140.dll", "VCRUNTIME140.dll"});
  fs.dll("C:\\Python310\\vcruntime140.dll");
  auto p = process();
  p.loader.user_dirs = {"C:\\cudnn\\bin"};
  auto ctx = loader::simulate_python_extension(pyd, p, knowledge(), fs);
  ASSERT_EQ(ctx.steps.size(), 3U);
  EXPECT_EQ(ctx.steps[0].error, 126U);
  EXPECT_EQ(ctx.steps[1].dll, "cudnn64_8.dll");
  EXPECT_EQ(ctx.steps[1].error, 126U);
  EXPECT_EQ(ctx.steps[2].dll, "MSVCP140.dll");
  EXPECT_FALSE(ctx.steps[2].resolution.chosen);
  EXPECT_TRUE(ctx.loaded.empty()) << "a failed load leaves nothing loaded";

  fs.dll("C:\\Windows\\System32\\msvcp140.dll", {"KERNEL32.dll", "VCRUNTIME140.dll"});
  ctx = loader::simulate_python_extension(pyd, p, knowledge(), fs);
  for (const auto& s : ctx.steps) {
    EXPECT_EQ(s.error, 0U) << s.dll;
    EXPECT_NE(s.dll, "KERNEL32.dll");
  }
  const auto* vc = step_for(ctx, "VCRUNTIME140.dll", "import of C:\\cudnn");
  ASSERT_NE(vc, nullptr);
  EXPECT_EQ(vc->resolution.chosen->path, "C:\\Python310\\VCRUNTIME140.dll");
  EXPECT_EQ(ctx.loaded.size(), 4U); // the .pyd, cuDNN, msvcp140, vcruntime140
}

// A cuDNN sub-library from another release than the dispatcher is marked.
TEST(windows_frameworks, cudnn_sub_library_of_another_release_is_marked) {
  FakeWinFs fs;
  cudnn8(fs, "C:\\cuda\\bin");
  for (const std::string& n : k_cudnn8_names) {
    fs.dll("C:\\cuda\\bin\\" + n).file_version = "8.9.4.19";
  }
  fs.dll("C:\\cuda\\bin\\zlibwapi.dll");
  fs.dll("C:\\old\\cudnn_ops_infer64_8.dll").file_version = "8.1.0.77";
  fs.dll("C:\\Windows\\System32\\nvcuda.dll");
  const auto ctx =
      loader::simulate_windows_framework(framework("tensorflow", "2.10.0", "11.2", "8.1.0"),
                                         process("C:\\Windows\\System32;C:\\old;C:\\cuda\\bin"),
                                         knowledge(),
                                         fs);
  const auto* ops = step_for(ctx, "cudnn_ops_infer64_8.dll", "opened at run time by");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->resolution.chosen->path, "C:\\old\\cudnn_ops_infer64_8.dll");
  bool marked = false;
  for (const auto& n : ops->notes) {
    marked = marked
             || n.find(
                    "is cuDNN 8.1.0.77, but C:\\cuda\\bin\\cudnn64_8.dll is cuDNN "
                    "8.9.4.19")
                    != std::string::npos;
  }
  EXPECT_TRUE(marked);
  const auto* train = step_for(ctx, "cudnn_ops_train64_8.dll", "opened at run time by");
  ASSERT_NE(train, nullptr);
  for (const auto& n : train->notes) {
    EXPECT_EQ(n.find("two releases"), std::string::npos) << "same release as the dispatcher";
  }
}

} // namespace
} // namespace doctor
