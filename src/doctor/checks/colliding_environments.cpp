// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/loader/facts_probe.hpp>
#include <doctor/loader/linux_search.hpp>
#include <doctor/util/strings.hpp>

#include <map>
#include <set>

// Family 7 of the troubleshooting guide (several environments colliding): several CUDA toolkits
// and cuDNN copies, and what the loader model says each framework, cuDNN dispatcher and program
// would load from them: libraries not found from where they are asked for, a cuDNN whose
// sub-libraries come from another copy, a framework's own copy shadowed, the toolkit's stub
// libcuda in the driver's place.
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

constexpr const char* k_unknown_version = "version unknown";

// The version of a resolved copy, from the cuDNN facts or the binary's own record.
std::string version_of(const facts::Facts& facts, const loader::Candidate& c) {
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    for (const facts::CudnnLibrary& lib : inst.libraries) {
      if (lib.real_path == c.real_path && lib.version) {
        return lib.version->str();
      }
    }
  }
  return k_unknown_version;
}

std::string parent_dir(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? std::string("/") : path.substr(0, slash);
}

bool is_stub(const std::string& path) {
  return path.find("/stubs/") != std::string::npos;
}

// The finding for a library of `role` a framework cannot find; empty for roles reported
// elsewhere (the driver) or not at all.
std::string_view not_found_id(loader::LibraryRole role) {
  switch (role) {
  case loader::LibraryRole::cudnn_dispatcher:
    return ids::k_loader_cudnn_not_found;
  case loader::LibraryRole::cudnn_sublibrary:
    return ids::k_loader_cudnn_sublibrary_not_found;
  case loader::LibraryRole::cuda_runtime:
  case loader::LibraryRole::cuda_library:
    return ids::k_loader_cuda_library_not_found;
  case loader::LibraryRole::zlib:
    return ids::k_loader_zlib_not_found;
  case loader::LibraryRole::driver:
  case loader::LibraryRole::other:
    break;
  }
  return {};
}

bool is_framework(const loader::LoadContext& ctx) {
  return ctx.id.starts_with("torch:") || ctx.id.starts_with("tensorflow:");
}

// A CUDA library or zlib that a cuDNN sub-library names in DT_NEEDED, asked for in the cuDNN
// installation's own context: without it the sub-library cannot load at all, whatever program
// uses this cuDNN (unless that program has loaded a library of that soname before).
bool is_cudnn_dependency(const loader::LoadContext& ctx, const loader::LoadStep& step) {
  if (!ctx.id.starts_with("cudnn:") || !step.reason.starts_with("DT_NEEDED")) {
    return false;
  }
  if (step.role != loader::LibraryRole::cuda_library
      && step.role != loader::LibraryRole::cuda_runtime && step.role != loader::LibraryRole::zlib) {
    return false;
  }
  const std::string& by = step.resolution.requested_by;
  const auto slash = by.rfind('/');
  return loader::role_of(slash == std::string::npos ? by : by.substr(slash + 1))
         == loader::LibraryRole::cudnn_sublibrary;
}

// The soname's major ("libcudnn.so.8" -> 8); 0 if it has none.
unsigned soname_major_of(const std::string& name) {
  const auto so = name.find(".so.");
  if (so == std::string::npos) {
    return 0;
  }
  unsigned major = 0;
  for (std::size_t i = so + 4; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) {
    major = major * 10 + static_cast<unsigned>(name[i] - '0');
  }
  return major;
}

// A library the framework needs that the loader cannot find from where the framework asks.
// Fixes are picked by tags: the framework ("torch", "tensorflow"), the distribution, and
// "have_copy" when the facts know a cuDNN of the wanted major elsewhere on the machine.
FindingDraft framework_not_found(const facts::Facts& facts,
                                 const loader::LoadContext& ctx,
                                 const loader::LoadStep& step,
                                 std::string_view id) {
  const loader::Resolution& r = step.resolution;
  FindingDraft d;
  d.id = id;
  d.subject = ctx.subject;
  std::string copy_dir;
  std::string copy_version;
  if (step.role == loader::LibraryRole::cudnn_dispatcher) {
    const unsigned major = soname_major_of(r.name);
    for (const facts::CudnnInstall& inst : facts.cudnn) {
      if (inst.major == major && copy_dir.empty()) {
        copy_dir = inst.dir;
        copy_version = inst.version ? inst.version->str() : fmt::format("{}.x", major);
      }
    }
  }
  d.params = {{"context", ctx.description},
              {"name", r.name},
              {"requested_by", r.requested_by.empty() ? "the program" : r.requested_by},
              {"searched", std::to_string(paths_searched(r))},
              {"why",
               r.fatal_error != 0
                   ? fmt::format("the loader stops at {}, so dlopen fails there", r.fatal_message)
                   : fmt::format("none of the {} paths the loader searches holds a loadable copy",
                                 paths_searched(r))},
              {"copy_dir", copy_dir},
              {"copy_version", copy_version}};
  // The environment's own interpreter, so the reinstall lands in that environment.
  util::Command pip;
  pip.value(ctx.subject + "/bin/python").text(" -m pip");
  d.commands = {{"pip", std::move(pip)}};
  d.evidence.push_back(Evidence{"loader", step.reason});
  add_search_steps(r, d);
  d.tags = distro_tags(facts);
  d.tags.emplace_back(ctx.id.substr(0, ctx.id.find(':')));
  if (!copy_dir.empty()) {
    d.tags.emplace_back("have_copy");
  }
  return d;
}

} // namespace

void check_multiple_toolkits(const facts::Facts& facts,
                             const kb::KnowledgeBase&,
                             FindingSink& out) {
  if (facts.cuda_toolkits.size() < 2) {
    return;
  }
  std::vector<std::string> items;
  FindingDraft d;
  d.id = ids::k_cuda_multiple_toolkits;
  d.subject = "CUDA toolkits";
  for (const facts::CudaToolkit& tk : facts.cuda_toolkits) {
    items.push_back(
        fmt::format("{} at {}", tk.version ? tk.version->str() : "unknown version", tk.path));
    d.evidence.push_back(
        Evidence{tk.version ? tk.version.source() : "dir:" + tk.path,
                 fmt::format("{} found via {}", tk.path, util::join(tk.found_via, ", "))});
  }
  d.params = {{"count", std::to_string(items.size())}, {"list", util::join(items, "; ")}};
  out.add(std::move(d));
}

void check_multiple_cudnn(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  if (facts.cudnn.size() < 2) {
    return;
  }
  std::vector<std::string> items;
  FindingDraft d;
  d.id = ids::k_cudnn_multiple_copies;
  d.subject = "cuDNN copies";
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    items.push_back(
        fmt::format("{} in {}",
                    inst.version ? inst.version->str() : fmt::format("{}.x", inst.major),
                    inst.dir));
    d.evidence.push_back(Evidence{"dir:" + inst.dir,
                                  fmt::format("{} libraries, found via {}",
                                              inst.libraries.size(),
                                              util::join(inst.found_via, ", "))});
  }
  d.params = {{"count", std::to_string(items.size())}, {"list", util::join(items, "; ")}};
  out.add(std::move(d));
}

// Libraries a framework needs that no searched path provides. Only framework contexts: a plain
// program not finding the pip cuDNN is normal, and an incomplete installation is reported by
// cudnn_sets. The driver library matters only where the kernel module is loaded.
void check_loader_not_found(const facts::Facts& facts,
                            const kb::KnowledgeBase& kb,
                            FindingSink& out) {
  const auto walks = loader_contexts(facts, kb);
  const std::vector<loader::LoadContext>& all = *walks;
  // (requesting file, name) pairs a framework finding already covers.
  std::set<std::pair<std::string, std::string>> covered;
  // cuDNN libraries whose own DT_NEEDED cannot be met, by the directory they are in: one finding
  // per directory, naming every library and every missing name.
  struct Unmet {
    std::string context_dir;
    std::set<std::string> libraries;
    std::set<std::string> names;
    FindingDraft draft; // evidence of the first
  };
  std::map<std::string, Unmet> unmet;
  for (const bool frameworks : {true, false}) {
    for (const loader::LoadContext& ctx : all) {
      if (is_framework(ctx) != frameworks) {
        continue;
      }
      for (const loader::LoadStep& step : ctx.steps) {
        const loader::Resolution& r = step.resolution;
        if (r.chosen || r.unknown) {
          continue;
        }
        if (step.role == loader::LibraryRole::driver) {
          continue; // driver_conflicts' driver_library
        }
        if (frameworks) {
          if (const std::string_view id = not_found_id(step.role); !id.empty()) {
            covered.emplace(r.requested_by, r.name);
            out.add(framework_not_found(facts, ctx, step, id));
          }
        } else if (is_cudnn_dependency(ctx, step) && !covered.contains({r.requested_by, r.name})) {
          Unmet& u = unmet[parent_dir(r.requested_by)];
          if (u.libraries.empty()) {
            u.context_dir = ctx.subject;
            u.draft.evidence.push_back(Evidence{"loader", step.reason});
            add_search_steps(r, u.draft);
          }
          u.libraries.insert(r.requested_by.substr(r.requested_by.rfind('/') + 1));
          u.names.insert(r.name);
        }
      }
    }
  }
  for (auto& [dir, u] : unmet) {
    FindingDraft d = std::move(u.draft);
    d.id = ids::k_loader_cudnn_dependency_not_found;
    d.subject = dir;
    d.params = {{"dir", dir},
                {"context_dir", u.context_dir},
                {"libraries", util::join({u.libraries.begin(), u.libraries.end()}, ", ")},
                {"names", util::join({u.names.begin(), u.names.end()}, ", ")},
                {"first", *u.names.begin()}};
    d.tags = distro_tags(facts);
    out.add(std::move(d));
  }
}

// A dispatcher whose sub-libraries would come from another directory of another (or an unknown)
// release. Reported once per dispatcher file: in a framework's context first, else in the
// installation's own.
void check_loader_cudnn_split(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out) {
  loader::FactsProbe probe(facts);
  std::set<std::string> reported;
  const auto contexts = loader_contexts(facts, kb);
  for (const loader::LoadContext& ctx : *contexts) {
    std::map<std::string, std::vector<const loader::LoadStep*>> by_dispatcher;
    for (const loader::LoadStep& step : ctx.steps) {
      if (step.resolution.chosen && step.role == loader::LibraryRole::cudnn_sublibrary
          && !step.resolution.requested_by.empty()) {
        by_dispatcher[step.resolution.requested_by].push_back(&step);
      }
    }
    for (const auto& [dispatcher, subs] : by_dispatcher) {
      const loader::PathState st = probe.probe(dispatcher);
      const std::string real = st.real_path.empty() ? dispatcher : st.real_path;
      const loader::Candidate self{dispatcher, real, loader::FoundVia::direct, "", st.binary};
      const std::string home = parent_dir(real);
      const std::string home_version = version_of(facts, self);
      // Group the strays by where they come from: "libcudnn_adv.so.9, libcudnn_cnn.so.9 from
      // /dir (9.26.0, through LD_LIBRARY_PATH)".
      std::map<std::string, std::vector<std::string>> groups;
      FindingDraft d;
      for (const loader::LoadStep* s : subs) {
        const loader::Candidate& c = *s->resolution.chosen;
        const std::string v = version_of(facts, c);
        const bool same_release = v == home_version && v != k_unknown_version;
        if (parent_dir(c.real_path) == home || same_release) {
          continue;
        }
        auto& names = groups[fmt::format("{} ({}, through {})", parent_dir(c.path), v, c.source)];
        if (names.empty()) {
          add_search_steps(s->resolution, d);
        }
        names.push_back(s->resolution.name);
      }
      std::vector<std::string> parts;
      parts.reserve(groups.size());
      for (const auto& [where, names] : groups) {
        parts.push_back(fmt::format("{} from {}", util::join(names, ", "), where));
      }
      if (parts.empty() || !reported.insert(real).second) {
        continue;
      }
      d.id = ids::k_loader_cudnn_set_split;
      d.subject = home;
      d.params = {{"context", ctx.description},
                  {"dispatcher", fmt::format("{} ({})", dispatcher, home_version)},
                  {"split", util::join(parts, "; ")}};
      out.add(std::move(d));
    }
  }
}

// A framework that would load a library from elsewhere although its own wheel ships a copy
// further down the search order.
void check_loader_shadowed(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out) {
  const auto contexts = loader_contexts(facts, kb);
  for (const loader::LoadContext& ctx : *contexts) {
    if (!is_framework(ctx) || ctx.shipped_cudnn_dir.empty()) {
      continue;
    }
    for (const loader::LoadStep& step : ctx.steps) {
      const loader::Resolution& r = step.resolution;
      if (!r.chosen || parent_dir(r.chosen->path) == ctx.shipped_cudnn_dir) {
        continue;
      }
      for (const loader::Candidate& other : r.shadowed) {
        if (parent_dir(other.path) != ctx.shipped_cudnn_dir) {
          continue;
        }
        const std::string chosen_version = version_of(facts, *r.chosen);
        const std::string shipped_version = version_of(facts, other);
        FindingDraft d;
        d.id = ids::k_loader_shadowed_copy;
        d.subject = ctx.subject;
        d.params = {{"context", ctx.description},
                    {"name", r.name},
                    {"chosen", r.chosen->path},
                    {"chosen_version", chosen_version},
                    {"via", r.chosen->source},
                    {"shipped", other.path},
                    {"shipped_version", shipped_version}};
        if (chosen_version != shipped_version) {
          d.severity = Severity::error;
        }
        add_search_steps(r, d);
        out.add(std::move(d));
        break;
      }
    }
  }
}

// NVIDIA's stub libcuda (a link-time stand-in shipped in a toolkit's lib64/stubs) chosen over the
// driver's library by any walk.
void check_loader_stub(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out) {
  std::set<std::string> reported;
  const auto contexts = loader_contexts(facts, kb);
  for (const loader::LoadContext& ctx : *contexts) {
    for (const loader::LoadStep& step : ctx.steps) {
      const loader::Resolution& r = step.resolution;
      if (step.role != loader::LibraryRole::driver || !r.chosen || !is_stub(r.chosen->real_path)
          || !reported.insert(r.chosen->real_path + "|" + r.name).second) {
        continue;
      }
      std::string real = "No real driver library is on the loader path either.";
      for (const loader::Candidate& c : r.shadowed) {
        if (!is_stub(c.real_path)) {
          real = fmt::format("The driver's own library is there too ({}), later in the order.",
                             c.path);
          break;
        }
      }
      std::vector<std::string> kept;
      const auto env = facts.environment.find("LD_LIBRARY_PATH");
      if (env != facts.environment.end()) {
        for (std::string_view e : loader::split_library_path(env->second)) {
          if (!e.empty() && e.find("/stubs") == std::string_view::npos) {
            kept.emplace_back(e);
          }
        }
      }
      FindingDraft d;
      d.id = ids::k_loader_stub_libcuda;
      d.subject = r.chosen->path;
      d.params = {
          {"stub", r.chosen->path}, {"name", r.name}, {"via", r.chosen->source}, {"real", real}};
      d.commands = {{"fix_command",
                     kept.empty()
                         ? util::Command("unset LD_LIBRARY_PATH")
                         : util::Command("export LD_LIBRARY_PATH=").value(util::join(kept, ":"))}};
      add_search_steps(r, d);
      out.add(std::move(d));
    }
  }
}

} // namespace doctor::checks
