// SPDX-License-Identifier: MIT
#include <doctor/explain/machine_join.hpp>
#include <doctor/kb/finding_ids.hpp>
#include <doctor/loader/facts_probe.hpp>
#include <doctor/loader/linux_search.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/shell.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
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

// Every file the facts know whose name is `lib` (ignoring case on Windows).
std::vector<std::string> copies_of(const facts::Facts& facts, std::string_view lib, bool windows) {
  const std::string want = windows ? util::to_lower(lib) : std::string(lib);
  auto same = [&](std::string_view path) {
    std::string name = base_name(path);
    return (windows ? util::to_lower(name) : name) == want;
  };
  std::set<std::string> out;
  for (const facts::BinaryInfo& b : facts.binaries) {
    if (same(b.path)) {
      out.insert(b.path);
    }
  }
  for (const facts::CudnnInstall& c : facts.cudnn) {
    for (const facts::CudnnLibrary& l : c.libraries) {
      if (same(l.name)) {
        out.insert(c.dir + (windows ? "\\" : "/") + l.name);
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

std::string env_of(const facts::Facts& facts, const char* name) {
  auto it = facts.environment.find(name);
  return it == facts.environment.end() ? std::string() : it->second;
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

void join_library(ExplainedCause& c,
                  const std::string& lib,
                  const facts::Facts& facts,
                  bool windows) {
  if (!windows) {
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
  }
  const std::vector<std::string> copies = copies_of(facts, lib, windows);
  if (copies.empty()) {
    c.machine.push_back(
        {fmt::format("No copy of {} exists on this machine (among the places the doctor "
                     "examines): it has to be installed.",
                     lib),
         "",
         true});
    return;
  }
  if (windows) {
    std::set<std::string> on_path;
    for (const std::string& d : loader::split_windows_path_list(env_of(facts, "PATH"))) {
      on_path.insert(loader::windows_path_key(d));
    }
    for (const std::string& copy : copies) {
      std::string dir = loader::windows_parent(copy);
      if (on_path.count(loader::windows_path_key(dir)) != 0) {
        c.machine.push_back(
            {fmt::format("{} is in {}, which is on PATH: the DLL itself was found, so one of its "
                         "own dependencies (or a 32-bit copy) failed; see `cudnn-doctor check`.",
                         lib,
                         dir),
             "",
             false});
        return;
      }
    }
    std::string dir = loader::windows_parent(copies.front());
    // set "NAME=value": inside the quotes cmd.exe takes & | < > ( ) and spaces literally, and
    // the quotes do not become part of PATH.
    c.machine.push_back(note_with_command(
        fmt::format("{} is in {}, which is not on PATH. Python 3.8 and later also ignore PATH "
                    "for an extension's DLLs: call os.add_dll_directory(r\"{}\") before the "
                    "import.",
                    lib,
                    dir,
                    dir),
        util::Command("set \"PATH=").value_in_double_quotes(dir).text(";%PATH%\""),
        util::Shell::cmd));
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
  (void)kb;
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
  for (ExplainedCause& c : result.causes) {
    const CauseClass cls = c.finding.cause_class;
    for (const Finding& f : machine_findings) {
      if (f.cause_class == cls && f.severity >= Severity::warning) {
        c.machine.push_back(
            {fmt::format("This machine shows it too: {} [{}].", f.title, f.id), "", true});
      }
    }
    if (is_library_class(cls)) {
      const std::string* lib = cause_lib(c);
      std::string fixed = c.finding.id == kb::ids::k_log_zlibwapi_missing ? "zlibwapi.dll" : "";
      if (lib != nullptr) {
        join_library(c, *lib, facts, windows);
      } else if (!fixed.empty()) {
        join_library(c, fixed, facts, true);
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
