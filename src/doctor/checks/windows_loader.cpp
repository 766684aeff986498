// SPDX-License-Identifier: MIT
//
// The Windows loader model's findings: what each framework, and a program loading cuDNN by name,
// would really get on this Windows machine (loader/windows_analysis.hpp), judged step by step. A
// DLL that none of the searched places holds (LoadLibrary error 126), a file of another
// architecture found first (error 193, where Windows stops searching), a missing Visual C++
// runtime, and a cuDNN or CUDA DLL copied by hand into a Windows system directory.
#include <doctor/checks/checks.hpp>
#include <doctor/checks/compat_facts.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <set>

namespace doctor::checks {

namespace ids = kb::ids;

namespace {

bool is_framework(const loader::WindowsLoadContext& ctx) {
  return ctx.id != "program";
}

// The Python environment a framework context belongs to ("torch:C:\venv" -> the env of C:\venv).
const facts::PythonEnv* env_of(const facts::Facts& facts, const loader::WindowsLoadContext& ctx) {
  const auto colon = ctx.id.find(':');
  if (colon == std::string::npos) {
    return nullptr;
  }
  const std::string prefix = loader::windows_path_key(ctx.id.substr(colon + 1));
  for (const facts::PythonEnv& env : facts.python_envs) {
    if (loader::windows_path_key(env.prefix) == prefix) {
      return &env;
    }
  }
  return nullptr;
}

bool is_vc_runtime(std::string_view dll) {
  const std::string n = util::to_lower(loader::windows_file_name(dll));
  return n.starts_with("vcruntime140") || n.starts_with("msvcp140");
}

// A directory of the facts' cuDNN installations that holds `dll` (by name), for "a copy is in …".
std::string cudnn_dir_with(const facts::Facts& facts, const std::string& dll) {
  const std::string want = util::to_lower(loader::windows_file_name(dll));
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    for (const facts::CudnnLibrary& lib : inst.libraries) {
      if (util::to_lower(loader::windows_file_name(lib.name)) == want) {
        return inst.dir;
      }
    }
  }
  return {};
}

// PowerShell: this folder first on PATH for the programs started from this console. The folder
// goes inside the double-quoted string: an assignment is expression mode, where a folder left
// bare because it needs no quoting would be run as a command.
util::Command prepend_path(const std::string& dir) {
  util::Command c("$env:PATH = \"");
  c.value_in_double_quotes(dir).text(";$env:PATH\"");
  return c;
}

void add_common(const loader::WindowsLoadContext& ctx,
                const loader::WindowsLoadStep& step,
                FindingDraft& d) {
  d.shell = util::Shell::powershell;
  d.evidence.push_back(Evidence{"loader", fmt::format("{}: {}", ctx.description, step.reason)});
  for (const std::string& note : step.notes) {
    d.evidence.push_back(Evidence{"loader", note});
  }
  add_search_steps(step.resolution, d);
}

FindingDraft not_found(const facts::Facts& facts,
                       const loader::WindowsLoadContext& ctx,
                       const loader::WindowsLoadStep& step) {
  const loader::Resolution& r = step.resolution;
  const std::string requested_by = r.requested_by.empty() ? ctx.description : r.requested_by;
  FindingDraft d;
  d.subject = ctx.id.substr(ctx.id.find(':') + 1);
  d.params = {{"context", ctx.description},
              {"name", loader::windows_file_name(r.name)},
              {"requested_by", requested_by},
              {"searched", std::to_string(paths_searched(r))}};
  if (step.role == loader::LibraryRole::zlib) {
    // cuDNN asks for it from its own folder first: that folder is where it belongs.
    const std::string dir = loader::windows_parent(requested_by);
    d.id = ids::k_windows_zlibwapi_not_found;
    d.subject = dir.empty() ? d.subject : dir;
    d.params.emplace_back("dir", dir.empty() ? "the folder of the cuDNN DLLs" : dir);
  } else if (is_vc_runtime(r.name)) {
    d.id = ids::k_windows_vc_runtime_missing;
  } else {
    d.id = ids::k_windows_dll_not_found;
    const std::string copy = cudnn_dir_with(facts, r.name);
    d.params.emplace_back("copy_dir", copy);
    if (!copy.empty()) {
      d.commands = {{"prepend_path", prepend_path(copy)}};
      d.tags.emplace_back("have_copy");
    }
  }
  if (const facts::PythonEnv* env = env_of(facts, ctx)) {
    d.commands.emplace_back("pip", pip_command(*env, kb::Os::windows));
    d.tags.emplace_back(ctx.id.substr(0, ctx.id.find(':')));
  }
  add_common(ctx, step, d);
  return d;
}

bool in_system_dir(loader::FoundVia via) {
  return via == loader::FoundVia::system32 || via == loader::FoundVia::system16
         || via == loader::FoundVia::windows_dir;
}

} // namespace

// DLLs a framework needs that Windows cannot find from where the framework asks, or finds first
// in a form it cannot load. Only framework contexts judge "not found": a plain program not finding
// a framework's own cuDNN is normal. A file of another architecture found first is reported from
// any context, once per file.
void check_windows_loader(const facts::Facts& facts,
                          const kb::KnowledgeBase& kb,
                          FindingSink& out) {
  std::set<std::pair<std::string, std::string>> reported; // (requested by, name) or (path, "193")
  const auto contexts = windows_loader_contexts(facts, kb);
  for (const loader::WindowsLoadContext& ctx : *contexts) {
    for (const loader::WindowsLoadStep& step : ctx.steps) {
      const loader::Resolution& r = step.resolution;
      if (r.unknown || step.role == loader::LibraryRole::driver) {
        continue; // nvcuda.dll: driver_conflicts judges the driver
      }
      if (r.chosen && r.fatal_error == loader::k_error_bad_exe_format) {
        if (!reported.emplace(r.chosen->path, "193").second) {
          continue;
        }
        FindingDraft d;
        d.id = ids::k_windows_dll_wrong_architecture;
        d.subject = r.chosen->path;
        const facts::BinaryInfo* b = r.chosen->binary;
        d.params = {
            {"context", ctx.description},
            {"name", loader::windows_file_name(r.name)},
            {"path", r.chosen->path},
            {"what",
             b != nullptr && b->format == "pe"
                 ? fmt::format("a {}-bit {} DLL", b->bits, b->machine.empty() ? "?" : b->machine)
                 : std::string("not a Windows DLL")},
            {"loadable", r.shadowed.empty() ? std::string("none") : r.shadowed.front().path}};
        d.commands = {{"move_aside",
                       util::Command("Rename-Item ")
                           .value(r.chosen->path)
                           .text(" ")
                           .value(loader::windows_file_name(r.chosen->path) + ".disabled")}};
        add_common(ctx, step, d);
        out.add(std::move(d));
        continue;
      }
      if (!is_framework(ctx) || r.chosen || step.error == 0) {
        continue;
      }
      const bool gpu = step.role != loader::LibraryRole::other || is_vc_runtime(r.name);
      if (gpu && reported.emplace(r.requested_by, util::to_lower(r.name)).second) {
        out.add(not_found(facts, ctx, step));
      }
    }
  }
}

// cuDNN or CUDA DLLs that every program finds in System32 (or the Windows directory) before any
// PATH folder: no NVIDIA installer puts them there. Reported once per file, from the first
// context that loads it.
void check_windows_system_dir_copy(const facts::Facts& facts,
                                   const kb::KnowledgeBase& kb,
                                   FindingSink& out) {
  std::set<std::string> reported;
  const auto contexts = windows_loader_contexts(facts, kb);
  for (const loader::WindowsLoadContext& ctx : *contexts) {
    for (const loader::WindowsLoadStep& step : ctx.steps) {
      const loader::Resolution& r = step.resolution;
      if (!r.chosen || !in_system_dir(r.chosen->via) || step.role == loader::LibraryRole::driver
          || step.role == loader::LibraryRole::other
          || !reported.insert(loader::windows_path_key(r.chosen->path)).second) {
        continue;
      }
      FindingDraft d;
      d.id = ids::k_windows_system_dir_copy;
      d.subject = r.chosen->path;
      std::vector<std::string> others;
      for (const loader::Candidate& c : r.shadowed) {
        others.push_back(c.path);
      }
      d.params = {
          {"context", ctx.description},
          {"name", loader::windows_file_name(r.chosen->path)},
          {"path", r.chosen->path},
          {"dir", loader::windows_parent(r.chosen->path)},
          {"shadowed", others.empty() ? std::string("no other copy") : util::join(others, ", ")}};
      d.commands = {{"remove", util::Command("Remove-Item ").value(r.chosen->path)}};
      add_common(ctx, step, d);
      out.add(std::move(d));
    }
  }
}

} // namespace doctor::checks
