// SPDX-License-Identifier: MIT
// Every status the installed CUDA toolkit and cuDNN can return is decided: explain names a cause
// for it, or it is one of the statuses below that report the calling program's own misuse of an
// API (an invalid argument, a stream-capture rule, a profiler state), which no change to the
// machine fixes. The statuses are read from the real headers (CUDA_HOME, else /usr/local/cuda),
// so a toolkit that adds a status fails here until the status is decided.
#include "support/builtin_kb.hpp"

#include <doctor/explain/analysis.hpp>
#include <doctor/explain/matcher.hpp>
#include <doctor/explain/result.hpp>
#include <doctor/explain/scan.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace doctor::explain {
namespace {

// The first cause explain names for `text`, or "" when it names none. One matcher serves every
// test here.
std::string first_cause(const std::string& text) {
  const kb::KnowledgeBase& k = test::builtin_kb();
  static const SignatureMatcher m(k.signatures(), k.cudnn_library_sets());
  Analysis a(m);
  scan_text("report", text, a);
  auto res = build_result(a, rank(a), k);
  return res && !res->causes.empty() ? res->causes.front().finding.id : std::string();
}

// Whether explain names a cause for a report that is the one line `line`.
bool names_a_cause(const std::string& line) {
  return !first_cause(line + "\n").empty();
}

std::filesystem::path cuda_include() {
  const char* home = std::getenv("CUDA_HOME");
  return std::filesystem::path(home != nullptr && *home != '\0' ? home : "/usr/local/cuda")
         / "include";
}

// The enumerators `prefix`... = value in a header, in order.
std::vector<std::pair<std::string, long>> enumerators(const std::filesystem::path& header,
                                                      const std::string& prefix) {
  std::ifstream in(header);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const std::regex re("\\b(" + prefix + "\\w+)\\s*=\\s*(0x[0-9A-Fa-f]+|\\d+)");
  std::vector<std::pair<std::string, long>> out;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) {
    out.emplace_back((*it)[1].str(), std::strtol((*it)[2].str().c_str(), nullptr, 0));
  }
  return out;
}

// A status as a framework reports it.
std::string in_report(const std::string& status) {
  return "RuntimeError: CUDA error: " + status;
}

// Statuses that say the calling program used an API wrongly or asked for a state it had not set
// up; a machine's driver, libraries or hardware do not cause them. Grouped by why.
const std::set<std::string>& program_statuses() {
  static const std::set<std::string> s = [] {
    std::set<std::string> out;
    const std::vector<std::vector<std::string>> groups = {
        // Success.
        {"CUBLAS_STATUS_SUCCESS",
         "CUDNN_STATUS_SUCCESS",
         "CUFFT_SUCCESS",
         "NVRTC_SUCCESS",
         "CUSOLVER_STATUS_SUCCESS",
         "CURAND_STATUS_SUCCESS",
         "CUSPARSE_STATUS_SUCCESS"},
        // An argument, handle, pointer or descriptor the program passed is invalid.
        {"CUDA_ERROR_INVALID_VALUE",
         "cudaErrorInvalidValue",
         "CUDA_ERROR_INVALID_HANDLE",
         "cudaErrorInvalidResourceHandle",
         "cudaErrorInvalidConfiguration",
         "cudaErrorInvalidPitchValue",
         "cudaErrorInvalidHostPointer",
         "cudaErrorInvalidDevicePointer",
         "cudaErrorInvalidTexture",
         "cudaErrorInvalidTextureBinding",
         "cudaErrorInvalidChannelDescriptor",
         "cudaErrorInvalidMemcpyDirection",
         "cudaErrorAddressOfConstant",
         "cudaErrorTextureFetchFailed",
         "cudaErrorTextureNotBound",
         "cudaErrorSynchronizationError",
         "cudaErrorInvalidFilterSetting",
         "cudaErrorInvalidNormSetting",
         "cudaErrorInvalidSurface",
         "cudaErrorMemoryValueTooLarge",
         "cudaErrorMissingConfiguration",
         "cudaErrorLaunchFileScopedTex",
         "cudaErrorLaunchFileScopedSurf",
         "CUDA_ERROR_INVALID_ADDRESS_SPACE",
         "cudaErrorInvalidAddressSpace",
         "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
         "cudaErrorLaunchIncompatibleTexturing",
         "CUDA_ERROR_INVALID_CLUSTER_SIZE",
         "cudaErrorInvalidClusterSize",
         "CUDA_ERROR_INVALID_RESOURCE_TYPE",
         "cudaErrorInvalidResourceType",
         "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
         "cudaErrorInvalidResourceConfiguration",
         "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
         "cudaErrorCooperativeLaunchTooLarge",
         "CUDA_ERROR_FUNCTION_NOT_LOADED",
         "cudaErrorFunctionNotLoaded",
         "CUDA_ERROR_NOT_FOUND",
         "cudaErrorSymbolNotFound",
         "cudaErrorDuplicateVariableName",
         "cudaErrorDuplicateTextureName",
         "cudaErrorDuplicateSurfaceName",
         "CUBLAS_STATUS_INVALID_VALUE",
         "CUFFT_INVALID_PLAN",
         "CUFFT_INVALID_TYPE",
         "CUFFT_INVALID_VALUE",
         "CUFFT_INVALID_SIZE",
         "CUFFT_UNALIGNED_DATA",
         "CUFFT_INVALID_DEVICE",
         "CUFFT_NO_WORKSPACE",
         "CUSOLVER_STATUS_INVALID_VALUE",
         "CUSOLVER_STATUS_INVALID_WORKSPACE",
         "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
         "CUSPARSE_STATUS_INVALID_VALUE",
         "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
         "CURAND_STATUS_TYPE_ERROR",
         "CURAND_STATUS_OUT_OF_RANGE",
         "CURAND_STATUS_LENGTH_NOT_MULTIPLE",
         "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED",
         "NVRTC_ERROR_INVALID_INPUT",
         "NVRTC_ERROR_INVALID_PROGRAM",
         "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
         "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
         "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
         "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED",
         "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
         "NVRTC_ERROR_COMPILATION",
         "NVRTC_ERROR_CANCELLED"},
        // A state the program had not set up, or had already ended: contexts, mappings, peers,
        // registrations, handles used before their library was initialised.
        {"CUDA_ERROR_NOT_INITIALIZED",
         "CUDA_ERROR_DEINITIALIZED",
         "cudaErrorCudartUnloading",
         "CUDA_ERROR_INVALID_CONTEXT",
         "cudaErrorDeviceUninitialized",
         "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
         "cudaErrorIncompatibleDriverContext",
         "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
         "cudaErrorDeviceAlreadyInUse",
         "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
         "cudaErrorSetOnActiveProcess",
         "CUDA_ERROR_MAP_FAILED",
         "cudaErrorMapBufferObjectFailed",
         "CUDA_ERROR_UNMAP_FAILED",
         "cudaErrorUnmapBufferObjectFailed",
         "CUDA_ERROR_ARRAY_IS_MAPPED",
         "cudaErrorArrayIsMapped",
         "CUDA_ERROR_ALREADY_MAPPED",
         "cudaErrorAlreadyMapped",
         "CUDA_ERROR_ALREADY_ACQUIRED",
         "cudaErrorAlreadyAcquired",
         "CUDA_ERROR_NOT_MAPPED",
         "cudaErrorNotMapped",
         "CUDA_ERROR_NOT_MAPPED_AS_ARRAY",
         "cudaErrorNotMappedAsArray",
         "CUDA_ERROR_NOT_MAPPED_AS_POINTER",
         "cudaErrorNotMappedAsPointer",
         "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT",
         "cudaErrorInvalidGraphicsContext",
         "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
         "cudaErrorPeerAccessUnsupported",
         "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
         "cudaErrorPeerAccessAlreadyEnabled",
         "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
         "cudaErrorPeerAccessNotEnabled",
         "CUDA_ERROR_TOO_MANY_PEERS",
         "cudaErrorTooManyPeers",
         "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
         "cudaErrorHostMemoryAlreadyRegistered",
         "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
         "cudaErrorHostMemoryNotRegistered",
         "CUDA_ERROR_NOT_READY",
         "cudaErrorNotReady",
         "CUDA_ERROR_ILLEGAL_STATE",
         "cudaErrorIllegalState",
         "CUDA_ERROR_LOSSY_QUERY",
         "cudaErrorLossyQuery",
         "CUDA_ERROR_TENSOR_MEMORY_LEAK",
         "cudaErrorTensorMemoryLeak",
         "CUDA_ERROR_TIMEOUT",
         "cudaErrorTimeout",
         "CUDA_ERROR_EXTERNAL_DEVICE",
         "cudaErrorExternalDevice",
         "cudaErrorPriorLaunchFailure",
         "CUDA_ERROR_KEY_ROTATION",
         "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
         "cudaErrorSharedObjectSymbolNotFound",
         "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
         "cudaErrorSharedObjectInitFailed",
         "CUDA_ERROR_FILE_NOT_FOUND",
         "cudaErrorFileNotFound",
         "CUBLAS_STATUS_MAPPING_ERROR",
         "CUSOLVER_STATUS_NOT_INITIALIZED",
         "CUSOLVER_STATUS_MAPPING_ERROR",
         "CUSPARSE_STATUS_NOT_INITIALIZED",
         "CUSPARSE_STATUS_MAPPING_ERROR",
         "CURAND_STATUS_NOT_INITIALIZED",
         "CURAND_STATUS_PREEXISTING_FAILURE",
         "CUDNN_STATUS_RUNTIME_IN_PROGRESS",
         "CUDNN_STATUS_DEPRECATED",
         "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH",
         "cudaErrorSoftwareValidityNotEstablished"},
        // Stream capture and CUDA graphs, dynamic parallelism, execution affinity and launch
        // limits the program set.
        {"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
         "cudaErrorStreamCaptureUnsupported",
         "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
         "cudaErrorStreamCaptureInvalidated",
         "CUDA_ERROR_STREAM_CAPTURE_MERGE",
         "cudaErrorStreamCaptureMerge",
         "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
         "cudaErrorStreamCaptureUnmatched",
         "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
         "cudaErrorStreamCaptureUnjoined",
         "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
         "cudaErrorStreamCaptureIsolation",
         "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
         "cudaErrorStreamCaptureImplicit",
         "CUDA_ERROR_CAPTURED_EVENT",
         "cudaErrorCapturedEvent",
         "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
         "cudaErrorStreamCaptureWrongThread",
         "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
         "cudaErrorGraphExecUpdateFailure",
         "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API",
         "cudaErrorLaunchMaxDepthExceeded",
         "cudaErrorSyncDepthExceeded",
         "cudaErrorLaunchPendingCountExceeded",
         "CUDA_ERROR_CDP_NOT_SUPPORTED",
         "cudaErrorCdpNotSupported",
         "CUDA_ERROR_CDP_VERSION_MISMATCH",
         "cudaErrorCdpVersionMismatch",
         "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC",
         "cudaErrorUnsupportedDevSideSync",
         "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY",
         "cudaErrorUnsupportedExecAffinity",
         "CUDA_ERROR_UNSUPPORTED_LIMIT",
         "cudaErrorUnsupportedLimit",
         "CUDA_ERROR_JIT_COMPILATION_DISABLED",
         "cudaErrorJitCompilationDisabled",
         "cudaErrorMixedDeviceExecution",
         "cudaErrorNotYetImplemented"},
        // The profiler's state.
        {"CUDA_ERROR_PROFILER_DISABLED",
         "cudaErrorProfilerDisabled",
         "CUDA_ERROR_PROFILER_NOT_INITIALIZED",
         "cudaErrorProfilerNotInitialized",
         "CUDA_ERROR_PROFILER_ALREADY_STARTED",
         "cudaErrorProfilerAlreadyStarted",
         "CUDA_ERROR_PROFILER_ALREADY_STOPPED",
         "cudaErrorProfilerAlreadyStopped"},
        // An operation or a problem shape the library does not offer: the program must choose
        // another (cuDNN's NOT_SUPPORTED family, cuFFT's and cuSOLVER's), or a numerical fact
        // about the data.
        {"CUBLAS_STATUS_NOT_SUPPORTED",
         "CUDNN_STATUS_NOT_SUPPORTED",
         "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN",
         "CUDNN_STATUS_NOT_SUPPORTED_SHAPE",
         "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE",
         "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT",
         "CUDNN_STATUS_NOT_SUPPORTED_PADDING",
         "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM",
         "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE",
         "CUDNN_STATUS_RUNTIME_FP_OVERFLOW",
         "CUFFT_NOT_IMPLEMENTED",
         "CUFFT_NOT_SUPPORTED",
         "CUSOLVER_STATUS_NOT_SUPPORTED",
         "CUSOLVER_STATUS_ZERO_PIVOT",
         "CUSPARSE_STATUS_NOT_SUPPORTED",
         "CUSPARSE_STATUS_ZERO_PIVOT",
         "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
         "CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED",
         "CUSOLVER_STATUS_IRS_PARAMS_INVALID",
         "CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC",
         "CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE",
         "CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER",
         "CUSOLVER_STATUS_IRS_NOT_SUPPORTED",
         "CUSOLVER_STATUS_IRS_OUT_OF_RANGE",
         "CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES",
         "CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED",
         "CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED",
         "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR"},
        // A library's own internal failure with no environment reading of its own (the report
        // around it decides: the rows for the CUDA status that follows it, or for the call it
        // names), and licences of products the doctor does not cover (vGPU, early cuDNN and
        // cuSOLVER builds).
        {"CUBLAS_STATUS_INTERNAL_ERROR",
         "CUFFT_INTERNAL_ERROR",
         "CUFFT_EXEC_FAILED",
         "CUFFT_SETUP_FAILED",
         "CUFFT_NVSHMEM_FAILURE",
         "CUSOLVER_STATUS_EXECUTION_FAILED",
         "CUSOLVER_STATUS_INTERNAL_ERROR",
         "CUSOLVER_STATUS_IRS_INTERNAL_ERROR",
         "CUSPARSE_STATUS_EXECUTION_FAILED",
         "CUSPARSE_STATUS_INTERNAL_ERROR",
         "CURAND_STATUS_LAUNCH_FAILURE",
         "CURAND_STATUS_INITIALIZATION_FAILED",
         "CURAND_STATUS_INTERNAL_ERROR",
         "NVRTC_ERROR_INTERNAL_ERROR",
         "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
         "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
         "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED",
         "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED",
         "NVRTC_ERROR_PCH_CREATE",
         "CUBLAS_STATUS_LICENSE_ERROR",
         "CUDNN_STATUS_LICENSE_ERROR",
         "CUSOLVER_STATUS_INVALID_LICENSE",
         "CUDA_ERROR_DEVICE_NOT_LICENSED",
         "cudaErrorDeviceNotLicensed",
         "cudaErrorStartupFailure"},
        // MPS limits an administrator set, and an MPS server that ended the client.
        {"CUDA_ERROR_MPS_RPC_FAILURE",
         "cudaErrorMpsRpcFailure",
         "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED",
         "cudaErrorMpsMaxClientsReached",
         "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
         "cudaErrorMpsMaxConnectionsReached",
         "CUDA_ERROR_MPS_CLIENT_TERMINATED",
         "cudaErrorMpsClientTerminated"},
        // Words shared with many other causes: "operation not permitted", "not supported".
        {"CUDA_ERROR_NOT_PERMITTED", "cudaErrorNotPermitted"},
    };
    for (const auto& g : groups) {
      out.insert(g.begin(), g.end());
    }
    return out;
  }();
  return s;
}

struct StatusHeader {
  const char* file;
  const char* prefix;
};

TEST(CudaStatuses, EveryStatusOfTheInstalledHeadersIsDecided) {
  const std::filesystem::path include = cuda_include();
  if (!std::filesystem::exists(include / "cuda.h")) {
    GTEST_SKIP() << "no CUDA toolkit headers at " << include;
  }
  const std::vector<StatusHeader> headers = {{"cuda.h", "CUDA_ERROR_"},
                                             {"driver_types.h", "cudaError"},
                                             {"cublas_api.h", "CUBLAS_STATUS_"},
                                             {"cudnn_graph.h", "CUDNN_STATUS_"},
                                             {"cufft.h", "CUFFT_"},
                                             {"curand.h", "CURAND_STATUS_"},
                                             {"cusolver_common.h", "CUSOLVER_STATUS_"},
                                             {"cusparse.h", "CUSPARSE_STATUS_"},
                                             {"nvrtc.h", "NVRTC_"}};
  // cuFFT's transform types share its prefix; the deprecated aliases of cuDNN 8's names are
  // read through the status they alias.
  const std::set<std::string> not_statuses = {"CUFFT_R2C",
                                              "CUFFT_C2R",
                                              "CUFFT_C2C",
                                              "CUFFT_D2Z",
                                              "CUFFT_Z2D",
                                              "CUFFT_Z2Z",
                                              "CUFFT_COMPATIBILITY_FFTW_PADDING",
                                              "cudaErrorApiFailureBase"};
  std::size_t read = 0;
  for (const StatusHeader& h : headers) {
    if (!std::filesystem::exists(include / h.file)) {
      continue; // cuDNN's header lives elsewhere on some installs
    }
    for (const auto& [name, value] : enumerators(include / h.file, h.prefix)) {
      if (not_statuses.count(name) != 0) {
        continue;
      }
      ++read;
      const bool program = program_statuses().count(name) != 0;
      EXPECT_NE(names_a_cause(in_report(name)), program)
          << name << " (" << value << ", " << h.file << "): "
          << (program ? "listed as the program's own, but explain names a cause"
                      : "no cause named and not listed as the program's own");
    }
  }
  EXPECT_GT(read, 300U);
}

TEST(CudaStatuses, TheRuntimeAndDriverNamesOfOneCodeAgree) {
  const std::filesystem::path include = cuda_include();
  if (!std::filesystem::exists(include / "cuda.h")) {
    GTEST_SKIP() << "no CUDA toolkit headers at " << include;
  }
  // The runtime and the driver API number most statuses alike; where they do, the two names are
  // one status and get one answer. Code 3 differs: the runtime's "initialization error" is a
  // failed start, the driver's CUDA_ERROR_NOT_INITIALIZED a program that never called cuInit.
  std::map<long, std::string> driver;
  for (const auto& [name, value] : enumerators(include / "cuda.h", "CUDA_ERROR_")) {
    driver.emplace(value, name);
  }
  for (const auto& [name, value] : enumerators(include / "driver_types.h", "cudaError")) {
    const auto d = driver.find(value);
    if (d == driver.end() || value == 3 || value == 0) {
      continue;
    }
    EXPECT_EQ(names_a_cause(in_report(name)), names_a_cause(in_report(d->second)))
        << name << " and " << d->second;
  }
}

TEST(NvmlStatuses, EachStatusGetsOneAnswerInEveryToolsWording) {
  // NVML's statuses as nvmlErrorString words them (libnvidia-ml 535.261.03), with whether
  // explain names a cause for them; each is read in the wording of NVML's own callers:
  // nvidia-smi and libraries ("Failed to initialize NVML: "), the container toolkit
  // ("nvml error: ", in lower case), and pynvml (its exception and message).
  struct Status {
    const char* text;
    bool cause;
  };
  const std::vector<Status> statuses = {{"Uninitialized", false},
                                        {"Invalid Argument", false},
                                        {"Insufficient Permissions", true},
                                        {"Already Initialized", false},
                                        {"Insufficient Size", false},
                                        {"Insufficient External Power", true},
                                        {"Driver Not Loaded", true},
                                        {"NVML Shared Library Not Found", true},
                                        {"Function Not Found", true},
                                        {"Corrupted infoROM", true},
                                        {"GPU is lost", true},
                                        {"GPU requires reset", true},
                                        {"GPU access blocked by the operating system", true},
                                        {"Driver/library version mismatch", true},
                                        {"In use by another client", false},
                                        {"Insufficient Memory", false},
                                        {"No data", false},
                                        {"Argument version mismatch", false},
                                        {"System is not in ready state", true},
                                        {"Unknown Error", true}};
  for (const Status& s : statuses) {
    std::string lower = s.text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
      return static_cast<char>(std::tolower(c));
    });
    for (const std::string& line :
         {std::string("Failed to initialize NVML: ") + s.text,
          "nvidia-container-cli: initialization error: nvml error: " + lower + ": unknown",
          std::string("pynvml.nvml.NVMLError: ") + s.text}) {
      EXPECT_EQ(names_a_cause(line), s.cause) << line;
    }
  }
}

TEST(NcclStatuses, EveryResultOfTheInstalledNcclIsDecided) {
  const std::filesystem::path header = cuda_include() / "nccl.h";
  if (!std::filesystem::exists(header)) {
    GTEST_SKIP() << "no NCCL header at " << header;
  }
  // ncclGetErrorString's words for each result (NCCL 2.28.9), and whether explain names a
  // cause for it. Invalid arguments and usage, an operation still in progress and NCCL's own
  // internal error are the calling program's or NCCL's, not the machine's.
  struct Result {
    const char* text;
    bool cause;
  };
  const std::map<std::string, Result> results = {
      {"ncclUnhandledCudaError",
       {"unhandled cuda error (run with NCCL_DEBUG=INFO for details)", true}},
      {"ncclSystemError", {"unhandled system error (run with NCCL_DEBUG=INFO for details)", true}},
      {"ncclInternalError",
       {"internal error - please report this issue to the NCCL developers", false}},
      {"ncclInvalidArgument", {"invalid argument (run with NCCL_DEBUG=WARN for details)", false}},
      {"ncclInvalidUsage", {"invalid usage (run with NCCL_DEBUG=WARN for details)", false}},
      {"ncclRemoteError", {"remote process exited or there was a network error", true}},
      {"ncclInProgress", {"NCCL operation in progress", false}}};
  // Only ncclResult_t's enumerators: data types and reduction operators share the prefix.
  std::ifstream in(header);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const std::size_t end = s.find("} ncclResult_t;");
  ASSERT_NE(end, std::string::npos) << "no ncclResult_t in " << header;
  const std::size_t begin = s.rfind("typedef enum", end);
  ASSERT_NE(begin, std::string::npos);
  const std::string block = s.substr(begin, end - begin);
  const std::regex re("\\b(nccl\\w+)\\s*=\\s*(\\d+)");
  std::size_t read = 0;
  for (auto it = std::sregex_iterator(block.begin(), block.end(), re); it != std::sregex_iterator();
       ++it) {
    const std::string name = (*it)[1].str();
    const std::string value = (*it)[2].str();
    if (name == "ncclSuccess" || name == "ncclNumResults") {
      continue;
    }
    ++read;
    const auto r = results.find(name);
    ASSERT_NE(r, results.end()) << name << " (" << value << "): a result not decided here";
    // As PyTorch's ProcessGroupNCCL and as nccl-tests report it.
    for (const std::string& line :
         {std::string("torch.distributed.DistBackendError: NCCL error in: "
                      "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, ")
              + r->second.text + ", NCCL version 2.18.6",
          std::string("NCCL failure common.cu:908 '") + r->second.text + "'"}) {
      EXPECT_EQ(names_a_cause(line), r->second.cause) << name << ": " << line;
    }
  }
  EXPECT_EQ(read, results.size());
}

TEST(NcclStatuses, TheCudaErrorNcclReportsBeforeItIsTheCause) {
  // Alone, NCCL's "unhandled cuda error" reads as an NCCL built for another CUDA; the CUDA error
  // NCCL_DEBUG prints before it (a driver too old, no kernel image) is the cause instead.
  const std::string nccl =
      "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:31, unhandled cuda "
      "error, NCCL version 2.7.8\n";
  EXPECT_EQ(first_cause(nccl), "log.nccl_cuda_call_failed");
  EXPECT_EQ(first_cause("NCCL WARN Cuda failure 'CUDA driver version is insufficient for CUDA "
                        "runtime version'\n"
                        + nccl),
            "log.driver_too_old");
  EXPECT_EQ(first_cause("NCCL WARN Cuda failure 'no kernel image is available for execution on "
                        "the device'\n"
                        + nccl),
            "log.gpu_arch_not_in_build");
}

} // namespace
} // namespace doctor::explain
