// SPDX-License-Identifier: MIT
#include <doctor/checks/helpers.hpp>
#include <doctor/explain/machine_join.hpp>
#include <doctor/explain/windows_join.hpp>
#include <doctor/kb/finding_ids.hpp>
#include <doctor/loader/facts_probe.hpp>
#include <doctor/loader/linux_search.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/shell.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

namespace doctor::explain {

namespace {

std::string base_name(std::string_view path) {
  std::size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string dir_name(std::string_view path) {
  std::size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? std::string_view(".")
                                                     : path.substr(0, slash));
}

// Every file the facts know whose name is `lib`.
std::vector<std::string> copies_of(const facts::Facts& facts, std::string_view lib) {
  auto same = [&](std::string_view path) { return base_name(path) == lib; };
  std::set<std::string> out;
  for (const facts::BinaryInfo& b : facts.binaries) {
    if (same(b.path)) {
      out.insert(b.path);
    }
  }
  for (const facts::CudnnInstall& c : facts.cudnn) {
    for (const facts::CudnnLibrary& l : c.libraries) {
      if (same(l.name)) {
        out.insert(c.dir + "/" + l.name);
      }
    }
  }
  for (const facts::ProbedPath& p : facts.probed_paths) {
    if (same(p.path) && p.kind == "regular") {
      out.insert(p.path);
    }
  }
  return {out.begin(), out.end()};
}

const std::string* cause_lib(const ExplainedCause& c) {
  for (const auto& [k, v] : c.fields) {
    if (k == "lib" && !v.empty()) {
      return &v;
    }
  }
  return nullptr;
}

bool is_library_class(CauseClass c) {
  switch (c) {
  case CauseClass::library_missing_cudnn:
  case CauseClass::library_missing_cudnn_sublibrary:
  case CauseClass::library_missing_zlib:
  case CauseClass::library_missing_cuda_runtime:
  case CauseClass::library_missing_msvc_runtime:
    return true;
  default:
    return false;
  }
}

// A note with a command for this machine, rendered for `shell`; where a value in it cannot be
// quoted safely there, the note says why and offers no command.
MachineNote note_with_command(std::string text, const util::Command& command, util::Shell shell) {
  auto line = command.render(shell);
  if (!line) {
    return {fmt::format("{} ({}.)", text, line.error().message), "", true};
  }
  return {std::move(text), std::move(*line), true};
}

// Linux: the library resolved as the glibc loader would, else every copy the facts know.
void join_linux_library(ExplainedCause& c, const std::string& lib, const facts::Facts& facts) {
  loader::FactsProbe probe(facts);
  const loader::Resolution r =
      loader::resolve_linux(lib, {}, loader::linux_config_from(facts), probe);
  if (r.chosen) {
    c.machine.push_back(
        {fmt::format("On this machine {} is found: {} (via {}). The process that failed searched "
                     "elsewhere: another environment, or LD_LIBRARY_PATH set differently.",
                     lib,
                     r.chosen->path,
                     loader::to_string(r.chosen->via)),
         "",
         false});
    return;
  }
  const std::vector<std::string> copies = copies_of(facts, lib);
  if (copies.empty()) {
    c.machine.push_back(
        {fmt::format("No copy of {} exists on this machine (among the places the doctor "
                     "examines): it has to be installed.",
                     lib),
         "",
         true});
    return;
  }
  std::string dir = dir_name(copies.front());
  c.machine.push_back(note_with_command(
      fmt::format("{} is in {}, which the loader does not search for a program without "
                  "RUNPATH (not on LD_LIBRARY_PATH, not in ld.so.cache).",
                  lib,
                  dir),
      util::Command("export LD_LIBRARY_PATH=")
          .value(dir)
          .text("${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"),
      util::Shell::posix));
}

// The DLL a cause on Windows is about: the captured `lib` ("C:\x\cudnn64_8.dll" ->
// "cudnn64_8.dll"), or zlibwapi.dll for a zlib cause; "" when the log names no DLL ("cuDNN").
std::string cause_dll(const ExplainedCause& c) {
  if (const std::string* lib = cause_lib(c)) {
    std::string name = loader::windows_file_name(*lib);
    return util::to_lower(name).ends_with(".dll") ? name : std::string();
  }
  return c.finding.cause_class == CauseClass::library_missing_zlib ? "zlibwapi.dll" : "";
}

std::string machine_driver(const facts::Facts& facts) {
  if (facts.driver.kernel_module_version) {
    return *facts.driver.kernel_module_version;
  }
  if (facts.driver.nvml.driver_version) {
    return *facts.driver.nvml.driver_version;
  }
  return {};
}

std::pair<std::size_t, std::size_t> first_line(const ExplainedCause& c) {
  if (c.lines.empty()) {
    return {static_cast<std::size_t>(-1), 0};
  }
  return {c.lines.front().input, c.lines.front().line};
}

} // namespace

void join_machine(ExplainResult& result,
                  const facts::Facts& facts,
                  const kb::KnowledgeBase& kb,
                  const std::vector<Finding>& machine_findings,
                  const std::string& label) {
  const std::string os = facts.collection.os_family;
  if (!result.log_platform.empty() && result.log_platform != os) {
    auto name = [](const std::string& p) { return p == "windows" ? "Windows" : "Linux"; };
    result.machine = fmt::format(
        "not joined: the log comes from a {} machine, the {} machine "
        "runs {}",
        name(result.log_platform),
        label,
        name(os));
    result.machine_joined = false;
    return;
  }
  result.machine = label;
  result.machine_joined = true;
  const bool windows = os == "windows";
  // The Windows loader walk, when first needed.
  std::shared_ptr<const std::vector<loader::WindowsLoadContext>> windows_contexts;
  for (ExplainedCause& c : result.causes) {
    const CauseClass cls = c.finding.cause_class;
    for (const Finding& f : machine_findings) {
      if (f.cause_class == cls && f.severity >= Severity::warning) {
        c.machine.push_back(
            {fmt::format("This machine shows it too: {} [{}].", f.title, f.id), "", true});
      }
    }
    if (is_library_class(cls) && windows) {
      if (const std::string dll = cause_dll(c); !dll.empty()) {
        if (!windows_contexts) {
          windows_contexts = checks::windows_loader_contexts(facts, kb);
        }
        join_windows_library(c, dll, facts, kb, *windows_contexts);
      }
    } else if (is_library_class(cls)) {
      if (const std::string* lib = cause_lib(c)) {
        join_linux_library(c, *lib, facts);
      } else if (c.finding.id == kb::ids::k_log_zlibwapi_missing) {
        join_windows_library(c, "zlibwapi.dll", facts, kb, {});
      }
    }
    if (cls == CauseClass::driver_too_old || cls == CauseClass::driver_conflict
        || cls == CauseClass::version_mismatch_cuda) {
      std::string v = machine_driver(facts);
      c.machine.push_back({v.empty() ? "This machine's NVIDIA driver version is not known (no "
                                       "driver loaded, or NVML unavailable)."
                                     : fmt::format("This machine's NVIDIA driver is {}.", v),
                           "",
                           false});
    }
    if (cls == CauseClass::version_mismatch_cudnn || cls == CauseClass::library_missing_cudnn) {
      std::vector<std::string> copies;
      for (const facts::CudnnInstall& i : facts.cudnn) {
        copies.push_back(
            fmt::format("{} in {}", i.version ? i.version->str() : "version unknown", i.dir));
      }
      if (copies.size() > 6) {
        copies.resize(6);
      }
      c.machine.push_back({copies.empty()
                               ? std::string("No cuDNN is installed where the doctor looks.")
                               : fmt::format("cuDNN on this machine: {}.", fmt::join(copies, "; ")),
                           "",
                           false});
    }
    bool confirmed = std::any_of(
        c.machine.begin(), c.machine.end(), [](const MachineNote& n) { return n.confirms; });
    if (confirmed) {
      c.confidence = std::min(100, c.confidence + k_confirm_bonus);
    }
  }
  std::stable_sort(result.causes.begin(),
                   result.causes.end(),
                   [](const ExplainedCause& a, const ExplainedCause& b) {
                     if (a.confidence != b.confidence) {
                       return a.confidence > b.confidence;
                     }
                     return first_line(a) < first_line(b);
                   });
}

} // namespace doctor::explain
