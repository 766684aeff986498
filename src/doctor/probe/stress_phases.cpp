// SPDX-License-Identifier: MIT
#include <doctor/probe/cublas_api.hpp>
#include <doctor/probe/reference.hpp>
#include <doctor/probe/stress_phases.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace doctor::probe {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t k_mib = std::size_t{1} << 20;
constexpr std::size_t k_max_chunk = std::size_t{1} << 30; // the memory test's allocations
constexpr std::size_t k_min_chunk = k_mib;
constexpr unsigned k_max_log = 16;       // errors logged with address and values, per verify
constexpr std::size_t k_max_report = 16; // errors kept in the report in all
constexpr unsigned k_threads = 256;
constexpr unsigned k_max_blocks = 8192;
constexpr std::uint64_t k_no_injection = ~std::uint64_t{0};
constexpr std::size_t k_reference_samples = 256; // GEMM elements checked on the CPU

// One write-and-verify pass of the memory test: mode as in stress_kernels.cu (0 the value, 1 own
// address xor value, 2 seeded random xor value).
struct Pattern {
  std::string name;
  unsigned mode;
  unsigned value;
  unsigned seed;
};

std::vector<Pattern> memory_patterns(const StressPlan& plan) {
  const bool quick = plan.level == "quick";
  std::vector<Pattern> out;
  for (unsigned bit = 0; bit < 32; bit += quick ? 8 : 1) {
    out.push_back({"walking_ones", 0, 1U << bit, 0});
  }
  for (unsigned bit = 0; bit < 32; bit += quick ? 8 : 1) {
    out.push_back({"walking_zeros", 0, ~(1U << bit), 0});
  }
  out.push_back({"own_address", 1, 0, 0});
  if (!quick) {
    out.push_back({"own_address", 1, 0xFFFFFFFFU, 0});
  }
  constexpr unsigned k_inversions[] = {0x00000000U, 0x55555555U, 0x0F0F0F0FU};
  for (unsigned v : k_inversions) {
    out.push_back({"moving_inversions", 0, v, 0});
    out.push_back({"moving_inversions", 0, ~v, 0});
    if (quick) {
      break;
    }
  }
  for (unsigned i = 0; i < (quick ? 1U : 4U); ++i) {
    out.push_back({"random", 2, 0, plan.seed + i});
  }
  return out;
}

unsigned passes(const StressPlan& plan) {
  return plan.level == "long" ? 5 : 1;
}

unsigned blocks_for(std::uint64_t items) {
  return static_cast<unsigned>(
      std::clamp<std::uint64_t>((items + k_threads - 1) / k_threads, 1, k_max_blocks));
}

bool launch(StressCalls& c,
            CuFunction f,
            unsigned gx,
            unsigned gy,
            unsigned bx,
            unsigned by,
            void** params) {
  return !c.failed("cuLaunchKernel",
                   c.table().launch_kernel(f, gx, gy, 1, bx, by, 1, 0, nullptr, params, nullptr));
}

// Device memory freed when the phase ends.
class DeviceBuffers {
public:
  explicit DeviceBuffers(const CudaDriverTable& t)
      : m_t(t) {}
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (CuDevicePtr p : m_ptrs) {
      m_t.mem_free(p);
    }
  }
  // cuMemAlloc_v2's result; the buffer is kept in `out`.
  CuResult allocate(std::size_t bytes, CuDevicePtr& out) {
    const CuResult rc = m_t.mem_alloc(&out, bytes);
    if (rc == k_cuda_success) {
      m_ptrs.push_back(out);
    }
    return rc;
  }

private:
  const CudaDriverTable& m_t;
  std::vector<CuDevicePtr> m_ptrs;
};

// Milliseconds between two events recorded around `work`, or a negative value on failure.
template<typename Work>
double timed(StressCalls& c, Work work) {
  const CudaDriverTable& t = c.table();
  CuEvent start = nullptr;
  CuEvent stop = nullptr;
  if (c.failed("cuEventCreate", t.event_create(&start, 0))
      || c.failed("cuEventCreate", t.event_create(&stop, 0))) {
    return -1;
  }
  float ms = -1;
  if (!c.failed("cuEventRecord", t.event_record(start, nullptr)) && work()
      && !c.failed("cuEventRecord", t.event_record(stop, nullptr))
      && !c.failed("cuEventSynchronize", t.event_synchronize(stop))
      && c.failed("cuEventElapsedTime", t.event_elapsed_time(&ms, start, stop))) {
    ms = -1;
  }
  t.event_destroy(start);
  t.event_destroy(stop);
  return ms;
}

// Whether two results are the same to the last bit (a NaN equals a NaN of the same bits).
bool same_bits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// cuMemGetInfo_v2's free bytes, with "free_before" and "total" recorded in `out`; nullopt when
// the call failed.
std::optional<std::size_t> free_memory(StressCalls& c, Json& out) {
  std::size_t free = 0;
  std::size_t total = 0;
  if (c.failed("cuMemGetInfo_v2", c.table().mem_get_info(&free, &total))) {
    return std::nullopt;
  }
  out["free_before"] = free;
  out["total"] = total;
  return free;
}

Json rate(double bytes, double ms) {
  return ms > 0 ? Json(bytes / (ms / 1000.0)) : Json(nullptr);
}

// The first run of the doctor's SGEMM (`first`, row-major n x n) against cublasSgemm_v2 on the
// same device inputs: row-major C = A B is column-major C^T = B^T A^T, so cuBLAS gets B then A.
// Exact inputs make any summation order exact, so the comparison is bit for bit. A cuBLAS that
// cannot run (no library, no handle) is "skipped" with the reason: it is a second reference,
// not a test of cuBLAS (probe does that).
Json cublas_reference(StressCalls& calls,
                      const StressPlan& plan,
                      CuDevicePtr da,
                      CuDevicePtr db,
                      int n,
                      const std::vector<float>& first) {
  Json out;
  out["library"] = plan.cublas;
  out["mismatches"] = 0;
  const auto not_run = [&](const char* status, std::string detail) {
    out["status"] = status;
    out["detail"] = std::move(detail);
    return out;
  };
  if (plan.cublas.empty()) {
    return not_run("skipped", "the loader finds no libcublas");
  }
  auto lib = platform::DynamicLibrary::open(plan.cublas);
  if (!lib) {
    return not_run("skipped", util::sanitize(lib.error().message, 300));
  }
  CublasTable t;
  Json symbols = Json::array();
  bind_cublas(*lib, t, symbols);
  calls.keep(std::move(*lib));
  if (t.create == nullptr || t.sgemm == nullptr) {
    return not_run("skipped", "the library does not export cublasCreate_v2 and cublasSgemm_v2");
  }
  CublasHandle handle = nullptr;
  if (const CublasStatus rc = t.create(&handle); rc != k_cublas_success) {
    return not_run("skipped",
                   fmt::format("cublasCreate_v2 returned {}", cublas_status(t, rc).dump()));
  }
  const CudaDriverTable& d = calls.table();
  const std::size_t count = static_cast<std::size_t>(n) * n;
  DeviceBuffers buffers(d);
  CuDevicePtr dc = 0;
  if (buffers.allocate(count * 4, dc) != k_cuda_success) {
    return not_run("skipped", "no device memory left for cuBLAS's result");
  }
  const float alpha = 1.0F;
  const float beta = 0.0F;
  if (const CublasStatus rc = t.sgemm(handle,
                                      k_cublas_op_n,
                                      k_cublas_op_n,
                                      n,
                                      n,
                                      n,
                                      &alpha,
                                      device_pointer<float>(db),
                                      n,
                                      device_pointer<float>(da),
                                      n,
                                      &beta,
                                      device_pointer<float>(dc),
                                      n);
      rc != k_cublas_success) {
    return not_run("failed",
                   fmt::format("cublasSgemm_v2 returned {}", cublas_status(t, rc).dump()));
  }
  std::vector<float> ref(count);
  if (calls.failed("cuCtxSynchronize", d.ctx_synchronize())
      || calls.failed("cuMemcpyDtoH_v2", d.memcpy_dtoh(ref.data(), dc, count * 4))) {
    return not_run("failed", "the result of cublasSgemm_v2 could not be read back");
  }
  std::uint64_t mismatches = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!same_bits(ref[i], first[i]) && mismatches++ == 0) {
      out["first_mismatch"] = {
          {"row", i / n}, {"column", i % n}, {"got", first[i]}, {"want", ref[i]}};
    }
  }
  out["status"] = "compared";
  out["detail"] = "";
  out["mismatches"] = mismatches;
  return out;
}

} // namespace

bool StressCalls::failed(const char* function, CuResult rc) {
  if (rc == k_cuda_success) {
    return false;
  }
  if (!m_failure) {
    Json f = cuda_call_result(m_t, rc);
    f["function"] = function;
    m_failure = std::move(f);
  }
  return true;
}

Json memory_phase(StressCalls& calls, const StressKernels& k, const StressPlan& plan) {
  const CudaDriverTable& t = calls.table();
  Json out;
  const std::optional<std::size_t> free = free_memory(calls, out);
  if (!free) {
    return out;
  }
  DeviceBuffers buffers(t);
  CuDevicePtr errors = 0;
  const std::size_t log_bytes = sizeof(std::uint64_t) * 3 * k_max_log;
  if (calls.failed("cuMemAlloc_v2", buffers.allocate(sizeof(std::uint64_t) + log_bytes, errors))) {
    return out;
  }
  const CuDevicePtr log = errors + sizeof(std::uint64_t);
  // Allocate up to 95% of what was free, in chunks of at most 1 GiB, halving a chunk the driver
  // refuses: what remains is for the driver's own use during the run.
  const std::size_t target = *free - *free / 20;
  out["target"] = target;
  std::vector<std::pair<CuDevicePtr, std::size_t>> chunks;
  std::size_t covered = 0;
  std::size_t chunk = std::min(k_max_chunk, target);
  while (covered + k_min_chunk <= target && chunk >= k_min_chunk) {
    const std::size_t bytes = std::min(chunk, target - covered) & ~std::size_t{3};
    CuDevicePtr p = 0;
    const CuResult rc = buffers.allocate(bytes, p);
    if (rc == 2) { // CUDA_ERROR_OUT_OF_MEMORY: try smaller
      chunk /= 2;
      continue;
    }
    if (calls.failed("cuMemAlloc_v2", rc)) {
      return out;
    }
    chunks.emplace_back(p, bytes);
    covered += bytes;
  }
  out["bytes_covered"] = covered;
  out["chunks"] = chunks.size();
  Json patterns = Json::object();
  Json error_log = Json::array();
  std::uint64_t error_count = 0;
  bool inject = plan.inject == "memtest";
  const auto run = [&]() -> double {
    for (unsigned pass = 0; pass < passes(plan); ++pass) {
      for (const Pattern& pat : memory_patterns(plan)) {
        unsigned mode = pat.mode;
        unsigned value = pat.value;
        unsigned seed = pat.seed;
        for (auto& [base, bytes] : chunks) {
          std::uint64_t words = bytes / 4;
          void* params[] = {&base, &words, &mode, &value, &seed};
          if (!launch(calls, k.memtest_write, blocks_for(words), 1, k_threads, 1, params)) {
            return -1;
          }
        }
        std::uint64_t found = 0;
        for (auto& [base, bytes] : chunks) {
          std::uint64_t words = bytes / 4;
          std::uint64_t zero[1 + 3 * k_max_log] = {};
          std::uint64_t injected =
              inject ? std::min<std::uint64_t>(12345, words - 1) : k_no_injection;
          inject = false;
          CuDevicePtr errors_arg = errors;
          CuDevicePtr log_arg = log;
          unsigned max_log = k_max_log;
          void* params[] = {
              &base, &words, &mode, &value, &seed, &errors_arg, &log_arg, &max_log, &injected};
          if (calls.failed("cuMemcpyHtoD_v2", t.memcpy_htod(errors, zero, sizeof zero))
              || !launch(calls, k.memtest_verify, blocks_for(words), 1, k_threads, 1, params)
              || calls.failed("cuMemcpyDtoH_v2", t.memcpy_dtoh(zero, errors, sizeof zero))) {
            return -1;
          }
          found += zero[0];
          for (std::uint64_t e = 0; e < std::min<std::uint64_t>(zero[0], k_max_log); ++e) {
            if (error_log.size() < k_max_report) {
              error_log.push_back({{"address", base + 4 * zero[1 + 3 * e]},
                                   {"pattern", pat.name},
                                   {"expected", zero[2 + 3 * e]},
                                   {"actual", zero[3 + 3 * e]}});
            }
          }
        }
        const std::uint64_t before =
            patterns.contains(pat.name) ? patterns[pat.name].get<std::uint64_t>() : 0;
        patterns[pat.name] = before + found;
        error_count += found;
      }
    }
    return 0;
  };
  const double ms = timed(calls, [&] { return run() == 0; });
  out["passes"] = passes(plan);
  out["patterns"] = patterns;
  out["errors"] = error_count;
  out["error_log"] = error_log;
  if (ms >= 0) {
    out["seconds"] = ms / 1000.0;
  }
  return out;
}

Json gemm_phase(StressCalls& calls, const StressKernels& k, const StressPlan& plan) {
  const CudaDriverTable& t = calls.table();
  Json out;
  const std::optional<std::size_t> free = free_memory(calls, out);
  if (!free) {
    return out;
  }
  // The largest power of two up to the level's size whose three matrices take at most a sixteenth
  // of the free memory.
  int n = plan.level == "quick" ? 2048 : 4096;
  while (n > 16 && std::size_t{3} * 4 * static_cast<std::size_t>(n) * n > *free / 16) {
    n /= 2;
  }
  const int iterations = plan.level == "quick" ? 10 : plan.level == "standard" ? 100 : 1000;
  const std::size_t count = static_cast<std::size_t>(n) * n;
  out["n"] = n;
  out["iterations"] = iterations;
  const std::vector<float> a = test_values(count, plan.seed);
  const std::vector<float> b = test_values(count, plan.seed + 7);
  DeviceBuffers buffers(t);
  CuDevicePtr da = 0;
  CuDevicePtr db = 0;
  CuDevicePtr dc = 0;
  if (calls.failed("cuMemAlloc_v2", buffers.allocate(count * 4, da))
      || calls.failed("cuMemAlloc_v2", buffers.allocate(count * 4, db))
      || calls.failed("cuMemAlloc_v2", buffers.allocate(count * 4, dc))
      || calls.failed("cuMemcpyHtoD_v2", t.memcpy_htod(da, a.data(), count * 4))
      || calls.failed("cuMemcpyHtoD_v2", t.memcpy_htod(db, b.data(), count * 4))) {
    return out;
  }
  // The elements checked against the CPU: spread over the matrix, the first one also the element
  // --inject-fault gemm corrupts (in the first run, so both cross-checks see it).
  std::vector<std::size_t> samples;
  for (std::size_t s = 0; s < k_reference_samples; ++s) {
    samples.push_back((s * 7919 * static_cast<std::size_t>(n) + s * 31 + count / 3) % count);
  }
  std::vector<float> first(count);
  std::vector<float> got(count);
  double kernel_ms = 0;
  std::uint64_t run_mismatches = 0;
  std::uint64_t nan = 0;
  std::uint64_t reference_mismatches = 0;
  Json first_mismatch;
  const unsigned grid = static_cast<unsigned>(n / 16);
  for (int it = 0; it < iterations; ++it) {
    int corrupt = plan.inject == "gemm" && it == 0 ? static_cast<int>(samples.front()) : -1;
    int size = n;
    void* params[] = {&da, &db, &dc, &size, &corrupt};
    const double ms =
        timed(calls, [&] { return launch(calls, k.sgemm, grid, grid, 16, 16, params); });
    std::vector<float>& into = it == 0 ? first : got;
    if (ms < 0 || calls.failed("cuMemcpyDtoH_v2", t.memcpy_dtoh(into.data(), dc, count * 4))) {
      return out;
    }
    kernel_ms += ms;
    for (std::size_t i = 0; i < count; ++i) {
      if (std::isnan(into[i])) {
        ++nan;
      }
      if (it > 0 && !same_bits(into[i], first[i])) {
        if (run_mismatches++ == 0) {
          first_mismatch = {{"check", "runs"},
                            {"iteration", it},
                            {"row", i / n},
                            {"column", i % n},
                            {"got", into[i]},
                            {"want", first[i]}};
        }
      }
    }
  }
  for (std::size_t i : samples) {
    const std::size_t row = i / n;
    const std::size_t col = i % n;
    float want = 0;
    for (std::size_t x = 0; x < static_cast<std::size_t>(n); ++x) {
      want += a[row * n + x] * b[x * n + col]; // exact: multiples of 1/64, |sum| <= n
    }
    if (!same_bits(want, first[i])) {
      if (reference_mismatches++ == 0) {
        first_mismatch = {{"check", "reference"},
                          {"iteration", 0},
                          {"row", row},
                          {"column", col},
                          {"got", first[i]},
                          {"want", want}};
      }
    }
  }
  out["cublas"] = cublas_reference(calls, plan, da, db, n, first);
  out["kernel_seconds"] = kernel_ms / 1000.0;
  const double flops = 2.0 * n * static_cast<double>(n) * n * iterations;
  out["gflops"] = kernel_ms > 0 ? Json(flops / (kernel_ms / 1000.0) / 1e9) : Json(nullptr);
  out["run_mismatches"] = run_mismatches;
  out["reference_checked"] = samples.size();
  out["reference_mismatches"] = reference_mismatches;
  out["nan"] = nan;
  if (!first_mismatch.is_null()) {
    out["first_mismatch"] = first_mismatch;
  }
  return out;
}

Json bandwidth_phase(StressCalls& calls, const StressKernels& k, const StressPlan& plan) {
  const CudaDriverTable& t = calls.table();
  Json out;
  const std::optional<std::size_t> free = free_memory(calls, out);
  if (!free) {
    return out;
  }
  const bool quick = plan.level == "quick";
  const std::size_t device_bytes =
      std::min<std::size_t>(quick ? 512 * k_mib : 2048 * k_mib, *free / 4) & ~std::size_t{15};
  const int repeats = quick ? 5 : 20;
  DeviceBuffers buffers(t);
  CuDevicePtr src = 0;
  CuDevicePtr dst = 0;
  if (calls.failed("cuMemAlloc_v2", buffers.allocate(device_bytes, src))
      || calls.failed("cuMemAlloc_v2", buffers.allocate(device_bytes, dst))) {
    return out;
  }
  std::uint64_t words = device_bytes / 16;
  void* params[] = {&src, &dst, &words};
  const unsigned blocks = blocks_for(words);
  if (!launch(calls, k.copy, blocks, 1, k_threads, 1, params)) { // warm-up
    return out;
  }
  const double dtod = timed(calls, [&] {
    for (int r = 0; r < repeats; ++r) {
      if (!launch(calls, k.copy, blocks, 1, k_threads, 1, params)) {
        return false;
      }
    }
    return true;
  });
  out["device_bytes"] = device_bytes;
  out["device_to_device_bytes_per_s"] = rate(2.0 * device_bytes * repeats, dtod);
  const std::size_t host_bytes =
      std::min<std::size_t>(quick ? 64 * k_mib : 256 * k_mib, device_bytes);
  void* pinned = nullptr;
  std::vector<unsigned char> pageable;
  void* host = nullptr;
  if (t.mem_host_alloc != nullptr && t.mem_host_alloc(&pinned, host_bytes, 0) == k_cuda_success) {
    host = pinned;
  } else {
    pageable.assign(host_bytes, 0);
    host = pageable.data();
  }
  out["host_bytes"] = host_bytes;
  out["pinned"] = pinned != nullptr;
  const int host_repeats = 3;
  const double htod = timed(calls, [&] {
    for (int r = 0; r < host_repeats; ++r) {
      if (calls.failed("cuMemcpyHtoD_v2", t.memcpy_htod(dst, host, host_bytes))) {
        return false;
      }
    }
    return true;
  });
  const double dtoh = timed(calls, [&] {
    for (int r = 0; r < host_repeats; ++r) {
      if (calls.failed("cuMemcpyDtoH_v2", t.memcpy_dtoh(host, src, host_bytes))) {
        return false;
      }
    }
    return true;
  });
  out["host_to_device_bytes_per_s"] = rate(1.0 * host_bytes * host_repeats, htod);
  out["device_to_host_bytes_per_s"] = rate(1.0 * host_bytes * host_repeats, dtoh);
  if (pinned != nullptr) {
    t.mem_free_host(pinned);
  }
  return out;
}

} // namespace doctor::probe
