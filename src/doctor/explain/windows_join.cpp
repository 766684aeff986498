// SPDX-License-Identifier: MIT
#include <doctor/explain/windows_join.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/shell.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace doctor::explain {

namespace {

// At most this many loading contexts and copies are named; the rest are counted.
constexpr std::size_t k_max_listed = 8;

std::string lower_name(std::string_view path) {
  return util::to_lower(loader::windows_file_name(path));
}

// What the facts know about the examined Windows machine's files, by windows_path_key.
class WindowsFiles {
public:
  explicit WindowsFiles(const facts::Facts& facts) {
    for (const facts::ProbedPath& p : facts.probed_paths) {
      m_probed.emplace(loader::windows_path_key(p.path), &p);
    }
    for (const facts::BinaryInfo& b : facts.binaries) {
      m_binaries.emplace(loader::windows_path_key(b.path), &b);
    }
  }
  const facts::ProbedPath* probed(std::string_view path) const {
    const auto it = m_probed.find(loader::windows_path_key(path));
    return it == m_probed.end() ? nullptr : it->second;
  }
  const facts::BinaryInfo* binary(std::string_view path) const {
    const auto it = m_binaries.find(loader::windows_path_key(path));
    return it == m_binaries.end() ? nullptr : it->second;
  }

private:
  std::map<std::string, const facts::ProbedPath*> m_probed;
  std::map<std::string, const facts::BinaryInfo*> m_binaries;
};

struct Copy {
  std::string path; // for display, in the case the facts give
  const facts::BinaryInfo* binary = nullptr;
};

// "a 64-bit x64 DLL", "a 32-bit x86 DLL", "not a Windows DLL"; "" when its headers were not read.
std::string what_is(const facts::BinaryInfo* b) {
  if (b == nullptr || !b->read_error.empty()) {
    return {};
  }
  if (b->format != "pe") {
    return "not a Windows DLL";
  }
  return fmt::format("a {}-bit {} DLL", b->bits, b->machine.empty() ? "?" : b->machine);
}

bool loadable_64(const Copy& c) {
  return c.binary != nullptr && c.binary->format == "pe" && c.binary->bits == 64;
}

// Every file named `want` (lower case) the facts record or a search of `contexts` met, in path
// order.
std::vector<Copy> copies_of(const facts::Facts& facts,
                            const WindowsFiles& files,
                            const std::vector<loader::WindowsLoadContext>& contexts,
                            const std::string& want) {
  std::map<std::string, Copy> by_key;
  auto add = [&](const std::string& raw) {
    const std::string path = loader::normalize_windows_path(raw);
    const std::string key = loader::windows_path_key(path);
    auto [it, fresh] = by_key.emplace(key, Copy{path, files.binary(path)});
    if (!fresh && it->second.path == key && path != key) {
      it->second.path = path; // a probed path is stored in lower case; keep the real spelling
    }
  };
  for (const facts::BinaryInfo& b : facts.binaries) {
    if (lower_name(b.path) == want) {
      add(b.path);
    }
  }
  for (const facts::CudnnInstall& c : facts.cudnn) {
    for (const facts::CudnnLibrary& l : c.libraries) {
      if (lower_name(l.name) == want) {
        add(loader::windows_join(c.dir, l.name));
      }
    }
  }
  for (const facts::ProbedPath& p : facts.probed_paths) {
    if (p.exists && p.kind == "regular" && lower_name(p.path) == want) {
      add(!p.real_path.empty() && lower_name(p.real_path) == want ? p.real_path : p.path);
    }
  }
  for (const loader::WindowsLoadContext& ctx : contexts) {
    for (const loader::WindowsLoadStep& step : ctx.steps) {
      const loader::Resolution& r = step.resolution;
      if (lower_name(r.name) != want) {
        continue;
      }
      if (r.chosen) {
        add(r.chosen->path);
      }
      for (const loader::Candidate& c : r.shadowed) {
        add(c.path);
      }
      for (const loader::SearchStep& s : r.steps) {
        if (s.outcome.starts_with("the file is here")) {
          add(s.path);
        }
      }
    }
  }
  std::vector<Copy> out;
  out.reserve(by_key.size());
  for (auto& [key, c] : by_key) {
    out.push_back(std::move(c));
  }
  return out;
}

std::string describe(const Copy& c) {
  const std::string what = what_is(c.binary);
  return what.empty() ? c.path : fmt::format("{} ({})", c.path, what);
}

// A note with a command rendered for `shell`; where a value cannot be quoted safely there, the
// note says why and offers no command.
MachineNote with_command(std::string text, const util::Command& command, util::Shell shell) {
  auto line = command.render(shell);
  if (!line) {
    return {fmt::format("{} ({}.)", text, line.error().message), "", true};
  }
  return {std::move(text), std::move(*line), true};
}

// The step of `ctx` that asks for `want`: the first that fails, else the first.
const loader::WindowsLoadStep* step_for(const loader::WindowsLoadContext& ctx,
                                        const std::string& want) {
  const loader::WindowsLoadStep* first = nullptr;
  for (const loader::WindowsLoadStep& s : ctx.steps) {
    if (lower_name(s.resolution.name) != want) {
      continue;
    }
    if (s.error != 0 || s.resolution.fatal_error != 0) {
      return &s;
    }
    first = first == nullptr ? &s : first;
  }
  return first;
}

std::size_t paths_searched(const loader::Resolution& r) {
  std::size_t n = 0;
  for (const loader::SearchStep& s : r.steps) {
    n += s.path.empty() || s.outcome.starts_with("not searched")
                 || s.outcome.starts_with("the file is here, but not searched")
             ? 0
             : s.count;
  }
  return n;
}

// "via PATH", "by its full path".
std::string via_text(loader::FoundVia via) {
  return via == loader::FoundVia::direct ? std::string("by its full path")
                                         : fmt::format("via {}", loader::to_string(via));
}

// What one context does with the DLL.
MachineNote context_note(const loader::WindowsLoadContext& ctx,
                         const loader::WindowsLoadStep& step,
                         const std::string& dll) {
  const loader::Resolution& r = step.resolution;
  const std::string who = r.requested_by.empty() ? std::string() : " for " + r.requested_by;
  if (!r.undetermined.empty()) {
    return {fmt::format(
                "{}: which {} it gets is not known ({}).", ctx.description, dll, r.undetermined),
            "",
            false};
  }
  if (r.chosen && r.fatal_error == loader::k_error_bad_exe_format) {
    const std::string what = what_is(r.chosen->binary);
    return {fmt::format("{}: error 193. The first {} its search meets is {} ({}){}, and Windows "
                        "stops there{}.",
                        ctx.description,
                        dll,
                        r.chosen->path,
                        via_text(r.chosen->via),
                        what.empty() ? "" : ", " + what,
                        r.shadowed.empty()
                            ? std::string()
                            : fmt::format("; the loadable {} comes later in its order",
                                          r.shadowed.front().path)),
            "",
            true};
  }
  if (r.chosen && step.error == 0) {
    return {
        fmt::format("{}: loads {} ({}).", ctx.description, r.chosen->path, via_text(r.chosen->via)),
        "",
        false};
  }
  if (r.chosen) {
    return {fmt::format("{}: finds {} ({}), but the load fails with error {}: one of its "
                        "own imports cannot be loaded.",
                        ctx.description,
                        r.chosen->path,
                        via_text(r.chosen->via),
                        step.error),
            "",
            true};
  }
  std::vector<std::string> unsearched;
  for (const loader::SearchStep& s : r.steps) {
    if (s.via == loader::FoundVia::path
        && s.outcome.starts_with("the file is here, but not searched")) {
      unsearched.push_back(s.path);
    }
  }
  std::string text = fmt::format("{}: error 126, none of the {} places it searches{} holds {}.",
                                 ctx.description,
                                 paths_searched(r),
                                 who,
                                 dll);
  if (!unsearched.empty()) {
    text += fmt::format(
        " {} {} on PATH, but this load does not search PATH (LOAD_LIBRARY_SEARCH_* "
        "flags, as Python 3.8 and later load extension modules and their DLLs).",
        util::join(unsearched, ", "),
        unsearched.size() == 1 ? "is" : "are");
  }
  return {std::move(text), "", true};
}

// Whether cuDNN `inst` needs zlibwapi.dll on Windows (8.3 to 9.1); nullopt when its version is
// not known.
std::optional<bool> needs_zlibwapi(const facts::CudnnInstall& inst, const kb::KnowledgeBase& kb) {
  if (inst.version) {
    if (const kb::CudnnReleaseRow* row = kb.compat().cudnn_release(*inst.version)) {
      return row->windows_zlibwapi;
    }
  }
  if (inst.major != 8 && inst.major != 9) {
    return false;
  }
  return std::nullopt;
}

// For each cuDNN folder that needs zlibwapi.dll: whether it holds one, and if not, where it goes.
// `loaded` are the copies the contexts load without error.
void zlibwapi_notes(ExplainedCause& cause,
                    const facts::Facts& facts,
                    const kb::KnowledgeBase& kb,
                    const WindowsFiles& files,
                    const std::vector<Copy>& copies,
                    const std::set<std::string>& loaded) {
  const Copy* good = nullptr;
  for (const Copy& c : copies) {
    if (loadable_64(c)) {
      good = &c;
      break;
    }
  }
  std::size_t listed = 0;
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    const std::optional<bool> needs = needs_zlibwapi(inst, kb);
    if (needs == false) {
      continue;
    }
    if (listed == k_max_listed) {
      break;
    }
    ++listed;
    std::string dispatcher = fmt::format("cudnn64_{}.dll", inst.major);
    for (const facts::CudnnLibrary& l : inst.libraries) {
      if (util::to_lower(l.name) == dispatcher) {
        dispatcher = l.name;
      }
    }
    const std::string which =
        needs ? fmt::format("cuDNN {}", inst.version->str())
              : fmt::format("cuDNN {} of unknown version, which needs it from 8.3 to 9.1",
                            inst.major);
    const std::string file = loader::windows_join(inst.dir, "zlibwapi.dll");
    const facts::ProbedPath* p = files.probed(file);
    if (p == nullptr) {
      cause.machine.push_back({fmt::format("Whether {} ({}) holds zlibwapi.dll is not known: the "
                                           "facts never recorded that path.",
                                           inst.dir,
                                           which),
                               "",
                               false});
      continue;
    }
    if (p->exists) {
      const std::string what = what_is(files.binary(file));
      const bool bad = !what.empty() && !what.starts_with("a 64-bit");
      cause.machine.push_back(
          {bad ? fmt::format("{} ({}) has a zlibwapi.dll next to {}, but it is {}: replace it "
                             "with a 64-bit zlibwapi.dll.",
                             inst.dir,
                             which,
                             dispatcher,
                             what)
               : fmt::format("{} ({}) has zlibwapi.dll next to {}{}.",
                             inst.dir,
                             which,
                             dispatcher,
                             what.empty() ? "" : ", " + what),
           "",
           bad});
      continue;
    }
    std::string text = fmt::format("{} ({}) lacks zlibwapi.dll", inst.dir, which);
    if (!loaded.empty()) {
      // The processes modelled here get a copy from elsewhere: the failing one searched
      // differently (another PATH, another working directory).
      text += fmt::format(
          "; the processes modelled here load {}, so the process that failed "
          "searched differently (another PATH). To depend on no search, put a "
          "64-bit zlibwapi.dll into {}, next to {}.",
          util::join({loaded.begin(), loaded.end()}, ", "),
          inst.dir,
          dispatcher);
    } else {
      text += fmt::format(": put a 64-bit zlibwapi.dll into {}, next to {}.", inst.dir, dispatcher);
    }
    const bool confirms = loaded.empty();
    if (good == nullptr) {
      cause.machine.push_back({std::move(text), "", confirms});
      continue;
    }
    text += fmt::format(" A 64-bit copy is in {}.", loader::windows_parent(good->path));
    MachineNote note =
        with_command(std::move(text),
                     util::Command("Copy-Item ").value(good->path).text(" ").value(inst.dir),
                     util::Shell::powershell);
    note.confirms = confirms;
    cause.machine.push_back(std::move(note));
  }
}

// Whether the folder of a copy is on the PATH the doctor's process had, and how to add it. After a
// loader walk (`walked`) the contexts have said what each search found: only a copy outside PATH
// gets a note, the 64-bit one first.
void path_notes(ExplainedCause& cause,
                const std::string& dll,
                const facts::Facts& facts,
                const std::vector<Copy>& copies,
                bool walked) {
  std::set<std::string> on_path;
  for (const std::string& d :
       loader::split_windows_path_list(loader::windows_config_from(facts).path)) {
    on_path.insert(loader::windows_path_key(d));
  }
  const Copy* outside = nullptr;
  for (const Copy& copy : copies) {
    const std::string dir = loader::windows_parent(copy.path);
    const bool listed = on_path.count(loader::windows_path_key(dir)) != 0;
    if (walked) {
      if (!listed && (outside == nullptr || (!loadable_64(*outside) && loadable_64(copy)))) {
        outside = &copy;
      }
      continue;
    }
    if (listed) {
      cause.machine.push_back(
          {fmt::format("{} is in {}, which is on PATH: the DLL itself was found, so one of its "
                       "own dependencies (or a 32-bit copy) failed; see `cudnn-doctor check`.",
                       dll,
                       dir),
           "",
           false});
      return;
    }
  }
  if (walked && outside == nullptr) {
    return;
  }
  const std::string dir = loader::windows_parent((walked ? *outside : copies.front()).path);
  // set "NAME=value": inside the quotes cmd.exe takes & | < > ( ) and spaces literally, and the
  // quotes do not become part of PATH.
  cause.machine.push_back(with_command(
      fmt::format("{} is in {}, which is not on PATH. Python 3.8 and later also ignore PATH for "
                  "an extension's DLLs: call os.add_dll_directory(r\"{}\") before the import.",
                  dll,
                  dir,
                  dir),
      util::Command("set \"PATH=").value_in_double_quotes(dir).text(";%PATH%\""),
      util::Shell::cmd));
}

} // namespace

void join_windows_library(ExplainedCause& cause,
                          const std::string& dll,
                          const facts::Facts& facts,
                          const kb::KnowledgeBase& kb,
                          const std::vector<loader::WindowsLoadContext>& contexts) {
  const std::string want = lower_name(dll);
  const WindowsFiles files(facts);
  const std::vector<Copy> copies = copies_of(facts, files, contexts, want);

  std::vector<MachineNote> per_context;
  std::set<std::string> seen;
  bool asked = false;           // some context asks for it
  bool searched = false;        // some context's search for it is complete
  std::set<std::string> loaded; // the copies contexts load without error
  std::size_t more = 0;
  for (const loader::WindowsLoadContext& ctx : contexts) {
    const loader::WindowsLoadStep* step = step_for(ctx, want);
    if (step == nullptr) {
      continue;
    }
    asked = true;
    searched = searched || !step->resolution.unknown;
    if (step->resolution.unknown && !step->resolution.chosen) {
      continue; // passes paths the facts never recorded: says nothing but "not known"
    }
    if (step->resolution.chosen && step->error == 0 && step->resolution.fatal_error == 0) {
      loaded.insert(step->resolution.chosen->path);
    }
    MachineNote note = context_note(ctx, *step, dll);
    if (!seen.insert(note.text).second) {
      continue;
    }
    if (per_context.size() == k_max_listed) {
      ++more;
      continue;
    }
    per_context.push_back(std::move(note));
  }

  if (copies.empty()) {
    cause.machine.push_back(
        searched ? MachineNote{fmt::format("No copy of {} on this machine where the doctor "
                                           "looked: none of the places the loader searches for "
                                           "it holds one. It has to be installed.",
                                           dll),
                               "",
                               true}
                 : MachineNote{fmt::format("Whether this machine has a copy of {} is not known: "
                                           "the facts record none, {}.",
                                           dll,
                                           asked ? "and the searches for it pass folders the "
                                                   "facts never recorded (such as a program's "
                                                   "own folder)"
                                                 : "and no search for it"),
                               "",
                               false});
  } else if (per_context.empty()) {
    path_notes(cause, dll, facts, copies, false);
  } else {
    std::vector<std::string> listed;
    for (const Copy& c : copies) {
      if (listed.size() < k_max_listed) {
        listed.push_back(describe(c));
      }
    }
    cause.machine.push_back(
        {fmt::format("{} on this machine: {}{}.",
                     copies.size() == 1 ? "The copy of " + dll : "Copies of " + dll,
                     util::join(listed, "; "),
                     copies.size() > listed.size()
                         ? fmt::format(" (and {} more)", copies.size() - listed.size())
                         : std::string()),
         "",
         false});
  }
  for (MachineNote& n : per_context) {
    cause.machine.push_back(std::move(n));
  }
  if (more > 0) {
    cause.machine.push_back(
        {fmt::format("{} more loading contexts ask for {} (see `cudnn-doctor check`).", more, dll),
         "",
         false});
  }
  if (want == "zlibwapi.dll") {
    zlibwapi_notes(cause, facts, kb, files, copies, loaded);
  } else if (!copies.empty() && !per_context.empty() && loaded.empty()) {
    path_notes(cause, dll, facts, copies, true);
  }
}

} // namespace doctor::explain
