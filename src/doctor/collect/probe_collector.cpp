// SPDX-License-Identifier: MIT
#include <doctor/collect/machine_checks.hpp>
#include <doctor/collect/probe_runs.hpp>
#include <doctor/collect/smartctl.hpp>
#include <doctor/collect/sysroot_probe.hpp>
#include <doctor/collect/whea.hpp>
#include <doctor/collect/windows_probe.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/loader/linux_search.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/probe/children.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr std::size_t k_max_report = std::size_t{256} * 1024;
constexpr std::size_t k_max_searched = 64; // paths listed for a library not found

constexpr std::string_view k_library_probes[] = {"cuda", "cudnn", "cublas"};

// Whether `soname` is the library probe `probe` loads: the driver's libcuda.so.1, cuDNN's
// dispatcher libcudnn.so.N (not a sub-library such as libcudnn_ops.so.9), cuBLAS's libcublas.so.N
// (not libcublasLt).
bool is_probe_library(std::string_view probe, std::string_view soname) {
  if (probe == "cuda") {
    return soname == "libcuda.so.1";
  }
  const std::string prefix = probe == "cudnn" ? "libcudnn.so." : "libcublas.so.";
  return soname.starts_with(prefix) && soname.size() > prefix.size();
}

// Whether the Windows DLL `dll` (a bare name or a path, any case) is the one probe `probe` loads:
// the driver's nvcuda.dll, cuDNN's dispatcher cudnn64_N.dll (not cudnn_ops64_9.dll), cuBLAS's
// cublas64_NN.dll (not cublasLt64_12.dll).
bool is_probe_dll(std::string_view probe, std::string_view dll) {
  const std::string name = util::to_lower(loader::windows_file_name(dll));
  if (probe == "cuda") {
    return name == "nvcuda.dll";
  }
  const std::string prefix = probe == "cudnn" ? "cudnn64_" : "cublas64_";
  if (!name.starts_with(prefix) || !name.ends_with(".dll")) {
    return false;
  }
  const std::string_view digits =
      std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - 4);
  return !digits.empty()
         && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The names a program asks for, newest first: cuDNN's majors found on the machine, then 9 and 8;
// Linux sonames, or Windows DLL names.
std::vector<std::string> default_names(std::string_view probe, const Facts& facts, bool windows) {
  if (probe == "cuda") {
    return {windows ? "nvcuda.dll" : "libcuda.so.1"};
  }
  if (probe == "cublas") {
    if (windows) {
      return {"cublas64_13.dll", "cublas64_12.dll", "cublas64_11.dll"};
    }
    return {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
  }
  std::set<unsigned, std::greater<>> majors{9, 8};
  for (const CudnnInstall& c : facts.cudnn) {
    if (c.major >= 7 && c.major <= 99) {
      majors.insert(c.major);
    }
  }
  std::vector<std::string> names;
  names.reserve(majors.size());
  for (const unsigned m : majors) {
    names.push_back(windows ? fmt::format("cudnn64_{}.dll", m) : fmt::format("libcudnn.so.{}", m));
  }
  return names;
}

ProbeLibrary from_resolution(const loader::Resolution& r, const std::string& context) {
  ProbeLibrary lib;
  lib.name = r.name;
  lib.context = context;
  if (r.chosen) {
    lib.path = r.chosen->path;
    if (r.chosen->real_path != r.chosen->path) {
      lib.real_path = r.chosen->real_path;
    }
    lib.found_via = std::string(loader::to_string(r.chosen->via));
    return lib;
  }
  for (const loader::SearchStep& s : r.steps) {
    if (lib.searched.size() < k_max_searched) {
      lib.searched.push_back(
          fmt::format("{}{}: {}{}",
                      s.path,
                      s.path.empty() ? loader::to_string(s.via)
                                     : fmt::format(" ({})", loader::to_string(s.via)),
                      s.outcome,
                      s.count > 1 ? fmt::format(" (and {} more)", s.count - 1) : std::string()));
    }
  }
  if (!r.fatal_message.empty()) {
    lib.searched.push_back(r.fatal_message);
  }
  return lib;
}

// The first of `names` (never empty) that `resolve` finds, described as loaded by `context`; when
// none is found, the first name's search, which lists every place considered.
template<typename Resolve>
ProbeLibrary
first_found(const std::vector<std::string>& names, const std::string& context, Resolve resolve) {
  std::optional<ProbeLibrary> first;
  for (const std::string& name : names) {
    ProbeLibrary lib = from_resolution(resolve(name), context);
    if (!lib.path.empty()) {
      return lib;
    }
    if (!first) {
      first = std::move(lib);
    }
  }
  return *first;
}

// A run that did not start a child, and why.
ProbeRun not_run(std::string_view probe,
                 const ProbeLibrary& lib,
                 const std::string& status,
                 const std::string& why) {
  ProbeRun run;
  run.probe = std::string(probe);
  run.library = lib;
  run.status = status;
  run.detail = why;
  run.version = Fact<std::string>::unknown(why);
  run.runtime_version = Fact<std::string>::unknown(why);
  run.devices = Fact<std::vector<ProbeDevice>>::unknown(why);
  run.child = Fact<ProbeChild>::unknown(why);
  return run;
}

// The Windows counterpart of choose_probe_library's search: what the first loading context of the
// Windows model (a framework's own folder such as torch\lib, then a program loading cuDNN and
// nvcuda.dll by name) loads, else LoadLibraryW by name in a program started with this machine's
// PATH (KnownDLLs, the application directory, System32, System, Windows, PATH).
ProbeLibrary choose_probe_dll(std::string_view probe,
                              const Facts& facts,
                              const kb::KnowledgeBase& kb,
                              loader::FileProbe& files) {
  for (const loader::WindowsLoadContext& ctx : loader::analyse_windows(facts, kb, files)) {
    for (const loader::WindowsLoadStep& step : ctx.steps) {
      if (is_probe_dll(probe, step.resolution.name) && step.resolution.chosen
          && step.resolution.fatal_error == 0) {
        return from_resolution(step.resolution, ctx.description);
      }
    }
  }
  const loader::WindowsLoaderConfig config = loader::windows_config_from(facts);
  return first_found(
      default_names(probe, facts, true),
      "a program started with this machine's PATH (LoadLibraryW by name)",
      [&](const std::string& name) { return loader::resolve_windows(name, {}, config, files); });
}

} // namespace

std::unique_ptr<loader::FileProbe> probe_file_probe(const platform::SysRoot& root,
                                                    const Facts& facts) {
  if (root.os() == platform::OsFamily::windows) {
    return std::make_unique<WindowsProbe>(root, facts);
  }
  return std::make_unique<SysRootProbe>(root);
}

std::span<const std::string_view> library_probes() {
  return k_library_probes;
}

ProbeLibrary choose_probe_library(std::string_view probe,
                                  const Facts& facts,
                                  const kb::KnowledgeBase& kb,
                                  loader::FileProbe& files,
                                  const std::string& override_path) {
  if (!override_path.empty()) {
    ProbeLibrary lib;
    lib.name = override_path;
    lib.path = override_path;
    lib.found_via = "--lib";
    lib.context = "named on the command line";
    return lib;
  }
  if (facts.collection.os_family == "windows") {
    return choose_probe_dll(probe, facts, kb, files);
  }
  // What a framework (or another loading context of the model) loads comes first.
  for (const loader::LoadContext& ctx : loader::analyse_linux(facts, kb, files)) {
    for (const loader::LoadStep& step : ctx.steps) {
      if (is_probe_library(probe, step.resolution.name) && step.resolution.chosen) {
        return from_resolution(step.resolution, ctx.description);
      }
    }
  }
  const loader::LinuxLoaderConfig config = loader::linux_config_from(facts);
  return first_found(
      default_names(probe, facts, false),
      "a program without RPATH or RUNPATH (the default search)",
      [&](const std::string& name) { return loader::resolve_linux(name, {}, config, files); });
}

void collect_probes(const platform::SysRoot& root,
                    const CollectOptions& options,
                    const kb::KnowledgeBase& kb,
                    const std::map<std::string, std::string>& overrides,
                    Facts& facts) {
  facts.probe.ran = true;
  facts.probe.runs.clear();
  const std::unique_ptr<loader::FileProbe> files = probe_file_probe(root, facts);
  for (const std::string_view probe : k_library_probes) {
    const auto o = overrides.find(std::string(probe));
    const std::string override_path = o == overrides.end() ? std::string() : o->second;
    const ProbeLibrary lib = choose_probe_library(probe, facts, kb, *files, override_path);
    if (lib.path.empty()) {
      facts.probe.runs.push_back(
          not_run(probe,
                  lib,
                  "library_not_found",
                  fmt::format("the loader finds no {} ({} places considered){}",
                              lib.name,
                              lib.searched.size(),
                              probe == "cuda" ? ": no NVIDIA driver's user-space library is "
                                                "installed or visible here"
                                              : "")));
      continue;
    }
    if (!root.is_live() || options.self_executable.empty()) {
      facts.probe.runs.push_back(
          not_run(probe,
                  lib,
                  "not_run",
                  root.is_live() ? "the doctor's own executable is unknown, so no probe child"
                                 : "the probes run the running machine's libraries; not in a "
                                   "--sysroot tree"));
      continue;
    }
    auto result = probe::run_child(
        probe, options.self_executable, lib.path, options.probe_timeout, k_max_report);
    facts.probe.runs.push_back(result ? probe_run_from_report(probe, lib, *result)
                                      : not_run(probe,
                                                lib,
                                                "not_run",
                                                fmt::format("the probe could not be started: {}",
                                                            result.error().message)));
  }
  // The host's disks, the guide's disk advice: smartctl, a child of its own with a time limit;
  // the hardware errors the processor reported: WHEA's on Windows, the kernel's machine checks
  // on Linux.
  collect_disk_health(root, options.probe_timeout, facts);
  collect_whea(root, facts);
  collect_machine_checks(root, facts);
}

} // namespace doctor::collect
