// SPDX-License-Identifier: MIT
#include <doctor/collect/nvml_report.hpp>
#include <doctor/collect/probe_runs.hpp>
#include <doctor/collect/stress_run.hpp>
#include <doctor/loader/file_probe.hpp>
#include <doctor/model/termination.hpp>
#include <doctor/probe/children.hpp>
#include <doctor/probe/stress_child.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t k_max_stress_text = 300;
constexpr std::size_t k_max_log = 16;
constexpr std::size_t k_max_stress_report = std::size_t{256} * 1024;
constexpr std::uint64_t k_max_bytes = std::uint64_t{1} << 50; // 1 PiB: beyond any GPU
constexpr std::chrono::milliseconds k_nvml_timeout{10000};

std::string text(const Json& j, const char* key, std::size_t max = k_max_stress_text) {
  return j.is_object() && j.contains(key) && j[key].is_string()
             ? util::sanitize(j[key].get<std::string>(), max)
             : std::string();
}

std::optional<std::uint64_t>
count(const Json& j, const char* key, std::uint64_t max = k_max_bytes) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_unsigned()) {
    return std::nullopt;
  }
  const auto v = j[key].get<std::uint64_t>();
  return v <= max ? std::optional(v) : std::nullopt;
}

std::optional<double> positive(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) {
    return std::nullopt;
  }
  const double v = j[key].get<double>();
  return v > 0 && v < 1e18 ? std::optional(v) : std::nullopt;
}

std::optional<ProbeCall> call_from(std::string_view function, const Json& c) {
  if (!c.is_object() || !c.contains("result") || !c["result"].is_number_integer()) {
    return std::nullopt;
  }
  ProbeCall call;
  call.function = util::sanitize(function, 80);
  call.result = c["result"].get<std::int64_t>();
  call.name = text(c, "name");
  call.text = text(c, "text");
  call.name_source = "library";
  if (call.name.empty()) {
    call.name = std::string(cuda_result_name(call.result));
    call.name_source = call.name.empty() ? "" : "doctor";
  }
  return call;
}

std::string call_text(const ProbeCall& c) {
  return fmt::format(
      "{} returned {}{}", c.function, c.result, c.name.empty() ? "" : " (" + c.name + ")");
}

StressMemory memory_from(const Json& m) {
  StressMemory out;
  out.free_before = count(m, "free_before").value_or(0);
  out.total = count(m, "total").value_or(0);
  out.bytes_covered = count(m, "bytes_covered").value_or(0);
  out.chunks = count(m, "chunks", 1 << 24).value_or(0);
  out.passes = count(m, "passes", 1000).value_or(0);
  out.errors = count(m, "errors").value_or(0);
  if (m.contains("patterns") && m["patterns"].is_object()) {
    for (const auto& [name, n] : m["patterns"].items()) {
      if (n.is_number_unsigned() && out.pattern_errors.size() < 16) {
        out.pattern_errors.emplace_back(util::sanitize(name, 40), n.get<std::uint64_t>());
      }
    }
  }
  if (m.contains("error_log") && m["error_log"].is_array()) {
    for (const Json& e : m["error_log"]) {
      const auto address = count(e, "address", ~std::uint64_t{0});
      const auto expected = count(e, "expected", 0xFFFFFFFFULL);
      const auto actual = count(e, "actual", 0xFFFFFFFFULL);
      if (address && expected && actual && out.error_log.size() < k_max_log) {
        out.error_log.push_back({*address,
                                 static_cast<std::uint32_t>(*expected),
                                 static_cast<std::uint32_t>(*actual),
                                 text(e, "pattern", 40)});
      }
    }
  }
  out.seconds = positive(m, "seconds");
  return out;
}

StressGemm gemm_from(const Json& g) {
  StressGemm out;
  out.n = count(g, "n", 1 << 20).value_or(0);
  out.iterations = count(g, "iterations", 1 << 30).value_or(0);
  out.gflops = positive(g, "gflops");
  out.run_mismatches = count(g, "run_mismatches").value_or(0);
  out.reference_checked = count(g, "reference_checked").value_or(0);
  out.reference_mismatches = count(g, "reference_mismatches").value_or(0);
  out.nan = count(g, "nan").value_or(0);
  if (g.contains("cublas") && g["cublas"].is_object()) {
    const Json& c = g["cublas"];
    out.cublas_status = text(c, "status", 20);
    if (out.cublas_status != "compared" && out.cublas_status != "skipped") {
      out.cublas_status = "failed";
    }
    out.cublas_detail = text(c, "detail");
    out.cublas_library = text(c, "library");
    out.cublas_mismatches = count(c, "mismatches").value_or(0);
    if (out.cublas_mismatches > 0 && c.contains("first_mismatch")
        && c["first_mismatch"].is_object()) {
      const Json& f = c["first_mismatch"];
      const auto num = [&](const char* key) {
        return f.contains(key) && f[key].is_number() ? fmt::format("{}", f[key].get<double>())
                                                     : std::string("NaN");
      };
      out.cublas_detail = fmt::format("first at row {}, column {}: got {}, cuBLAS {}",
                                      count(f, "row", 1 << 20).value_or(0),
                                      count(f, "column", 1 << 20).value_or(0),
                                      num("got"),
                                      num("want"));
    }
  }
  if (g.contains("first_mismatch") && g["first_mismatch"].is_object()) {
    const Json& f = g["first_mismatch"];
    const auto num = [&](const char* key) {
      return f.contains(key) && f[key].is_number() ? fmt::format("{}", f[key].get<double>())
                                                   : std::string("NaN");
    };
    out.first_mismatch = fmt::format("{} check: run {}, row {}, column {}: got {}, want {}",
                                     text(f, "check", 20),
                                     count(f, "iteration", 1 << 30).value_or(0),
                                     count(f, "row", 1 << 20).value_or(0),
                                     count(f, "column", 1 << 20).value_or(0),
                                     num("got"),
                                     num("want"));
  }
  return out;
}

StressBandwidth bandwidth_from(const Json& b) {
  StressBandwidth out;
  out.device_bytes = count(b, "device_bytes").value_or(0);
  out.host_bytes = count(b, "host_bytes").value_or(0);
  out.pinned = b.contains("pinned") && b["pinned"].is_boolean() && b["pinned"].get<bool>();
  out.device_to_device = positive(b, "device_to_device_bytes_per_s");
  out.host_to_device = positive(b, "host_to_device_bytes_per_s");
  out.device_to_host = positive(b, "device_to_host_bytes_per_s");
  return out;
}

// Why the tests could not start, from cuInit's result.
std::string init_failure(const ProbeCall& init, const ProbeLibrary& lib) {
  const std::string where = lib.real_path.empty() || lib.real_path == lib.path
                                ? lib.path
                                : fmt::format("{} (-> {})", lib.path, lib.real_path);
  switch (init.result) {
  case 34:
    return fmt::format(
        "{} is the CUDA toolkit's link-time stub, not a driver: {}", where, call_text(init));
  case 100:
    return fmt::format("the driver finds no GPU: {}", call_text(init));
  case 35:
  case 36:
    return fmt::format("the driver is too old for this library: {}", call_text(init));
  default:
    return fmt::format("the driver could not start: {}", call_text(init));
  }
}

} // namespace

std::optional<double> pcie_peak_bytes_per_s(std::uint64_t gen, std::uint64_t width) {
  // GT/s per lane and line coding: 8b/10b for 1 and 2, 128b/130b for 3 to 5, 242/256 FLIT for 6.
  constexpr double k_rates[] = {0,
                                2.5 * 8 / 10,
                                5.0 * 8 / 10,
                                8.0 * 128 / 130,
                                16.0 * 128 / 130,
                                32.0 * 128 / 130,
                                64.0 * 242 / 256};
  if (gen < 1 || gen > 6 || width == 0 || width > 64) {
    return std::nullopt;
  }
  return k_rates[gen] * 1e9 / 8 * static_cast<double>(width);
}

StressRun stress_run_from_report(const ProbeLibrary& library,
                                 const platform::ProcessResult& result) {
  StressRun run;
  run.library = library;
  const auto failed = [&](const char* status, std::string detail) {
    run.status = status;
    run.detail = std::move(detail);
    run.exit_code = result.exit_code;
    run.signal = result.signal;
    run.stderr_tail = util::sanitize(result.err_tail, 4 * k_max_stress_text);
    return run;
  };
  if (result.timed_out) {
    return failed("timed_out",
                  fmt::format("the stress child did not finish within the time limit and was "
                              "killed with its whole session (a hung call in {})",
                              library.path));
  }
  if (result.signaled) {
    return failed("crashed",
                  fmt::format("the stress child was killed by {} inside {}",
                              facts::termination_name(result.signal),
                              library.path));
  }
  if (!result.exited || result.exit_code != 0 || !result.answered) {
    return failed(
        "no_answer",
        fmt::format("the stress child exited with status {} without a report", result.exit_code));
  }
  const auto j = Json::parse(result.out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return failed("no_answer", "the stress child printed no readable report");
  }
  if (j.contains("plan") && j["plan"].is_object()) {
    run.level = text(j["plan"], "level", 20);
    run.inject = text(j["plan"], "inject", 20);
    run.gpu = static_cast<int>(count(j["plan"], "gpu", 1024).value_or(0));
  }
  if (j.contains("library_error")) {
    run.status = "not_run";
    run.detail =
        fmt::format("{} cannot be loaded: {}", library.path, text(j, "library_error", 600));
    return run;
  }
  run.loaded = text(j, "loaded");
  if (j.contains("version") && j["version"].is_number_integer()) {
    run.driver_version = j["version"].get<std::int64_t>();
  }
  if (j.contains("calls") && j["calls"].is_object()) {
    for (const auto& [function, c] : j["calls"].items()) {
      if (auto call = call_from(function, c); call && run.calls.size() < 8) {
        run.calls.push_back(std::move(*call));
      }
    }
  }
  const auto init = std::find_if(run.calls.begin(), run.calls.end(), [](const ProbeCall& c) {
    return c.function == "cuInit";
  });
  if (init == run.calls.end()) {
    run.status = "not_run";
    run.detail = text(j, "error").empty() ? std::string("cuInit was not called") : text(j, "error");
    return run;
  }
  if (init->result != 0) {
    run.status = "not_run";
    run.detail = init_failure(*init, library);
    return run;
  }
  if (j.contains("device") && j["device"].is_object()) {
    run.device_name = text(j["device"], "name", 200);
    run.device_memory = count(j["device"], "memory_total").value_or(0);
  }
  if (j.contains("failed_call")) {
    run.failed_call = call_from(text(j["failed_call"], "function", 80), j["failed_call"]);
    run.failed_phase = text(j, "failed_phase", 20);
  }
  if (!text(j, "error").empty()) {
    run.status = "not_run";
    run.detail = text(j, "error");
    return run;
  }
  if (run.failed_call && (run.failed_phase.empty() || run.failed_phase == "setup")) {
    run.status = "not_run";
    run.detail = fmt::format("the tests could not start: {}", call_text(*run.failed_call));
    return run;
  }
  if (j.contains("memory") && j["memory"].is_object()) {
    run.memory = memory_from(j["memory"]);
  }
  if (j.contains("gemm") && j["gemm"].is_object()) {
    run.gemm = gemm_from(j["gemm"]);
  }
  if (j.contains("bandwidth") && j["bandwidth"].is_object()) {
    run.bandwidth = bandwidth_from(j["bandwidth"]);
  }
  run.status = run.failed_call ? "failed" : "completed";
  if (run.failed_call) {
    run.detail =
        fmt::format("during the {} phase {}", run.failed_phase, call_text(*run.failed_call));
  }
  return run;
}

void add_stress_telemetry(StressRun& run, const std::vector<NvmlInfo>& samples, int gpu) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> range;
  std::string why;
  for (const NvmlInfo& s : samples) {
    if (s.status != "ok" || !s.devices) {
      why = s.detail.empty() ? s.status : s.detail;
      continue;
    }
    const NvmlDevice* d = nullptr;
    for (const NvmlDevice& x : *s.devices) {
      if (static_cast<int>(x.index) == gpu) {
        d = &x;
      }
    }
    if (d == nullptr || !d->telemetry) {
      why = fmt::format("NVML lists no GPU {}", gpu);
      continue;
    }
    ++run.telemetry_samples;
    for (const auto& [key, v] : *d->telemetry) {
      auto [it, fresh] = range.try_emplace(key, v, v);
      it->second.first = std::min(it->second.first, v);
      it->second.second = std::max(it->second.second, v);
    }
    if (auto r = d->telemetry->find("clock_event_reasons"); r != d->telemetry->end()) {
      run.clock_event_reasons |= r->second;
    }
  }
  constexpr std::string_view k_summarised[] = {"temperature_c",
                                               "power_draw_mw",
                                               "power_limit_mw",
                                               "clock_graphics_mhz",
                                               "clock_memory_mhz",
                                               "pcie_generation",
                                               "pcie_width"};
  for (std::string_view key : k_summarised) {
    if (auto r = range.find(std::string(key)); r != range.end()) {
      run.telemetry.push_back({std::string(key), r->second.first, r->second.second});
    }
  }
  if (run.telemetry_samples == 0) {
    run.telemetry_note =
        fmt::format("no NVML sample of GPU {}: {}", gpu, why.empty() ? "none taken" : why);
    run.peak_note = fmt::format("no theoretical peak: {}", run.telemetry_note);
    return;
  }
  run.telemetry_note =
      "NVML indexes GPUs by PCI bus, CUDA by CUDA_DEVICE_ORDER (fastest first by "
      "default): on a machine with several GPUs they can differ";
  const auto max_of = [&](const char* key) -> std::optional<std::uint64_t> {
    auto r = range.find(key);
    return r == range.end() ? std::nullopt : std::optional(r->second.second);
  };
  const auto clock = max_of("clock_memory_max_mhz");
  const auto bus = max_of("memory_bus_width_bits");
  if (clock && bus && *clock > 0 && *bus > 0) {
    run.device_peak = static_cast<double>(*clock) * 1e6 * 2 * static_cast<double>(*bus) / 8;
  } else {
    run.peak_note =
        "NVML gave no maximum memory clock or bus width: device bandwidth is "
        "reported without a peak";
  }
  const auto gen = max_of("pcie_generation_max");
  const auto width = max_of("pcie_width_max");
  if (gen && width) {
    run.pcie_peak = pcie_peak_bytes_per_s(*gen, *width);
  }
}

StressRun run_stress(const platform::SysRoot& root,
                     const CollectOptions& options,
                     const kb::KnowledgeBase& kb,
                     const Facts& facts,
                     const StressRequest& request,
                     const StressProgress& progress) {
  StressRun run;
  run.level = request.level;
  run.inject = request.inject;
  run.gpu = request.gpu;
  const std::unique_ptr<loader::FileProbe> files = probe_file_probe(root, facts);
  run.library = choose_probe_library("cuda", facts, kb, *files, request.library_override);
  if (run.library.path.empty()) {
    run.status = "not_run";
    run.detail = fmt::format(
        "the loader finds no {} ({} places considered): no NVIDIA driver's "
        "user-space library is installed or visible here",
        run.library.name,
        run.library.searched.size());
    return run;
  }
  if (options.self_executable.empty()) {
    run.status = "not_run";
    run.detail = "the doctor's own executable is unknown, so no stress child";
    return run;
  }
  probe::StressPlan plan;
  plan.cublas = choose_probe_library("cublas", facts, kb, *files, request.cublas_override).path;
  plan.level = request.level;
  plan.gpu = request.gpu;
  plan.inject = request.inject;
  plan.seed = request.seed;
  const auto started = std::chrono::steady_clock::now();
  std::optional<Expected<platform::ProcessResult>> result;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread child([&] {
    auto r = probe::run_child("stress",
                              options.self_executable,
                              run.library.path,
                              request.timeout,
                              k_max_stress_report,
                              probe::stress_plan_text(plan));
    std::lock_guard<std::mutex> lock(m);
    result = std::move(r);
    done = true;
    cv.notify_all();
  });
  // Sample NVML while the child runs. After a sample without a driver no other is taken: NVML
  // would say the same.
  std::vector<NvmlInfo> samples;
  bool sampling = true;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(m);
      if (done) {
        break;
      }
    }
    if (sampling) {
      auto r = probe::run_child(
          "nvml", options.self_executable, "", k_nvml_timeout, k_max_stress_report);
      if (r) {
        samples.push_back(nvml_facts_from_report(*r));
        sampling = samples.back().status == "ok";
      } else {
        sampling = false;
      }
    }
    if (progress) {
      const std::chrono::duration<double> s = std::chrono::steady_clock::now() - started;
      std::optional<std::uint64_t> temp;
      if (!samples.empty() && samples.back().devices) {
        for (const NvmlDevice& d : *samples.back().devices) {
          if (static_cast<int>(d.index) == request.gpu && d.telemetry
              && d.telemetry->contains("temperature_c")) {
            temp = d.telemetry->at("temperature_c");
          }
        }
      }
      progress(s.count(), temp);
    }
    std::unique_lock<std::mutex> lock(m);
    cv.wait_for(lock, request.sample_every, [&] { return done; });
  }
  child.join();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - started;
  const ProbeLibrary lib = run.library;
  if (!*result) {
    run.status = "not_run";
    run.detail = fmt::format("the stress child could not be started: {}", result->error().message);
  } else {
    run = stress_run_from_report(lib, **result);
  }
  run.level = request.level;
  run.inject = request.inject;
  run.gpu = request.gpu;
  run.seconds = wall.count();
  add_stress_telemetry(run, samples, request.gpu);
  return run;
}

} // namespace doctor::collect
