// SPDX-License-Identifier: MIT
// The CUDA and cuDNN versions a report names (explain/versions.hpp), and the refinement that
// turns a versioned library failure plus another release named in the report into a version
// mismatch, with the real knowledge base.
#include "support/builtin_kb.hpp"

#include <doctor/explain/analysis.hpp>
#include <doctor/explain/loader_message.hpp>
#include <doctor/explain/matcher.hpp>
#include <doctor/explain/result.hpp>
#include <doctor/explain/scan.hpp>
#include <doctor/explain/versions.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace doctor::explain {
namespace {

// "cuda 12.1" for each mention of `line`.
std::vector<std::string> mentions(std::string_view line) {
  std::vector<std::string> out;
  for (const VersionMention& m : find_version_mentions(line)) {
    out.push_back(std::string(m.component == VersionComponent::cuda ? "cuda " : "cudnn ")
                  + m.version);
  }
  return out;
}

using V = std::vector<std::string>;

TEST(VersionMentions, CudaInFreeText) {
  EXPECT_EQ(mentions("os:ubuntu 16.04 LTS,cuda:8.0"), V{"cuda 8.0"});
  EXPECT_EQ(mentions("indeed i have installed cuda 10.1"), V{"cuda 10.1"});
  EXPECT_EQ(mentions("我的系统ubuntu20.04+nvidia530.30+cuda12.1+cudnn12.X"), V{"cuda 12.1"});
  EXPECT_EQ(mentions("CUDA：11.3"), V{"cuda 11.3"});
  EXPECT_EQ(mentions("modelscope:ubuntu20.04-cuda11.8.0-py38-torch2.0.1"), V{"cuda 11.8"});
  EXPECT_EQ(mentions("my system has CUDA version 11.8, cuDNN 8"), (V{"cuda 11.8", "cudnn 8"}));
  EXPECT_EQ(mentions("CUDA 12 / cuDNN 9"), (V{"cuda 12", "cudnn 9"}));
  EXPECT_EQ(mentions("I installed CUDA 9 with cuDNN 7"), (V{"cuda 9", "cudnn 7"}));
  EXPECT_EQ(mentions("having CUDA9?"), V{"cuda 9"});
  EXPECT_EQ(mentions("| NVIDIA-SMI 470.161.03   Driver Version: 470.161.03   CUDA Version: 11.4 |"),
            V{"cuda 11.4"});
  EXPECT_EQ(mentions("Cuda compilation tools, release 11.8, V11.8.89"), V{"cuda 11.8"});
  EXPECT_EQ(mentions("CUDA used to build PyTorch: 12.1"), V{"cuda 12.1"});
  EXPECT_EQ(mentions("CUDA runtime version: 12.1.105"), V{"cuda 12.1"});
  // An issue form's one field for both: the first is CUDA's, the second cuDNN's.
  EXPECT_EQ(mentions("- CUDA/cuDNN version: 10.2, 8.0.2"), (V{"cuda 10.2", "cudnn 8.0.2"}));
  EXPECT_EQ(mentions("CUDA/cuDNN version: 10.1 / 7.6.5"), (V{"cuda 10.1", "cudnn 7.6.5"}));
  EXPECT_EQ(mentions("- **CUDA/cuDNN version**: 11.2 and 8.1"), (V{"cuda 11.2", "cudnn 8.1"}));
  EXPECT_EQ(mentions("CUDA/cuDNN version: 11.2/8.1"), (V{"cuda 11.2", "cudnn 8.1"}));
  EXPECT_EQ(mentions("CUDA/cuDNN version: 10.1"), V{"cuda 10.1"});
  EXPECT_TRUE(mentions("CUDA/cuDNN version: N/A").empty());
}

TEST(VersionMentions, CudaInPathsTagsAndLibraryNames) {
  EXPECT_EQ(mentions(R"(at C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v10.1\bin)"),
            V{"cuda 10.1"});
  EXPECT_EQ(mentions("export PATH=/usr/local/cuda-12.1/bin:$PATH"), V{"cuda 12.1"});
  EXPECT_EQ(mentions("torch==2.0.1+cu118"), V{"cuda 11.8"});
  EXPECT_EQ(mentions("pip install mxnet-cu112"), V{"cuda 11.2"});
  EXPECT_EQ(mentions("torch 1.2.0+cu92"), V{"cuda 9.2"});
  EXPECT_EQ(mentions("i found the file `cudart64_101.dll`"), V{"cuda 10.1"});
  EXPECT_EQ(mentions("Library cublas64_12.dll is not found"), V{"cuda 12"});
  EXPECT_EQ(mentions("it's only \"libcudart so.8.0\""), V{"cuda 8.0"});
  EXPECT_EQ(mentions("\"ibcudart.so.10.1\""), V{"cuda 10.1"});
  EXPECT_EQ(mentions("libcudart.so.09.1"), V{"cuda 9.1"}); // found by fuzz_versions
  EXPECT_EQ(mentions("nvrtc-builtins64_121.dll"), V{"cuda 12.1"});
}

TEST(VersionMentions, CudnnInEveryWording) {
  EXPECT_EQ(mentions("CUDA-version: 10000 (10000), cuDNN: 7.4.2, CUDNN_HALF=1"), V{"cudnn 7.4.2"});
  EXPECT_EQ(mentions("Loaded runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0"),
            (V{"cudnn 8.5.0"}));
  EXPECT_EQ(mentions("I0000 cuda_dnn.cc:529] Loaded cuDNN version 90100"), V{"cudnn 9.1.0"});
  EXPECT_EQ(mentions("Loaded cuDNN version 8902"), V{"cudnn 8.9.2"});
  EXPECT_EQ(mentions("nvidia-cudnn-cu12         9.1.0.70"), (V{"cudnn 9.1.0.70", "cuda 12"}));
  EXPECT_EQ(mentions("found cudnn64_8.dll in the bin folder"), V{"cudnn 8"});
  EXPECT_EQ(mentions("libcudnn_ops.so.9: cannot open shared object file"), V{"cudnn 9"});
  EXPECT_EQ(mentions("我的cudnn是5.0，有冲突"), V{"cudnn 5.0"});
}

TEST(VersionMentions, LeavesOtherNumbersAlone) {
  EXPECT_TRUE(mentions("tensor([1., 2.], device='cuda:0')").empty());
  EXPECT_TRUE(mentions("model.to('cuda:7')").empty()); // a device, not CUDA 7
  EXPECT_TRUE(mentions("libcuda.so.1: cannot open shared object file").empty()); // the driver
  EXPECT_TRUE(mentions("Epoch 3/10 loss 0.1234").empty());
  EXPECT_TRUE(mentions("torch.cuda.OutOfMemoryError: CUDA out of memory.").empty());
  EXPECT_TRUE(mentions("").empty());
  // cuFFT and cuRAND number their own releases: CUDA 11 ships these.
  EXPECT_TRUE(mentions("Could not load dynamic library 'cufft64_10.dll'").empty());
  EXPECT_TRUE(mentions("libcurand.so.10: cannot open shared object file").empty());
  EXPECT_TRUE(classify_library("cufft64_10.dll", {}).cuda_version.empty());
  EXPECT_EQ(classify_library("cublas64_11.dll", {}).cuda_version, "11");
  EXPECT_FALSE(may_name_version("Epoch 3/10"));
  EXPECT_TRUE(may_name_version("nvrtc64_112_0.dll"));
}

TEST(VersionMentions, CudnnNumbersAndCudaReleases) {
  EXPECT_EQ(cudnn_version_of_number(8902), "8.9.2");
  EXPECT_EQ(cudnn_version_of_number(90100), "9.1.0");
  EXPECT_EQ(cudnn_version_of_number(5005), "5.0.5");
  EXPECT_EQ(cudnn_version_of_number(7605), "7.6.5");
  EXPECT_FALSE(cudnn_version_of_number(123).has_value());
  EXPECT_TRUE(same_cuda_release("11", "11.8"));
  EXPECT_TRUE(same_cuda_release("12", "12"));
  EXPECT_FALSE(same_cuda_release("11", "12.1"));
  EXPECT_FALSE(same_cuda_release("10.1", "10.2"));
  EXPECT_TRUE(same_cuda_release("10.1", "10.1"));
  EXPECT_TRUE(same_cuda_release("10", "10.2"));
  EXPECT_FALSE(same_cuda_release("7.5", "8.0"));
}

// The first cause's finding id and its params.
std::pair<std::string, std::vector<std::pair<std::string, std::string>>>
explain_first(const std::string& text, bool fast) {
  SignatureMatcher m(test::builtin_kb().signatures(), test::builtin_kb().cudnn_library_sets());
  Analysis a(m);
  ScanOptions o;
  o.fast_path = fast;
  scan_text("report", text, a, o);
  const Ranking r = rank(a);
  auto res = build_result(a, r, test::builtin_kb());
  if (!res || res->causes.empty()) {
    return {};
  }
  return {res->causes.front().finding.id, res->causes.front().fields};
}

std::string field(const std::vector<std::pair<std::string, std::string>>& fields,
                  const std::string& name) {
  for (const auto& [k, v] : fields) {
    if (k == name) {
      return v;
    }
  }
  return {};
}

// On both scan paths, `report`'s first cause is `id` with these two versions.
void expect_first_mismatch(const std::string& report,
                           const std::string& id,
                           const std::string& expected,
                           const std::string& found) {
  for (bool fast : {true, false}) {
    SCOPED_TRACE(fast ? "fast path" : "decoder path");
    const auto [first, fields] = explain_first(report, fast);
    EXPECT_EQ(first, id);
    EXPECT_EQ(field(fields, "expected"), expected);
    EXPECT_EQ(field(fields, "found"), found);
  }
}

TEST(FrameworkMentions, PyTorchWheelVersionsInTheirWordings) {
  auto one = [](std::string_view line) {
    const auto all = find_framework_mentions(line);
    return all.size() == 1
               ? all.front().framework + " " + all.front().version + " " + all.front().variant
               : std::to_string(all.size()) + " mentions";
  };
  EXPECT_EQ(one("!pip install torch==2.0.0+cu118 torchvision==0.15.1+cu118"), "torch 2.0.0 cu118");
  EXPECT_EQ(one("torch                     2.1.0+cu121"), "torch 2.1.0 cu121");
  EXPECT_EQ(one("PyTorch version: 2.3.1+cu121"), "torch 2.3.1 cu121");
  EXPECT_EQ(one("torch-2.13.0.dev20260424+cu132-cp314-cp314-win_amd64.whl"), "torch 2.13.0 cu132");
  EXPECT_EQ(one("Torch 1.12+CU113"), "torch 1.12 cu113");
  // A CPU build, torchvision alone, or no variant: nothing.
  EXPECT_EQ(one("torch==2.6.0+cpu"), "0 mentions");
  EXPECT_EQ(one("torchvision==0.15.1+cu118"), "0 mentions");
  EXPECT_EQ(one("torch 2.1.0"), "0 mentions");
}

// The explanation of `text`, with the knowledge base's compatibility tables.
Expected<ExplainResult> explain_with_tables(const std::string& text) {
  SignatureMatcher m(test::builtin_kb().signatures(), test::builtin_kb().cudnn_library_sets());
  Analysis a(m);
  scan_text("report", text, a);
  return build_result(a, rank(a, &test::builtin_kb().compat()), test::builtin_kb());
}

// The first cause's finding id and its params, with the knowledge base's compatibility tables.
std::pair<std::string, std::vector<std::pair<std::string, std::string>>>
explain_first_with_tables(const std::string& text) {
  auto res = explain_with_tables(text);
  if (!res || res->causes.empty()) {
    return {};
  }
  return {res->causes.front().finding.id, res->causes.front().fields};
}

TEST(VersionRefinement, ADriverTooOldForACudaComponentMayBeTheWrongBuild) {
  // faster-whisper on driver 470 (CUDA 11.4) with the cuDNN package built for CUDA 12.1: either
  // the driver is too old or the cuDNN package is the wrong build; both are named.
  const std::string report =
      "| NVIDIA-SMI 470.199.02   Driver Version: 470.161.03   CUDA Version: 11.4     |\n"
      "libcudnn8/unknown,now 8.9.3.28-1+cuda12.1 amd64 [installed]\n";
  SignatureMatcher m(test::builtin_kb().signatures(), test::builtin_kb().cudnn_library_sets());
  Analysis a(m);
  scan_text("report", report, a);
  auto res = build_result(a, rank(a), test::builtin_kb());
  ASSERT_TRUE(res.has_value());
  ASSERT_FALSE(res->causes.empty());
  EXPECT_EQ(res->causes.front().finding.id, "log.driver_too_old");
  ASSERT_EQ(res->causes.front().alternatives.size(), 1U);
  EXPECT_EQ(res->causes.front().alternatives.front().finding, "log.cuda_version_mismatch");
  EXPECT_NE(res->causes.front().alternatives.front().tell.find("CUDA 11.4"), std::string::npos);
}

TEST(VersionRefinement, AFrameworkBuildBringsItsCudnn) {
  // faster-whisper's CTranslate2 wants cuDNN 9; the notebook pinned torch 2.0.0+cu118, whose
  // wheels bring cuDNN 8.7 (frameworks.json).
  const std::string report =
      "!pip install torch==2.0.0+cu118 torchvision==0.15.1+cu118\n"
      "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
      "libcudnn_ops.so}\n";
  const auto [id, fields] = explain_first_with_tables(report);
  EXPECT_EQ(id, "log.cudnn_version_mismatch");
  EXPECT_EQ(field(fields, "expected"), "9");
  EXPECT_EQ(field(fields, "found_in"), "torch 2.0.0+cu118");
  EXPECT_EQ(field(fields, "found").rfind("8.7", 0), 0U);
  // Without the tables, or with a torch that brings cuDNN 9, the sub-library stays missing.
  EXPECT_EQ(explain_first(report, true).first, "log.cudnn_sublibrary_missing");
  std::string same = report;
  same.replace(same.find("2.0.0+cu118"), 11, "2.4.0+cu121");
  EXPECT_EQ(explain_first_with_tables(same).first, "log.cudnn_sublibrary_missing");
}

TEST(GpuRefinement, AGpuNewerThanTheCuda) {
  // cuBLAS of CUDA 9.0 on a Turing card: the error names no architecture, the report does.
  const auto [id, fields] = explain_first_with_tables(
      "I am using Pytorch 1.0.1 and cuda 9.0 with a RTX 2080 Ti GPU.\n"
      "RuntimeError: cublas runtime error : the GPU program failed to execute at "
      "THCBlas.cu:441\n");
  EXPECT_EQ(id, "log.gpu_newer_than_cuda");
  EXPECT_EQ(field(fields, "gpu"), "GeForce RTX 2080 Ti");
  EXPECT_EQ(field(fields, "cc"), "7.5");
  EXPECT_EQ(field(fields, "cuda"), "9.0");
  EXPECT_EQ(field(fields, "first_cuda"), "10.0");
}

TEST(GpuRefinement, AMessageThatNamesItsCauseComesFirst) {
  // A GPU model and a CUDA release named in one report are an inference; the assembler's own
  // words (PTX newer than the driver's JIT) are the message. The inference stays, second.
  const std::string report =
      "It runs on the RTX 2080 box only after going back to cudatoolkit 9.0\n"
      "ptxas application ptx input, line 9; fatal   : Unsupported .version 6.3; current version "
      "is '6.1'\n";
  auto res = explain_with_tables(report);
  ASSERT_TRUE(res.has_value());
  ASSERT_GE(res->causes.size(), 2U);
  EXPECT_EQ(res->causes[0].finding.id, "log.driver_too_old");
  EXPECT_EQ(res->causes[1].finding.id, "log.gpu_newer_than_cuda");
}

TEST(GpuRefinement, AGpuDroppedByTheCuda) {
  const auto [id, fields] = explain_first_with_tables(
      "GPU: Tesla K80\ntorch==2.1.0+cu121\n"
      "CUDA error: an illegal memory access was encountered\n");
  EXPECT_EQ(id, "log.gpu_dropped_by_cuda");
  EXPECT_EQ(field(fields, "removed_in"), "12.0");
}

TEST(GpuRefinement, NothingWhenTheCudaServesTheGpu) {
  // CUDA 10.0 runs a Turing card; the driver's CUDA Version is not the program's; a package's
  // own "CUDA: 5.4.3" (CUDA.jl) is no CUDA release; a name of several chips decides nothing
  // unless all of them are outside.
  for (const std::string text :
       {"cuda 10.0 with an RTX 2080 Ti\nCUDA error: an illegal memory access was encountered\n",
        "| NVIDIA-SMI 384.59   Driver Version: 384.59   CUDA Version: 9.0 |\nRTX 2080 Ti\n",
        "- CUDA: 5.4.3\n  0: NVIDIA GeForce GTX 1060 6GB (sm_61)\n",
        "GTX 1660 Super 6GB (+ GT 730 2GB), CUDA 11.0\n"}) {
    const std::string id = explain_first_with_tables(text).first;
    EXPECT_NE(id, "log.gpu_newer_than_cuda") << text;
    EXPECT_NE(id, "log.gpu_dropped_by_cuda") << text;
  }
}

TEST(NvccRefinement, AnArchitectureNoToolkitDroppedMeansAnOlderToolkit) {
  // compute_86 (Ampere) needs CUDA 11.1: nvcc 11.0 rejecting it is older, not the GPU.
  const auto [id, fields] =
      explain_first_with_tables("nvcc fatal : Unsupported gpu architecture 'compute_86'\n");
  EXPECT_EQ(id, "log.nvcc_older_than_arch");
  EXPECT_EQ(field(fields, "arch"), "compute_86");
  EXPECT_EQ(field(fields, "first_cuda"), "11.1");
  EXPECT_EQ(field(fields, "name"), "Ampere");
  EXPECT_EQ(explain_first_with_tables("nvcc fatal   : Value 'sm_90a' is not defined for option "
                                      "'gpu-architecture'\n")
                .first,
            "log.nvcc_older_than_arch");
}

TEST(NvccRefinement, ANamedToolkitThatServesTheArchitectureMeansAnotherNvccRan) {
  // compute_86 needs CUDA 11.1; the reporter has CUDA 11.1, so the nvcc that ran is another's.
  const std::string error = "nvcc fatal   : Unsupported gpu architecture 'compute_86'\n";
  const auto [id, fields] =
      explain_first_with_tables(error + "I am running with a 3090 GPU and CUDA 11.1.\n");
  EXPECT_EQ(id, "log.nvcc_from_another_toolkit");
  EXPECT_EQ(field(fields, "cuda"), "11.1");
  EXPECT_EQ(field(fields, "first_cuda"), "11.1");
  // nvcc's own older release next to it, or only a package's CUDA tag: the toolkit is older.
  EXPECT_EQ(explain_first_with_tables(error
                                      + "I have CUDA 11.1 installed\n"
                                        "Cuda compilation tools, release 11.0, V11.0.221\n")
                .first,
            "log.nvcc_older_than_arch");
  EXPECT_EQ(explain_first_with_tables(error + "torch==1.9.0+cu111\n").first,
            "log.nvcc_older_than_arch");
}

TEST(NvccRefinement, ADroppedArchitectureIsDecidedByTheReleasesNamed) {
  const std::string error = "nvcc fatal : Unsupported gpu architecture 'compute_35'\n";
  SignatureMatcher m(test::builtin_kb().signatures(), test::builtin_kb().cudnn_library_sets());
  auto first = [&](const std::string& text) {
    Analysis a(m);
    scan_text("report", text, a);
    auto res = build_result(a, rank(a, &test::builtin_kb().compat()), test::builtin_kb());
    EXPECT_TRUE(res && !res->causes.empty()) << text;
    return res ? res->causes.front() : ExplainedCause{};
  };
  // Kepler was dropped in CUDA 12.0: without a release, that reading leads and the older
  // toolkit is its alternative.
  const auto alone = first(error);
  EXPECT_EQ(alone.finding.id, "log.nvcc_unsupported_arch");
  ASSERT_FALSE(alone.alternatives.empty());
  EXPECT_EQ(alone.alternatives.front().finding, "log.nvcc_older_than_arch");
  // nvcc 12.1 has dropped it; nvcc 4.2 had not reached it.
  const auto dropped = first(error + "Cuda compilation tools, release 12.1, V12.1.105\n");
  EXPECT_EQ(dropped.finding.id, "log.nvcc_unsupported_arch");
  EXPECT_TRUE(std::none_of(dropped.alternatives.begin(),
                           dropped.alternatives.end(),
                           [](const auto& a) { return a.finding == "log.nvcc_older_than_arch"; }));
  EXPECT_EQ(first(error + "Cuda compilation tools, release 4.2, V4.2.9\n").finding.id,
            "log.nvcc_older_than_arch");
  // An architecture the tables do not know is left as it was.
  EXPECT_EQ(first("nvcc fatal : Unsupported gpu architecture 'compute_99'\n").finding.id,
            "log.nvcc_unsupported_arch");
}

TEST(GpuRefinement, ACapabilityTheNamedGpuMeetsIsNotTheCause) {
  const std::string needs =
      "[error] This program needs a CUDA-Enabled GPU (with at least compute capability 2.0).\n";
  // Alone, the line reads as a GPU too old for the software.
  EXPECT_EQ(explain_first_with_tables(needs).first, "log.gpu_too_old_for_software");
  // A GTX 1080 (6.1) meets it: the program did not see the GPU.
  EXPECT_EQ(
      explain_first_with_tables(needs + "I'm running on Windows 10, GeForce GTX 1080\n").first,
      "log.driver_too_old");
  // Beside a GPU that does not meet it, the line may be about that one.
  const std::string ampere = "punica LoRA kernels require compute capability >= 8.0\n";
  EXPECT_EQ(explain_first_with_tables(ampere + "GPU 0: NVIDIA A100-SXM4-40GB\n").first,
            "log.driver_too_old");
  EXPECT_EQ(
      explain_first_with_tables(ampere + "GPU 0: NVIDIA A100-SXM4-40GB\nGPU 1: Tesla V100\n").first,
      "log.gpu_too_old_for_software");
  // A V100 (7.0) does not meet 8.0: the GPU is too old after all.
  EXPECT_EQ(explain_first_with_tables("punica LoRA kernels require compute capability >= 8.0\n"
                                      "benchmarking on a Tesla V100\n")
                .first,
            "log.gpu_too_old_for_software");
}

TEST(LoaderRules, MatlabsDriverMessage) {
  // MATLAB names the library on one line and Windows' message on the next.
  EXPECT_EQ(explain_first("    The CUDA driver could not be loaded. The library name used was "
                          "'nvcuda.dll'. The error was:\n    找不到指定的模块。\n",
                          true)
                .first,
            "log.driver_not_loaded");
}

TEST(TwoLineLoadFailure, TheSystemMessageOnTheNextLineDecides) {
  // Julia: the library on one line, Windows' message on the next. In the head and past it (the
  // fast path), the pair is one access-denied failure, and the first line's own guess (a
  // missing cuDNN sub-library) is withdrawn.
  const std::string pair =
      "\u2502    could not load library "
      "\"C:\\Users\\u\\.julia\\artifacts\\d1e2\\bin\\cudnn_ops_infer64_8.dll\"\n"
      "\u2502    Access is denied.\n";
  std::string filler;
  while (filler.size() <= k_head_bytes) {
    filler += "step 100 loss 0.25 lr 0.0001\n";
  }
  for (const std::string& report : {pair, filler + pair}) {
    for (bool fast : {true, false}) {
      SignatureMatcher m(test::builtin_kb().signatures(), test::builtin_kb().cudnn_library_sets());
      Analysis a(m);
      ScanOptions o;
      o.fast_path = fast;
      scan_text("report", report, a, o);
      auto res = build_result(a, rank(a), test::builtin_kb());
      ASSERT_TRUE(res.has_value());
      ASSERT_EQ(res->causes.size(), 1U) << "fast " << fast;
      EXPECT_EQ(res->causes.front().finding.id, "log.library_access_denied");
      EXPECT_EQ(field(res->causes.front().fields, "lib"), "cudnn_ops_infer64_8.dll");
      EXPECT_EQ(res->causes.front().matches, 2U);
    }
  }
  // Lines apart, the message belongs to nothing: the library line keeps its own meaning.
  EXPECT_EQ(explain_first("could not load library \"C:\\x\\cudnn_ops_infer64_8.dll\"\n"
                          "Stacktrace:\nAccess is denied.\n",
                          true)
                .first,
            "log.cudnn_sublibrary_missing");
}

// "cudnn 7.1.2 -> 7.3.1" for the pair `line` states, or "" for none.
std::string pair_of(std::string_view line) {
  const auto p = find_version_pair(line);
  if (!p) {
    return "";
  }
  return std::string(p->component == VersionComponent::cuda ? "cuda " : "cudnn ") + p->expected
         + " -> " + p->found;
}

TEST(VersionPairs, InTheReportersAndProgramsWords) {
  EXPECT_EQ(
      pair_of("cuDNN version mismatch:Pytorch was compiled against 7102 but link against 7301"),
      "cudnn 7.1.2 -> 7.3.1");
  EXPECT_EQ(pair_of("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against "
                    "(8, 7, 0) but found runtime version (8, 2, 4)."),
            "cudnn 8.7.0 -> 8.2.4");
  EXPECT_EQ(pair_of("this wheel was built for CUDA 12.1 but CUDA 11.8 is installed"),
            "cuda 12.1 -> 11.8");
  EXPECT_EQ(pair_of("It needs cudnn 8 but I have 9.1 installed"), "cudnn 8 -> 9.1");
  EXPECT_EQ(pair_of("编译时用的cuDNN 8.2，但运行时是8.0"), "cudnn 8.2 -> 8.0");
  EXPECT_EQ(pair_of("the CUDA extension was compiled with 11040 while torch has 12010"),
            "cuda 11.4 -> 12.1");
  EXPECT_EQ(pair_of("requires CUDA 11.8 or later but I have 11.2"), "cuda 11.8 -> 11.2");
}

TEST(VersionPairs, TwoFileNamesOfOneLibrary) {
  EXPECT_EQ(pair_of("the new DLL from Nvidia is called cudnn64_6.dll; the latest build of "
                    "TensorFlow requires that to be cudnn64_5.dll."),
            "cudnn 5 -> 6");
  EXPECT_EQ(pair_of("it state that it needed cublas64_12.dll or what not...whereas CUDA 11.8 uses "
                    "cublas64_11.dll."),
            "cuda 12 -> 11");
  // Without a word for which one is wanted, two names are no pair; nor are two libraries.
  EXPECT_EQ(pair_of("copied cudnn64_6.dll and cudnn64_5.dll into bin"), "");
  EXPECT_EQ(pair_of("needs cudart64_110.dll and cudnn64_8.dll"), "");
  EXPECT_EQ(pair_of("needs cudart64_110.dll, found cublas64_12.dll"), "");
}

TEST(VersionPairs, WhatIsNoPair) {
  for (const char* line : {
           "requires CUDA 11.8 or later but I have 12.1",                      // met
           "compiled against cuDNN 8 but found 8.9.2 at run time",             // the same major
           "PyTorch was compiled with CUDA 11.8 but the driver supports 11.4", // the driver's
           "my GPU needs 8 GB but has 6 GB, cuda 12.1",             // amounts; CUDA after the turn
           "compiled with cudnn 8.9.2 but loaded 8.9.2",            // the same
           "cudnn: compiled against (1, 2, 3) but found (8, 9, 2)", // no cuDNN 1
           "built against libcudnn_ops64_9 but ...",                // no version after the turn
           "Loaded runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0", // no built
                                                                                      // word first
           "",
       }) {
    EXPECT_EQ(pair_of(line), "") << line;
  }
}

TEST(VersionRefinement, APairInAnyWordingIsTheMismatch) {
  expect_first_mismatch(
      "cuDNN version mismatch:Pytorch was compiled against 7102 but link "
      "against 7301\nAny one met this?\n",
      "log.cudnn_version_mismatch",
      "7.1.2",
      "7.3.1");
}

TEST(VersionRefinement, AnotherCudaInTheReportMakesItAMismatch) {
  expect_first_mismatch(
      "ImportError: libcudart.so.10.1: cannot open shared object file: No such file or directory\n"
      "my system: ubuntu20.04 + nvidia530.30 + cuda12.1\n",
      "log.cuda_version_mismatch",
      "10.1",
      "12.1");
}

TEST(VersionRefinement, TheSameReleaseLeavesTheMissingLibrary) {
  // CUDA 11.8 ships cudart64_110.dll: nothing in the report contradicts the library's name.
  const std::string report =
      "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
      "I installed CUDA 11.8 from NVIDIA's site\n";
  EXPECT_EQ(explain_first(report, true).first, "log.cuda_library_not_found");
  // Without a version in the report, the library stays missing too.
  EXPECT_EQ(
      explain_first("ImportError: libcudart.so.10.1: cannot open shared object file\n", true).first,
      "log.cuda_library_not_found");
}

TEST(VersionRefinement, AnotherCudnnMajor) {
  const std::string report =
      "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cudnn64_7.dll) that "
      "Paddle depends on is not configured correctly. (error code is 126)\n"
      "I copied cudnn64_8.dll into CUDA\\v11.2\\bin\n";
  const auto [id, fields] = explain_first(report, true);
  EXPECT_EQ(id, "log.cudnn_version_mismatch");
  EXPECT_EQ(field(fields, "expected"), "7");
  EXPECT_EQ(field(fields, "found"), "8");
}

TEST(VersionRefinement, NvidiaSmiCudaIsTheDriversNotTheInstalledOne) {
  EXPECT_TRUE(find_version_mentions("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA "
                                    "Version: 12.2     |")
                  .front()
                  .driver_max);
  // The driver could run CUDA 12.2; libcudart.so.11.0 is simply missing.
  const std::string report =
      "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open "
      "shared object file: No such file or directory\n"
      "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n";
  EXPECT_EQ(explain_first(report, true).first, "log.cuda_library_not_found");
}

TEST(VersionRefinement, ADriverOlderThanTheBuildsCuda) {
  const std::string report =
      "torch.cuda.is_available(): False\n"
      "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
      "torch==2.1.0+cu121\n";
  const auto [id, fields] = explain_first(report, true);
  EXPECT_EQ(id, "log.driver_too_old");
  EXPECT_EQ(field(fields, "driver_cuda"), "11.4");
  EXPECT_EQ(field(fields, "cuda"), "12.1");
  // The same major: minor-version compatibility, no driver cause.
  const std::string same =
      "| NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: 12.0     |\n"
      "torch==2.1.0+cu121\n";
  EXPECT_NE(explain_first(same, true).first, "log.driver_too_old");
}

TEST(VersionRefinement, ADriverNumberBelowTheCudasMinimum) {
  // No CUDA Version column (an nvidia-smi before 410, an NVRM line, the reporter's words): the
  // driver's own number against the toolkit's minimum in cuda_drivers.json.
  {
    const std::string report =
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:385] could not create cudnn handle: "
        "CUDNN_STATUS_NOT_INITIALIZED\n"
        "I cuda_diagnostics.cc:369] driver version file contents: \"\"\"NVRM version: NVIDIA UNIX "
        "x86_64 Kernel Module  384.69  Wed Aug 16 19:34:54 PDT 2017\n"
        "I have installed CUDA 9.0 and cuDNN 7.0\n";
    const auto [id, fields] = explain_first_with_tables(report);
    EXPECT_EQ(id, "log.driver_too_old");
    EXPECT_EQ(field(fields, "driver"), "384.69");
    EXPECT_EQ(field(fields, "cuda"), "9.0");
  }
  // An nvidia-smi header from before drivers showed their CUDA Version.
  EXPECT_EQ(
      explain_first_with_tables("| NVIDIA-SMI 367.57                 Driver Version: 367.57 |\n"
                                "docker run --runtime=nvidia --rm nvidia/cuda:9.2-runtime\n")
          .first,
      "log.driver_too_old");
  // CUDA 11.8 runs on a 470 driver through minor-version compatibility: no driver cause.
  EXPECT_NE(explain_first_with_tables("| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01 |\n"
                                      "torch==2.0.1+cu118\n")
                .first,
            "log.driver_too_old");
  // A Windows driver version as Windows shows it is not an NVIDIA driver number.
  EXPECT_NE(explain_first_with_tables("Driver Version: 31.0.15.1694\nCUDA 12.1\n").first,
            "log.driver_too_old");
}

TEST(VersionRefinement, TheDriverMinimumIsThePlatformsOwn) {
  // CUDA 8.0 needs 369.30 on Windows and 367.48 on Linux: driver 368.69 is too old only where the
  // log comes from Windows (a .dll), and the minimum shown is that platform's.
  const std::string header =
      "I installed CUDA 8.0\n| NVIDIA-SMI 368.69                 Driver Version: 368.69 |\n";
  EXPECT_EQ(
      explain_first_with_tables(header + "Could not load dynamic library cudart64_80.dll\n").first,
      "log.cuda_library_not_found");
  // The minimum a "driver too old" among the causes names, or "" when there is none.
  const auto needed = [](const std::string& text) {
    SignatureMatcher m(test::builtin_kb().signatures(), test::builtin_kb().cudnn_library_sets());
    Analysis a(m);
    scan_text("report", text, a);
    const Ranking r = rank(a, &test::builtin_kb().compat());
    const auto c = std::find_if(r.causes.begin(), r.causes.end(), [](const RankedCause& rc) {
      return rc.finding == "log.driver_too_old";
    });
    return c == r.causes.end() ? std::string() : field(c->fields, "driver_needed");
  };
  EXPECT_EQ(needed(header + "Could not load dynamic library cudart64_80.dll\n"), "369.30");
  EXPECT_EQ(needed(header + "Could not load dynamic library libcudart.so.8.0\n"), "");
  // Below both minimums, a log that does not say its platform gets the lower.
  EXPECT_EQ(
      needed("I installed CUDA 8.0\n| NVIDIA-SMI 360.10                 Driver Version: 360.10 "
             "|\nCUDNN_STATUS_NOT_INITIALIZED\n"),
      "367.48");
}

TEST(VersionRefinement, AnInsufficientDriverThatIsNewEnoughIsNotReached) {
  // Error 35 under a header whose driver runs CUDA 12.4, for a program built for CUDA 12.1: the
  // program does not reach that driver (a container started without the GPU).
  const std::string present =
      "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime "
      "version\n"
      "| NVIDIA-SMI 550.144.03   Driver Version: 550.144.03   CUDA Version: 12.4     |\n"
      "torch==2.3.1+cu121\n";
  for (bool fast : {true, false}) {
    EXPECT_EQ(explain_first(present, fast).first, "log.driver_not_loaded");
  }
  // A build for a later major than the header's: the driver is too old.
  const std::string older =
      "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n"
      "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
      "torch==2.1.0+cu121\n";
  EXPECT_EQ(explain_first(older, true).first, "log.driver_too_old");
  // No CUDA of the program's named, or only the header's own version said again: too old stays.
  const std::string unnamed =
      "CUDA failed with error CUDA driver version is insufficient for CUDA runtime version\n"
      "| NVIDIA-SMI 470.256.02   Driver Version: 470.256.02   CUDA Version: 11.4     |\n"
      "Is ctranslate2 compatible with cuda 11.4?\n";
  EXPECT_EQ(explain_first(unnamed, true).first, "log.driver_too_old");
  // A requirement check is not ambiguous: cuda>=12.4 on a 12.2 driver is a driver too old.
  const std::string requirement =
      "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update "
      "your driver to a newer version, or use an earlier cuda container: unknown\n"
      "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n";
  EXPECT_EQ(explain_first(requirement, true).first, "log.driver_too_old");
}

TEST(VersionRefinement, ZlibwapiOnlyFromCudnn83) {
  // cuDNN's own message for a cnn sub-library on Windows: from cuDNN 8.3 on, zlibwapi.dll.
  const std::string failure = "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n";
  EXPECT_EQ(explain_first(failure, true).first, "log.zlibwapi_missing");
  EXPECT_EQ(explain_first("Loaded cuDNN version 8902\n" + failure, true).first,
            "log.zlibwapi_missing");
  // cuDNN 8.1 needs no zlibwapi.dll: another import is missing.
  for (bool fast : {true, false}) {
    EXPECT_EQ(explain_first("I tensorflow/stream_executor/cuda/cuda_dnn.cc:384] Loaded cuDNN "
                            "version 8100\n"
                                + failure,
                            fast)
                  .first,
              "log.cudnn_dependency_missing");
  }
}

TEST(ContextRefinement, AContainerMakesAnInsufficientDriverOneThatIsNotReached) {
  const std::string insufficient =
      "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n";
  EXPECT_EQ(explain_first(insufficient, true).first, "log.driver_too_old");
  for (bool fast : {true, false}) {
    EXPECT_EQ(
        explain_first(insufficient + "docker run --gpus all --rm -it myimage python app.py\n", fast)
            .first,
        "log.driver_not_loaded");
    // Started without any GPU option, the container has no driver at all.
    EXPECT_EQ(
        explain_first(insufficient + "docker run --rm -it myimage python app.py\n", fast).first,
        "log.container_runtime_missing");
    // nvidia-docker adds the GPUs itself.
    EXPECT_EQ(
        explain_first(insufficient + "$ nvidia-docker run --rm nvidia/cuda nvidia-smi\n", fast)
            .first,
        "log.driver_not_loaded");
  }
  // A command continued over lines is read whole: its GPU option may be on the next line.
  for (bool fast : {true, false}) {
    EXPECT_EQ(
        explain_first(insufficient + "docker run --rm -it \\\n  --gpus all myimage\n", fast).first,
        "log.driver_not_loaded");
    EXPECT_EQ(explain_first(insufficient
                                + "docker run --rm -it \\\n  --shm-size=1g \\\n"
                                  "  myimage python app.py\n",
                            fast)
                  .first,
              "log.container_runtime_missing");
  }
  // Only an ambiguous cause gives way: a driver that says it is too old stays too old.
  EXPECT_EQ(explain_first("The NVIDIA driver on your system is too old (found version 11040).\n"
                          "I run it in a docker container\n",
                          true)
                .first,
            "log.driver_too_old");
}

TEST(LoaderRules, AnImportFailureTakesTheLibraryTheReportNamesElsewhere) {
  // Python names the extension, not its missing DLL; the reporter's own trace names it.
  const std::string failure =
      "ImportError: DLL load failed while importing dlib: The specified module could not be "
      "found.\n";
  const auto [id, fields] =
      explain_first(failure + "Process Monitor shows that cublas64_80.dll is not found\n", true);
  EXPECT_EQ(id, "log.cuda_library_not_found");
  EXPECT_EQ(field(fields, "lib"), "cublas64_80.dll");
  EXPECT_EQ(explain_first(failure + "and cudnn64_7.dll\n", true).first, "log.cudnn_not_found");
  // Without a named CUDA or cuDNN library, or with another kind of library, it stays unnamed.
  EXPECT_EQ(explain_first(failure, true).first, "log.dll_dependency_missing");
  EXPECT_EQ(explain_first(failure + "I copied zlibwapi.dll as well\n", true).first,
            "log.dll_dependency_missing");
}

TEST(LoaderRules, WhichLibraryFailedDecidesTheCause) {
  for (bool fast : {true, false}) {
    // An entry point missing from the driver's own library: the driver is older than the CUDA
    // the program calls; elsewhere the same kind is a stale copy of the library.
    EXPECT_EQ(explain_first("The procedure entry point cuDevicePrimaryCtxReset_v2 could not be "
                            "located in the dynamic link library nvcuda.dll\n",
                            fast)
                  .first,
              "log.driver_too_old");
    EXPECT_EQ(explain_first("libcuda.so.1: undefined symbol: cuCtxCreate_v4\n", fast).first,
              "log.driver_too_old");
    EXPECT_EQ(explain_first("The procedure entry point cublasLtMatmul could not be located in "
                            "the dynamic link library cublasLt64_11.dll\n",
                            fast)
                  .first,
              "log.library_procedure_missing");
    // NVML, the driver's management library, missing: no driver.
    EXPECT_EQ(explain_first("nvidia-container-cli: initialization error: load library failed: "
                            "libnvidia-ml.so.1: cannot open shared object file: no such file or "
                            "directory: unknown\n",
                            fast)
                  .first,
              "log.driver_not_loaded");
    // A program's GPU build that does not load: the CUDA libraries it imports.
    EXPECT_EQ(explain_first("System.DllNotFoundException: 'Unable to load DLL "
                            "'x64\\yolo_cpp_dll_gpu.dll': The specified module could not be "
                            "found.\n",
                            fast)
                  .first,
              "log.gpu_module_dependencies_missing");
    // TensorRT that a program links against is missing; TensorFlow's own probe for it is not.
    EXPECT_EQ(explain_first("deepstream-app: error while loading shared libraries: "
                            "libnvinfer.so.7: cannot open shared object file: No such file or "
                            "directory\n",
                            fast)
                  .first,
              "log.tensorrt_not_found");
    EXPECT_EQ(explain_first("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could "
                            "not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: "
                            "cannot open shared object file: No such file or directory\n",
                            fast)
                  .first,
              "");
  }
  // "The driver is too old" in words has not the missing entry point's other readings.
  SignatureMatcher m(test::builtin_kb().signatures(), test::builtin_kb().cudnn_library_sets());
  Analysis a(m);
  scan_text("report", "The NVIDIA driver on your system is too old (found version 8000)\n", a);
  auto res = build_result(a, rank(a), test::builtin_kb());
  ASSERT_TRUE(res && !res->causes.empty());
  EXPECT_EQ(res->causes.front().finding.id, "log.driver_too_old");
  EXPECT_TRUE(res->causes.front().alternatives.empty());
}

TEST(VersionRefinement, OnlyTheHeadIsRead) {
  // A version named after the first MiB of a long log is not context.
  std::string log = "ImportError: libcudart.so.10.1: cannot open shared object file\n";
  while (log.size() < k_head_bytes + 4096) {
    log += "step 100 loss 0.5 lr 0.001 throughput 120 samples/s\n";
  }
  log += "cuda 12.1\n";
  EXPECT_EQ(explain_first(log, true).first, "log.cuda_library_not_found");
  EXPECT_EQ(explain_first(log, false).first, "log.cuda_library_not_found");
}

} // namespace
} // namespace doctor::explain
