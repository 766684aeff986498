// SPDX-License-Identifier: MIT
// The structural loader-message parser: one case per error kind and per runtime that words it,
// with the typos and console languages of real reports.
#include <doctor/explain/loader_message.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <string>

namespace doctor::explain {
namespace {

struct Expect {
  const char* line;
  const char* library;
  const char* missing;
  LoadErrorKind kind;
  long code;
  bool windows;
};

void check(const Expect& e) {
  SCOPED_TRACE(e.line);
  const auto f = parse_load_failure(e.line);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->library, e.library);
  EXPECT_EQ(f->missing, e.missing);
  EXPECT_EQ(to_string(f->kind), to_string(e.kind));
  EXPECT_EQ(f->code, e.code);
  EXPECT_EQ(f->windows, e.windows);
}

TEST(LoadFailure, PythonOnWindowsDependencyMissing) {
  check(
      {R"(OSError: [WinError 126] The specified module could not be found. Error loading "C:\w\b\windows\conda\envs\testenv\lib\site-packages\torch\lib\cudnn_cnn_infer64_8.dll" or one of its dependencies.)",
       "cudnn_cnn_infer64_8.dll",
       "",
       LoadErrorKind::dependency_missing,
       126,
       true});
}

TEST(LoadFailure, ChineseWindowsMessages) {
  check(
      {R"(OSError: [WinError 126] 找不到指定的模块。 Error loading "D:\env\lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies.)",
       "fbgemm.dll",
       "",
       LoadErrorKind::dependency_missing,
       126,
       true});
  check(
      {R"(OSError: [WinError 1114] 动态链接库(DLL)初始化例程失败。 Error loading "D:\anaconda\envs\graphrag\lib\site-packages\torch\lib\c10.dll" or one of its dependencies.)",
       "c10.dll",
       "",
       LoadErrorKind::init_failed,
       1114,
       true});
  check(
      {R"(OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading "C:\ai\venv\lib\site-packages\torch\lib\cudnn_adv_infer64_8.dll" or one of its dependencies.)",
       "cudnn_adv_infer64_8.dll",
       "",
       LoadErrorKind::out_of_memory,
       1455,
       true});
  check(
      {R"(OSError: [WinError 5] 拒绝访问。 Error loading "C:\Python310\lib\site-packages\torch\lib\cudnn_ops_infer64_8.dll")",
       "cudnn_ops_infer64_8.dll",
       "",
       LoadErrorKind::access_denied,
       5,
       true});
  check(
      {"无法启动此程序，因为计算机中丢失 zlibwapi.dll。由于找不到 zlibwapi.dll，无法继续执行代码。",
       "zlibwapi.dll",
       "",
       LoadErrorKind::dependency_missing,
       -1,
       true});
}

TEST(LoadFailure, ProcedureAndArchitectureCodes) {
  check(
      {R"(OSError: [WinError 127] The specified procedure could not be found. Error loading "C:\venv\lib\site-packages\torch\lib\torch_cuda.dll" or one of its dependencies.)",
       "torch_cuda.dll",
       "",
       LoadErrorKind::procedure_missing,
       127,
       true});
  check(
      {R"(Could not load torch: [WinError 193] %1 is not a valid Win32 application. Error loading  "C:\Kohya\venv\lib\site-packages\torch\lib\cudnn_cnn_infer64_8.dll"  or one of its dependencies.)",
       "cudnn_cnn_infer64_8.dll",
       "",
       LoadErrorKind::wrong_architecture,
       193,
       true});
}

TEST(LoadFailure, ProgramsOwnWordings) {
  // A C++ SDK's own message, and a Chinese 127 written back in English by its reader.
  check({R"(Load mynteye_cudafeatures.dll failed: C:\sdk\bin\mynteye_cudafeatures.dll)",
         "mynteye_cudafeatures.dll",
         "",
         LoadErrorKind::unknown,
         -1,
         true});
  check(
      {"ImportError: DLL load failed while importing _C: The specified program could not be "
       "found.",
       "",
       "",
       LoadErrorKind::procedure_missing,
       -1,
       true});
}

TEST(LoadFailure, OldPythonsNameNoModule) {
  // Python 3.7 and older: a procedure missing is an extension module's; nothing else is read.
  check({"ImportError: DLL load failed: The specified procedure could not be found.",
         "",
         "",
         LoadErrorKind::procedure_missing,
         -1,
         true});
  const auto f = parse_load_failure(
      "ImportError: DLL load failed: The specified procedure could not be found.");
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->module.empty());
  EXPECT_TRUE(f->unnamed_module);
  EXPECT_FALSE(
      parse_load_failure("ImportError: DLL load failed: The specified module could not be found.")
          .has_value());
}

TEST(LoadFailure, GetLastErrorReportedAsErrno) {
  // vs-mlrt's preloader prints Windows' GetLastError() as "errno": 127 is a procedure missing.
  check(
      {"vstrt: failed to preload "
       "C:\\Users\\user\\AppData\\Roaming\\VapourSynth\\plugins64\\vsmlrt-cuda\\cublas64_"
       "11.dll, errno 127",
       "cublas64_11.dll",
       "",
       LoadErrorKind::procedure_missing,
       127,
       true});
  // On Linux an errno is not one of Windows' numbers.
  const auto f = parse_load_failure("failed to dlopen libcudnn.so.8, errno 5");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->code, -1);
}

TEST(LoadFailure, OnnxRuntimeCppAndLinux) {
  check(
      {R"(2024-08-26 21:04:38.1970389 [E:onnxruntime:Default, provider_bridge_ort.cc:1992 onnxruntime::TryGetProviderInfo_CUDA] D:\a\_work\1\s\onnxruntime\core\session\provider_bridge_ort.cc:1637 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load "C:\venv\Lib\site-packages\onnxruntime\capi\onnxruntime_providers_cuda.dll")",
       "onnxruntime_providers_cuda.dll",
       "",
       LoadErrorKind::not_found,
       126,
       true});
  check(
      {"[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so "
       "with error: libcublasLt.so.11: cannot open shared object file: No such file or directory",
       "libonnxruntime_providers_cuda.so",
       "libcublaslt.so.11",
       LoadErrorKind::dependency_missing,
       -1,
       false});
}

TEST(LoadFailure, DotNetJavaJuliaAndPaddle) {
  // .NET quotes the DLL's name, often without its suffix.
  check(
      {"Unable to load DLL 'onnxruntime'or one of its dependencies: "
       "动态链接库(DLL)初始化例程失败。(0x8007045A)",
       "onnxruntime.dll",
       "",
       LoadErrorKind::init_failed,
       1114,
       true});
  check(
      {"System.DllNotFoundException: Unable to load DLL 'cudnn64_8' or one of its dependencies: "
       "The specified module could not be found. (0x8007007E)",
       "cudnn64_8.dll",
       "",
       LoadErrorKind::not_found,
       126,
       true});
  check(
      {"Additional information: Unable to load DLL 'cudnn64_6.dll': The specified module could not "
       "be found. (Exception from HRESULT: 0x8007007E)",
       "cudnn64_6.dll",
       "",
       LoadErrorKind::not_found,
       126,
       true});
  check(
      {R"(java.lang.UnsatisfiedLinkError: C:\Users\user\.javacpp\cache\cuda\jnicudnn.dll: Can't find dependent libraries)",
       "jnicudnn.dll",
       "",
       LoadErrorKind::dependency_missing,
       -1,
       true});
  check({R"(│    error compiling cuInit: could not load library "libcuda")",
         "libcuda",
         "",
         LoadErrorKind::unknown,
         -1,
         false});
  check(
      {"RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_7.dll) that "
       "Paddle depends on is not configured correctly. (error code is 126)",
       "cudnn64_7.dll",
       "",
       LoadErrorKind::not_found,
       126,
       true});
}

TEST(LoadFailure, GlibcAndDlopen) {
  check(
      {"/sd-cli: error while loading shared libraries: libcuda.so.1: cannot open shared object "
       "file: No such file or directory",
       "libcuda.so.1",
       "",
       LoadErrorKind::not_found,
       -1,
       false});
  check({"RuntimeError: Failed to dlopen libcuda.so",
         "libcuda.so",
         "",
         LoadErrorKind::unknown,
         -1,
         false});
  check(
      {"Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared "
       "object file: No such file or directory",
       "libcudnn_cnn_infer.so.8",
       "libcuda.so",
       LoadErrorKind::dependency_missing,
       -1,
       false});
  check({"\tlibcudnn_ops.so.9 => not found",
         "libcudnn_ops.so.9",
         "",
         LoadErrorKind::not_found,
         -1,
         false});
  check(
      {"Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
       "libcudnn_ops.so}",
       "libcudnn_ops.so.9.1.0",
       "",
       LoadErrorKind::unknown,
       -1,
       false});
}

TEST(LoadFailure, UndefinedSymbolsKeepTheirCase) {
  const auto f = parse_load_failure(
      "ImportError: /usr/local/lib/python3.8/dist-packages/transformer_engine_extensions.cpython-"
      "38-x86_64-linux-gnu.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx11");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->library, "transformer_engine_extensions.cpython-38-x86_64-linux-gnu.so");
  EXPECT_EQ(f->kind, LoadErrorKind::procedure_missing);
  EXPECT_EQ(f->symbol, "_ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx11");
}

TEST(LoadFailure, InvalidImages) {
  check({"/usr/local/cuda/lib64/libcudnn.so: file not recognized: File truncated",
         "libcudnn.so",
         "",
         LoadErrorKind::invalid_image,
         -1,
         false});
  check({"OSError: /opt/conda/lib/libcudnn_cnn_infer.so.8: invalid ELF header",
         "libcudnn_cnn_infer.so.8",
         "",
         LoadErrorKind::invalid_image,
         -1,
         false});
}

TEST(LoadFailure, TyposInNames) {
  check({"ImportError: libcudart,so.10.1: cannot open shared object file",
         "libcudart.so.10.1",
         "",
         LoadErrorKind::not_found,
         -1,
         false});
  check({"OSError: libcudnn..so.8: cannot open shared object file",
         "libcudnn.so.8",
         "",
         LoadErrorKind::not_found,
         -1,
         false});
  check({"could not load libcudart so.8.0",
         "libcudart.so.8.0",
         "",
         LoadErrorKind::unknown,
         -1,
         false});
  check({"\"ibcudart.so.10.1\" not found",
         "libcudart.so.10.1",
         "",
         LoadErrorKind::not_found,
         -1,
         false});
  check({"Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!",
         "cudnn_ops_infer64_8.dll",
         "",
         LoadErrorKind::not_found,
         -1,
         true});
  check({"Error: Unable to load DLL 'cudnn64_8': The specified module could not be found.",
         "cudnn64_8.dll",
         "",
         LoadErrorKind::not_found,
         -1,
         true});
  check({"Library cublas64_12.dll is not found or cannot be loaded",
         "cublas64_12.dll",
         "",
         LoadErrorKind::not_found,
         -1,
         true});
  check({"Erro loading “xxx/Lib/site-packages/torch/lib/fbgemm.dll” or one of its dependencies.",
         "fbgemm.dll",
         "",
         LoadErrorKind::unknown,
         -1,
         true});
}

TEST(LoadFailure, TheBareWordMissing) {
  // Titles and users' own sentences say "missing" without "is" or a loader's phrase.
  check({"cudnn64_8.dll missing", "cudnn64_8.dll", "", LoadErrorKind::not_found, -1, true});
  check({"Missing cublasLt64_11.dll when running on GPU",
         "cublaslt64_11.dll",
         "",
         LoadErrorKind::not_found,
         -1,
         true});
  check({"libcudnn_cnn_infer.so.8 missing after upgrade",
         "libcudnn_cnn_infer.so.8",
         "",
         LoadErrorKind::not_found,
         -1,
         false});
  EXPECT_FALSE(parse_load_failure("Missing key(s) in state_dict: \"conv1.weight\"").has_value());
}

TEST(LoadFailure, PythonModuleOnly) {
  const auto f =
      parse_load_failure("ImportError: DLL load failed while importing _ext: 找不到指定的模块。");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->module, "_ext");
  EXPECT_EQ(f->library, "");
  EXPECT_EQ(f->kind, LoadErrorKind::not_found);
  EXPECT_TRUE(f->windows);
}

TEST(LoadFailure, LinesThatAreNotFailures) {
  for (const char* line : {
           "2023-06-11 08:01:02.345678: I tensorflow/stream_executor/platform/default/"
           "dso_loader.cc:53] Successfully opened dynamic library libcudart.so.11.0",
           "Loaded cuDNN version 8902",
           "-rw-r--r-- 1 root root 123 Jan 1 libcudnn.so.8",
           "Could not find TensorRT",
           "torch.cuda.OutOfMemoryError: CUDA out of memory.",
           "",
       }) {
    SCOPED_TRACE(line);
    EXPECT_FALSE(parse_load_failure(line).has_value());
  }
}

TEST(LoadFailure, TriggersCoverEveryAcceptedLine) {
  // Each accepted line of this file holds a trigger: the prefilter would hand it on.
  const std::string lines[] = {
      "could not load library \"libcuda\"",
      "Unable to load DLL 'cudnn64_8': The specified module could not be found.",
      "ImportError: DLL load failed while importing _ext: 找不到指定的模块。",
      "ImportError: libcudart,so.10.1: cannot open shared object file",
  };
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    ASSERT_TRUE(parse_load_failure(line).has_value());
    std::string lower;
    for (char c : line) {
      lower.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
    bool hit = false;
    for (const std::string& t : load_failure_triggers()) {
      hit = hit || lower.find(t) != std::string::npos;
    }
    EXPECT_TRUE(hit);
  }
}

TEST(LoadFailure, TriggersKeepThePrefilterStride) {
  // The sampled prefilter steps by (shortest literal - 3); the signatures' shortest is 7 bytes,
  // so a shorter trigger would make it look at more positions of every log.
  for (const std::string& t : load_failure_triggers()) {
    SCOPED_TRACE(t);
    EXPECT_GE(t.size(), 7U);
  }
}

TEST(LibraryIdentity, FromTheKnowledgeBaseSets) {
  auto kb = kb::KnowledgeBase::load_embedded();
  ASSERT_TRUE(kb.has_value());
  const auto& sets = kb->cudnn_library_sets();
  auto role = [&](const char* name) { return classify_library(name, sets).role; };
  EXPECT_EQ(role("cudnn64_8.dll"), LibraryRole::cudnn);
  EXPECT_EQ(role("libcudnn.so.9"), LibraryRole::cudnn);
  EXPECT_EQ(role("libcudnn.so"), LibraryRole::cudnn);
  EXPECT_EQ(role("cudnn_cnn_infer64_8.dll"), LibraryRole::cudnn_sublibrary);
  EXPECT_EQ(role("libcudnn_ops.so.9.1.0"), LibraryRole::cudnn_sublibrary);
  EXPECT_EQ(classify_library("cudnn_ops_infer64_8.dll", sets).cudnn_major, 8u);
  EXPECT_EQ(classify_library("libcudnn_graph.so.9", sets).cudnn_major, 9u);
  // A name without its version names a major only when one major alone ships that library.
  EXPECT_EQ(classify_library("libcudnn.so", sets).cudnn_major, 0u);
  EXPECT_EQ(classify_library("libcudnn.so.7", sets).cudnn_major, 7u);
  EXPECT_EQ(classify_library("libcudnn_ops.so", sets).cudnn_major, 9u);
  EXPECT_EQ(classify_library("libcudnn_cnn_infer.so", sets).cudnn_major, 8u);
  EXPECT_EQ(role("zlibwapi.dll"), LibraryRole::zlib);
  EXPECT_EQ(role("cudart64_110.dll"), LibraryRole::cuda_runtime);
  EXPECT_EQ(classify_library("cudart64_110.dll", sets).cuda_version, "11.0");
  EXPECT_EQ(classify_library("cudart64_90.dll", sets).cuda_version, "9.0");
  EXPECT_EQ(classify_library("cublas64_12.dll", sets).cuda_version, "12");
  EXPECT_EQ(classify_library("libcudart.so.10.1", sets).cuda_version, "10.1");
  EXPECT_EQ(classify_library("nvrtc-builtins64_121.dll", sets).cuda_version, "12.1");
  // cuFFT, cuRAND, cuSOLVER, cuSPARSE and NPP carried CUDA's major.minor up to CUDA 10.0 and
  // number their own releases since: only the old names tell the CUDA.
  EXPECT_EQ(classify_library("libcufft.so.10.0", sets).cuda_version, "10.0");
  EXPECT_EQ(classify_library("libnppial.so.9.2", sets).cuda_version, "9.2");
  EXPECT_EQ(classify_library("cufft64_100.dll", sets).cuda_version, "10.0");
  EXPECT_EQ(classify_library("curand64_80.dll", sets).cuda_version, "8.0");
  EXPECT_EQ(classify_library("libcufft.so.10", sets).cuda_version, "");
  EXPECT_EQ(classify_library("libcusolver.so.11", sets).cuda_version, "");
  EXPECT_EQ(classify_library("cufft64_10.dll", sets).cuda_version, "");
  EXPECT_EQ(classify_library("libcusparse.so.12.1.0.106", sets).cuda_version, "");
  EXPECT_EQ(classify_library("libcufft.so.10.2.1.245", sets).cuda_version, "");
  EXPECT_EQ(role("libcublaslt.so.11"), LibraryRole::cuda_library);
  EXPECT_EQ(role("nvcuda.dll"), LibraryRole::driver);
  EXPECT_EQ(role("libcuda.so.1"), LibraryRole::driver);
  EXPECT_EQ(role("libcuda"), LibraryRole::driver);
  EXPECT_EQ(role("libnvidia-ml.so.1"), LibraryRole::nvml);
  EXPECT_EQ(role("vcruntime140_1.dll"), LibraryRole::msvc_runtime);
  EXPECT_EQ(role("msvcp140.dll"), LibraryRole::msvc_runtime);
  EXPECT_EQ(role("libomp140.x86_64.dll"), LibraryRole::openmp);
  EXPECT_EQ(role("libnvinfer.so.7"), LibraryRole::tensorrt);
  EXPECT_EQ(role("fbgemm.dll"), LibraryRole::framework);
  EXPECT_EQ(role("onnxruntime_providers_cuda.dll"), LibraryRole::framework);
  EXPECT_EQ(role("_torch_sox.cpython-35m-x86_64-linux-gnu.so"), LibraryRole::python_extension);
  EXPECT_EQ(role("libfoo.so"), LibraryRole::unknown);
  // A program's own GPU build, by a word of its name.
  EXPECT_EQ(role("yolo_cpp_dll_gpu.dll"), LibraryRole::gpu_module);
  EXPECT_EQ(role("mynteye_cudafeatures.dll"), LibraryRole::gpu_module);
  EXPECT_EQ(role("libjcuda-linux-x86_64.so"), LibraryRole::gpu_module);
  EXPECT_EQ(role("gpustat.dll"), LibraryRole::unknown);
  EXPECT_EQ(role("yolo_cpp_dll.dll"), LibraryRole::unknown);
}

TEST(LoaderMessage, TheNextLineCanSayWhatWentWrong) {
  // Julia's Libdl prints the system's message on the line after the library.
  const auto first = parse_load_failure(
      "\u2502    could not load library "
      "\"C:\\Users\\u\\.julia\\artifacts\\d1e2\\bin\\cudnn_ops_infer64_8.dll\"");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->kind, LoadErrorKind::unknown);
  EXPECT_EQ(load_error_continuation("\u2502    Access is denied."), LoadErrorKind::access_denied);
  EXPECT_EQ(load_error_continuation("  The specified module could not be found."),
            LoadErrorKind::not_found);
  EXPECT_EQ(load_error_continuation("> 找不到指定的模块。"), LoadErrorKind::not_found);
  EXPECT_EQ(load_error_continuation("%1 is not a valid Win32 application."),
            LoadErrorKind::wrong_architecture);
  // Not a bare message: a load failure of its own, a long line, or words that name no kind.
  EXPECT_FALSE(load_error_continuation("OSError: [WinError 5] Access is denied. Error loading "
                                       "\"C:\\torch\\lib\\c10.dll\"")
                   .has_value());
  EXPECT_FALSE(load_error_continuation(std::string(200, 'x') + " access is denied").has_value());
  EXPECT_FALSE(load_error_continuation("\u2502    Stacktrace:").has_value());
  EXPECT_FALSE(load_error_continuation("").has_value());
}

TEST(LibraryIdentity, NamesRoundTrip) {
  for (auto kind : {LoadErrorKind::not_found, LoadErrorKind::invalid_image}) {
    EXPECT_EQ(load_error_kind(to_string(kind)), kind);
  }
  EXPECT_EQ(library_role(to_string(LibraryRole::cudnn_sublibrary)), LibraryRole::cudnn_sublibrary);
  EXPECT_FALSE(library_role("nonsense").has_value());
}

} // namespace
} // namespace doctor::explain
