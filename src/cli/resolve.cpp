// SPDX-License-Identifier: MIT
#include "resolve.hpp"

#include "commands.hpp"
#include "resolve_windows.hpp"
#include "run.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/collect/ld_cache_lookup.hpp>
#include <doctor/collect/sysroot_probe.hpp>
#include <doctor/collect/windows_probe.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/loader/facts_probe.hpp>
#include <doctor/platform/environment.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/host.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/report/resolve_report.hpp>
#include <doctor/util/paths.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace doctor::cli {

namespace {

// A path from the command line as the model's inner path: on the live machine a relative path is
// taken from the current directory (`resolve --python .venv`); with --sysroot paths are inside the
// tree, where there is no current directory, so they stay as given.
std::string as_inner_path(const platform::SysRoot& root, const std::string& arg) {
  if (root.is_live() && !arg.empty() && arg.front() != '/') {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(platform::u8path(arg), ec);
    if (!ec) {
      return util::normalize_path(platform::generic_utf8(absolute));
    }
  }
  return util::normalize_path(arg);
}

// The deepest DT_NEEDED level --tree resolves (a guard against a loop the seen set misses).
constexpr int k_max_tree_depth = 32;

// libtree-style: every DT_NEEDED of the object at the front of `chain`, recursively, each
// resolved with the chain of objects that led to it (so RPATHs are inherited exactly as ld.so
// does). A file already resolved is marked seen and not walked again, as the loader maps it once.
// `all_found` turns false at an entry that is not found; `undetermined` takes the reason of an
// entry the doctor could not judge (out of memory or descriptors).
std::vector<report::TreeEntry> walk_tree(const loader::LinuxLoaderConfig& config,
                                         loader::FileProbe& probe,
                                         const std::vector<loader::LoaderObject>& chain,
                                         std::set<std::string>& seen,
                                         int depth,
                                         bool& all_found,
                                         std::string& undetermined) {
  std::vector<report::TreeEntry> out;
  const facts::BinaryInfo* b = chain.front().binary;
  if (b == nullptr || depth > k_max_tree_depth) {
    return out;
  }
  out.reserve(b->needed.size());
  for (const std::string& dep : b->needed) {
    report::TreeEntry e;
    e.name = dep;
    e.resolution = loader::resolve_linux_first(dep, chain, config, probe);
    if (!e.resolution.undetermined.empty()) {
      undetermined = e.resolution.undetermined;
    }
    if (!e.resolution.chosen) {
      all_found = false;
      out.push_back(std::move(e));
      continue;
    }
    const loader::Candidate& found = *e.resolution.chosen;
    e.seen = !seen.insert(found.real_path).second;
    if (!e.seen) {
      std::vector<loader::LoaderObject> next = chain;
      next.insert(next.begin(), loader::LoaderObject{found.path, found.binary});
      e.needed = walk_tree(config, probe, next, seen, depth + 1, all_found, undetermined);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// What a --tree walk builds: the loader's settings, every library's headers, the resolutions of
// every entry. The facts hold the environment and the architecture; the loader's default
// directories and /etc/ld.so.cache come straight from the machine, the cache read by name where
// it lies (a tree asks for a few dozen of its thousands of entries), not copied into the facts.
struct TreeWalk {
  TreeWalk(const platform::SysRoot& root, facts::Facts&& walk_facts)
      : facts(std::move(walk_facts))
      , probe(root, collect::SysRootProbe::Depth::loader) {
    facts.linker.default_dirs = collect::linker_default_dirs(root, facts);
    config = loader::linux_config_from(facts, std::nullopt);
    if (auto cache = collect::open_ld_cache(root)) {
      config.cache_lookup = std::move(*cache);
    }
  }

  facts::Facts facts;
  loader::LinuxLoaderConfig config;
  collect::SysRootProbe probe;
  report::ResolveTree tree;
  std::set<std::string> seen;
};

// Called with the walk once its tree is written, just before the command returns and the process
// ends: the thousands of nodes it holds (every path looked at, every library's headers, every
// entry's resolution) are then not freed one by one, which cost more than writing the tree (the
// kernel takes the heap back whole at exit), as compilers leave their syntax trees. Only release
// builds leave them: a debug or sanitizer build frees them, so that leak checks stay exact.
void leave_to_exit(std::unique_ptr<TreeWalk> walk) {
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
  static_cast<void>(walk.release());
#else
  walk.reset();
#endif
}

} // namespace

int run_resolve(const ResolveOptions& options) {
  if (!options.from.empty() && !options.python.empty()) {
    throw CommandError{k_exit_usage, "--from and --python cannot be combined"};
  }
  if (options.name.empty() && options.python.empty()) {
    throw CommandError{k_exit_usage, "resolve needs a library NAME, or --python ENV"};
  }
  TargetOptions target = options.target;
  target.no_nvml = true;
  if (!target.snapshot.empty()) {
    if (!target.sysroot.empty()) {
      throw CommandError{k_exit_usage, "--snapshot and --sysroot cannot be combined"};
    }
    const facts::Facts facts = load_snapshot(target.snapshot);
    if (facts.collection.os_family != "windows") {
      throw CommandError{k_exit_usage,
                         "--snapshot: resolve reads snapshots of Windows machines only; for "
                         "Linux, resolve on the machine or with --sysroot"};
    }
    loader::FactsProbe probe(facts);
    return run_resolve_windows(options, false, facts, probe);
  }
  const platform::SysRoot root = make_root(target);
  // Resolving starts no child: the NVML one is off (above), and nothing else here asks for one.
  collect::CollectOptions copts = collect_options(target, false);
  if (root.os() == platform::OsFamily::windows) {
    copts.only = windows_resolve_collectors(options.tree);
    if (!options.python.empty()) {
      copts.python_prefixes.push_back(windows_argument_path(root.is_live(), options.python));
    }
    const facts::Facts facts = collect::collect(root, copts);
    collect::WindowsProbe probe(root, facts);
    return run_resolve_windows(options, root.is_live(), facts, probe);
  }
  // What the loader model needs: the environment, the architecture and the linker's settings;
  // cuDNN versions (through the toolkits and Python environments that lead to them) for display,
  // except in --tree mode, which only walks dependencies. Not the OS release, CPU or memory.
  // A tree reads the linker's settings itself (TreeWalk): ld.so.conf is not needed.
  copts.only = {"environment", "architecture"};
  if (!options.python.empty()) {
    copts.python_prefixes.push_back(as_inner_path(root, options.python));
  }
  if (!options.tree) {
    copts.only.insert(copts.only.end(), {"linker", "python", "cuda", "cudnn"});
  }
  facts::Facts facts = collect::collect(root, copts);

  if (options.tree) {
    if (options.output.format == report::Format::json) {
      throw CommandError{k_exit_usage, "--tree prints text only; drop --format json"};
    }
    // A tree reads of each library it meets only what ld.so reads (SysRootProbe::Depth::loader),
    // the file named here too: a file that read cannot take (unreadable, not ELF, an odd layout)
    // is read whole, as every other answer reads a file, so that its verdict (unreadable, not
    // regular, not ELF, or beyond the doctor's own resources) is theirs.
    auto owned = std::make_unique<TreeWalk>(root, std::move(facts));
    TreeWalk& walk = *owned;
    const std::string path = as_inner_path(root, options.name);
    const loader::PathState st = walk.probe.probe(path);
    if (st.exists && st.binary != nullptr && !st.binary->read_error.empty()) {
      // Unreadable is its own answer; out of memory or descriptors is the doctor's failure.
      throw CommandError{st.binary->read_error == "resource" ? k_exit_internal : k_exit_usage,
                         fmt::format("--tree {}: cannot be read: {}",
                                     options.name,
                                     st.binary->read_error_message)};
    }
    if (st.exists && !st.kind.empty() && st.kind != "regular" && st.kind != "directory") {
      throw CommandError{k_exit_usage,
                         fmt::format("--tree {}: not a regular file ({})", options.name, st.kind)};
    }
    if (!st.exists || st.binary == nullptr || st.binary->format != "elf") {
      throw CommandError{k_exit_usage, fmt::format("--tree {}: not an ELF file", options.name)};
    }
    report::ResolveTree& tree = walk.tree;
    tree.path = path;
    tree.soname = st.binary->soname;
    walk.seen.insert(st.real_path);
    bool all_found = true;
    std::string undetermined;
    tree.needed = walk_tree(
        walk.config, walk.probe, {{path, st.binary}}, walk.seen, 1, all_found, undetermined);
    write_output("", report::render_resolve_tree(tree));
    leave_to_exit(std::move(owned));
    if (!undetermined.empty()) {
      throw CommandError{k_exit_internal, fmt::format("cannot tell: {}", undetermined)};
    }
    return all_found ? k_exit_ok : k_exit_findings;
  }

  collect::SysRootProbe probe(root);
  std::vector<loader::LoadStep> steps;
  std::string title;
  if (!options.python.empty()) {
    const std::string prefix = as_inner_path(root, options.python);
    bool have_env = false;
    for (const facts::PythonEnv& env : facts.python_envs) {
      have_env =
          have_env || env.prefix == prefix || root.resolve(prefix).value_or("") == env.prefix;
    }
    if (!have_env) {
      throw CommandError{
          k_exit_usage,
          fmt::format(
              "--python {}: not a Python environment the doctor found "
              "(give its prefix, e.g. the venv directory; with --sysroot, a path inside the tree)",
              options.python)};
    }
    // The knowledge base (library sets, framework rules) only matters here; parsing it costs a
    // third of a plain resolve.
    const kb::KnowledgeBase kb = load_kb(target);
    for (const loader::LoadContext& ctx : loader::analyse_linux(facts, kb, probe)) {
      if (ctx.subject != prefix && ctx.subject != root.resolve(prefix).value_or("")) {
        continue;
      }
      if (!title.empty()) {
        title += "; ";
      }
      title += ctx.description;
      for (const loader::LoadStep& s : ctx.steps) {
        if (options.name.empty() || s.resolution.name == options.name) {
          steps.push_back(s);
        }
      }
    }
    if (title.empty()) {
      throw CommandError{
          k_exit_usage,
          fmt::format("--python {}: no GPU build of torch or TensorFlow there", options.python)};
    }
  } else {
    std::vector<loader::LoaderObject> chain;
    if (!options.from.empty()) {
      const std::string from = as_inner_path(root, options.from);
      const loader::PathState st = probe.probe(from);
      if (st.exists && !st.kind.empty() && st.kind != "regular") {
        throw CommandError{
            k_exit_usage, fmt::format("--from {}: not a regular file ({})", options.from, st.kind)};
      }
      if (!st.exists || st.binary == nullptr) {
        throw CommandError{k_exit_usage, fmt::format("--from {}: no such file", options.from)};
      }
      if (st.binary->format != "elf") {
        throw CommandError{k_exit_usage,
                           fmt::format("--from {}: not an ELF file ({})",
                                       options.from,
                                       st.binary->problems.empty() ? st.binary->format
                                                                   : st.binary->problems.front())};
      }
      chain.push_back(loader::LoaderObject{from, st.binary});
      title = fmt::format("as loaded by {}", from);
    } else {
      title = "as loaded by a program without RPATH or RUNPATH";
    }
    loader::LoadStep step;
    step.role = loader::role_of(options.name);
    step.reason = options.from.empty() ? "" : "dlopen or DT_NEEDED";
    step.resolution =
        loader::resolve_linux(options.name, chain, loader::linux_config_from(facts), probe);
    steps.push_back(std::move(step));
  }

  report::ResolveReport rep;
  rep.context = std::move(title);
  rep.steps = std::move(steps);
  rep.cudnn = facts.cudnn;
  // The cuDNN version of a file the inventory does not list, from the file itself.
  for (const std::string& file : report::files_outside_inventory(rep)) {
    if (auto v = collect::cudnn_library_version(root, file)) {
      rep.file_versions.emplace(file, std::move(*v));
    }
  }
  write_output("",
               options.output.format == report::Format::json ? report::render_resolve_json(rep)
                                                             : report::render_resolve_text(rep));
  for (const loader::LoadStep& s : rep.steps) {
    if (!s.resolution.undetermined.empty()) {
      throw CommandError{k_exit_internal,
                         fmt::format("cannot tell where {} loads from: {}",
                                     s.resolution.name,
                                     s.resolution.undetermined)};
    }
  }
  for (const loader::LoadStep& s : rep.steps) {
    if (!s.resolution.chosen) {
      return k_exit_findings;
    }
  }
  return k_exit_ok;
}

} // namespace doctor::cli
