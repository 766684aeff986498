// SPDX-License-Identifier: MIT
#include <doctor/collect/nvml_report.hpp>
#include <doctor/collect/probe_runs.hpp>
#include <doctor/model/termination.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <utility>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t k_max_probe_text = 300;
constexpr std::size_t k_max_calls = 16;
constexpr std::size_t k_max_computations = 8;
constexpr std::int64_t k_max_probe_devices = 64;

// CUresult values of cuda.h (CUDA 13.0) that say why a probe could not use the GPU.
struct ResultName {
  std::int64_t result;
  std::string_view name;
};
constexpr ResultName k_cuda_results[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICES_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

std::string probe_text(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string()
             ? util::sanitize(j[key].get<std::string>(), k_max_probe_text)
             : std::string();
}

// "9.19.0" from cudnnGetVersion: major * 10000 + minor * 100 + patch since cuDNN 9, major * 1000
// + minor * 100 + patch before (8902 is 8.9.2).
Fact<std::string> cudnn_version(const Json& j) {
  if (!j.contains("version") || !j["version"].is_number_unsigned()) {
    return Fact<std::string>::unknown("the library does not export cudnnGetVersion");
  }
  const auto v = j["version"].get<std::uint64_t>();
  if (v < 1000 || v > 999999) {
    return Fact<std::string>::unknown(
        fmt::format("cudnnGetVersion gave a value out of range: {}", v));
  }
  const std::uint64_t major = v >= 90000 ? v / 10000 : v / 1000;
  const std::uint64_t minor = v >= 90000 ? (v % 10000) / 100 : (v % 1000) / 100;
  return Fact<std::string>::known(fmt::format("{}.{}.{}", major, minor, v % 100),
                                  "cudnn:cudnnGetVersion");
}

// "13.1" from CUDA's 1000 * major + 10 * minor, for CUDA 1.0 to 99.9.
Fact<std::string> cuda_version(const Json& j, const char* key, std::string_view function) {
  if (!j.contains(key)) {
    return Fact<std::string>::unknown(fmt::format("{} gave no version", function));
  }
  const Json& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1000 || v.get<std::int64_t>() > 99990) {
    return Fact<std::string>::unknown(
        fmt::format("{} gave a value out of range: {}", function, v.dump()));
  }
  const auto x = v.get<std::int64_t>();
  return Fact<std::string>::known(fmt::format("{}.{}", x / 1000, (x % 1000) / 10),
                                  fmt::format("{}:{}", "probe", function));
}

// "13.1.0" from cublasGetProperty's three parts.
Fact<std::string> cublas_version(const Json& j) {
  if (!j.contains("version_parts") || !j["version_parts"].is_array()
      || j["version_parts"].size() != 3) {
    return Fact<std::string>::unknown("cublasGetProperty gave no version");
  }
  std::int64_t parts[3] = {0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    const Json& p = j["version_parts"][i];
    if (!p.is_number_integer() || p.get<std::int64_t>() < 0 || p.get<std::int64_t>() > 999) {
      return Fact<std::string>::unknown(
          fmt::format("cublasGetProperty gave a value out of range: {}", p.dump()));
    }
    parts[i] = p.get<std::int64_t>();
  }
  return Fact<std::string>::known(fmt::format("{}.{}.{}", parts[0], parts[1], parts[2]),
                                  "cublas:cublasGetProperty");
}

// A call's result as the child reported it: {"result", "name"?, "text"?}.
std::optional<ProbeCall> call_from(std::string_view function, const Json& c, bool cuda) {
  if (!c.is_object() || !c.contains("result") || !c["result"].is_number_integer()) {
    return std::nullopt;
  }
  ProbeCall call;
  call.function = util::sanitize(function, 80);
  call.result = c["result"].get<std::int64_t>();
  call.name = probe_text(c, "name");
  call.text = probe_text(c, "text");
  call.name_source = "library";
  if (call.name.empty() && cuda) {
    call.name = std::string(cuda_result_name(call.result));
    call.name_source = call.name.empty() ? "" : "doctor";
  }
  return call;
}

std::vector<ProbeCall> calls_from(const Json& j, bool cuda) {
  std::vector<ProbeCall> out;
  if (!j.contains("calls") || !j["calls"].is_object()) {
    return out;
  }
  for (const auto& [function, c] : j["calls"].items()) {
    if (out.size() < k_max_calls) {
      if (auto call = call_from(function, c, cuda)) {
        out.push_back(std::move(*call));
      }
    }
  }
  return out;
}

Fact<std::vector<ProbeDevice>> devices_from(const Json& j) {
  if (!j.contains("device_count")) {
    return Fact<std::vector<ProbeDevice>>::unknown("cuInit or cuDeviceGetCount failed");
  }
  const Json& n = j["device_count"];
  if (!n.is_number_integer() || n.get<std::int64_t>() < 0
      || n.get<std::int64_t>() > k_max_probe_devices) {
    return Fact<std::vector<ProbeDevice>>::unknown(
        fmt::format("cuDeviceGetCount gave a value out of range: {}", n.dump()));
  }
  std::vector<ProbeDevice> devices;
  if (j.contains("devices") && j["devices"].is_array()) {
    for (const Json& d : j["devices"]) {
      if (!d.is_object() || devices.size() >= static_cast<std::size_t>(k_max_probe_devices)) {
        continue;
      }
      ProbeDevice dev;
      dev.index = static_cast<unsigned>(devices.size());
      const std::string name = probe_text(d, "name");
      dev.name = name.empty() ? Fact<std::string>::unknown("cuDeviceGetName failed")
                              : Fact<std::string>::known(name, "cuda:cuDeviceGetName");
      dev.memory_total =
          d.contains("memory_total") && d["memory_total"].is_number_unsigned()
                  && d["memory_total"].get<std::uint64_t>() <= (std::uint64_t{1} << 50)
              ? Fact<std::uint64_t>::known(d["memory_total"].get<std::uint64_t>(),
                                           "cuda:cuDeviceTotalMem_v2")
              : Fact<std::uint64_t>::unknown("cuDeviceTotalMem_v2 failed");
      if (d.contains("context")) {
        if (auto c = call_from("cuCtxCreate_v2", d["context"], true)) {
          dev.context = Fact<ProbeCall>::known(std::move(*c), "cuda:cuCtxCreate_v2");
        }
      } else if (auto c = d.contains("device_get") ? call_from("cuDeviceGet", d["device_get"], true)
                                                   : std::nullopt) {
        dev.context =
            Fact<ProbeCall>::unknown(fmt::format("cuDeviceGet returned {} {}", c->result, c->name));
      } else {
        dev.context = Fact<ProbeCall>::unknown("the library does not export cuCtxCreate_v2");
      }
      devices.push_back(std::move(dev));
    }
  }
  return Fact<std::vector<ProbeDevice>>::known(std::move(devices), "cuda:cuDeviceGetCount");
}

std::vector<ProbeComputation> computations_from(const Json& j) {
  std::vector<ProbeComputation> out;
  if (!j.contains("computations") || !j["computations"].is_array()) {
    return out;
  }
  for (const Json& c : j["computations"]) {
    if (!c.is_object() || out.size() >= k_max_computations) {
      continue;
    }
    ProbeComputation comp;
    comp.name = util::sanitize(probe_text(c, "name"), 60);
    comp.status = probe_text(c, "status");
    if (comp.status != "passed" && comp.status != "mismatch" && comp.status != "skipped"
        && comp.status != "failed") {
      comp.status = "failed";
      comp.detail = "the probe reported no valid status";
    } else {
      comp.detail = probe_text(c, "detail");
    }
    const auto count = [&](const char* key) {
      return c.contains(key) && c[key].is_number_unsigned() ? c[key].get<std::uint64_t>() : 0;
    };
    comp.elements = count("elements");
    comp.mismatches = count("mismatches");
    if (c.contains("max_abs_error") && c["max_abs_error"].is_number()) {
      comp.max_abs_error = fmt::format("{:g}", c["max_abs_error"].get<double>());
    }
    if (comp.status == "mismatch" && c.contains("first_mismatch")) {
      comp.detail =
          fmt::format("first difference {}", util::sanitize(c["first_mismatch"].dump(), 200));
    }
    out.push_back(std::move(comp));
  }
  return out;
}

void unknown_answers(ProbeRun& run, const std::string& why) {
  run.version = Fact<std::string>::unknown(why);
  run.runtime_version = Fact<std::string>::unknown(why);
  run.devices = Fact<std::vector<ProbeDevice>>::unknown(why);
  run.child = Fact<ProbeChild>::unknown(why);
}

} // namespace

std::string_view cuda_result_name(std::int64_t result) {
  for (const ResultName& r : k_cuda_results) {
    if (r.result == result) {
      return r.name;
    }
  }
  return {};
}

ProbeRun probe_run_from_report(std::string_view probe,
                               const ProbeLibrary& library,
                               const platform::ProcessResult& result) {
  ProbeRun run;
  run.probe = std::string(probe);
  run.library = library;
  const auto failed = [&](std::string status, const std::string& detail) {
    run.status = std::move(status);
    run.detail = detail;
    run.exit_code = result.exit_code;
    run.signal = result.signal;
    run.stderr_tail = util::sanitize(result.err_tail, 4 * k_max_probe_text);
    unknown_answers(run, detail);
    return run;
  };
  if (result.timed_out) {
    return failed("timed_out",
                  fmt::format("the {} probe did not answer within the time limit and was killed "
                              "with its whole session (a hung call in {})",
                              probe,
                              library.path));
  }
  if (result.signaled) {
    return failed("crashed",
                  fmt::format("the {} probe was killed by {} inside {}",
                              probe,
                              facts::termination_name(result.signal),
                              library.path));
  }
  if (!result.exited || result.exit_code != 0 || !result.answered) {
    return failed("exited",
                  fmt::format("the {} probe exited with status {} without a report",
                              probe,
                              result.exit_code));
  }
  const auto j = Json::parse(result.out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return failed("no_answer", fmt::format("the {} probe printed no readable report", probe));
  }
  run.child = child_from_report(j);
  if (j.contains("library_error")) {
    const std::string why =
        fmt::format("{} cannot be loaded: {}", library.path, probe_text(j, "library_error"));
    run.status = "library_not_loaded";
    run.detail = why;
    const Fact<ProbeChild> child = run.child;
    unknown_answers(run, why);
    run.child = child;
    return run;
  }
  run.status = "answered";
  run.loaded = probe_text(j, "loaded");
  run.detail = probe_text(j, "error");
  const bool cuda = probe == "cuda";
  run.calls = calls_from(j, cuda);
  run.computations = computations_from(j);
  run.devices = Fact<std::vector<ProbeDevice>>::unknown("only the driver API lists devices");
  run.runtime_version = Fact<std::string>::unknown("only cuDNN names the CUDA runtime it uses");
  if (cuda) {
    run.version = cuda_version(j, "version", "cuDriverGetVersion");
    run.devices = devices_from(j);
  } else if (probe == "cudnn") {
    run.version = cudnn_version(j);
    run.runtime_version = cuda_version(j, "runtime_version", "cudnnGetCudartVersion");
  } else {
    run.version = cublas_version(j);
  }
  return run;
}

} // namespace doctor::collect
