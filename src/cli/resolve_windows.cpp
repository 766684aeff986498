// SPDX-License-Identifier: MIT
#include "resolve_windows.hpp"

#include "commands.hpp"
#include "run.hpp"

#include <doctor/collect/windows_probe.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/report/resolve_report.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace doctor::cli {

namespace {

// The deepest import level --tree resolves (a guard against a loop the seen set misses).
constexpr int k_max_import_depth = 32;

// An API set name ("api-ms-win-crt-runtime-l1-1-0.dll"): the loader maps it to a host DLL through
// the API set schema, not by searching for a file (not modelled).
bool is_api_set(const std::string& name) {
  const std::string lower = util::to_lower(name);
  return lower.starts_with("api-ms-win-") || lower.starts_with("ext-ms-");
}

bool is_executable(const std::string& path) {
  return util::to_lower(path).ends_with(".exe");
}

bool is_extension_module(const std::string& path) {
  return util::to_lower(path).ends_with(".pyd");
}

// The PE image at Windows path `path` through `probe`, or a usage error naming `option`.
const facts::BinaryInfo*
pe_image(loader::FileProbe& probe, const std::string& path, const std::string& option) {
  const loader::PathState st = probe.probe(loader::windows_path_key(path));
  if (st.exists && st.binary != nullptr && !st.binary->read_error.empty()) {
    throw CommandError{
        st.binary->read_error == "resource" ? k_exit_internal : k_exit_usage,
        fmt::format("{} {}: cannot be read: {}", option, path, st.binary->read_error_message)};
  }
  if (st.exists && !st.kind.empty() && st.kind != "regular") {
    throw CommandError{k_exit_usage,
                       fmt::format("{} {}: not a regular file ({})", option, path, st.kind)};
  }
  if (!st.exists || st.binary == nullptr) {
    throw CommandError{k_exit_usage, fmt::format("{} {}: no such file", option, path)};
  }
  if (st.binary->format != "pe") {
    throw CommandError{k_exit_usage, fmt::format("{} {}: not a PE image", option, path)};
  }
  return st.binary;
}

// The request and title of an image loaded by full path whose imports are resolved: an .exe is
// the process itself (its folder is the application directory); a .pyd is imported as CPython
// 3.8+ does; any other DLL is loaded with LOAD_WITH_ALTERED_SEARCH_PATH, so its imports are
// looked for in its own folder first.
loader::WindowsLoadRequest
image_request(const std::string& path, loader::WindowsLoaderConfig& config, std::string& title) {
  if (is_executable(path)) {
    config.application_dir = loader::windows_parent(path);
    title = fmt::format("as loaded by the program {}", path);
    loader::WindowsLoadRequest r;
    r.requested_by = path;
    return r;
  }
  if (is_extension_module(path)) {
    title = fmt::format("as imported by CPython 3.8+ from the extension module {}", path);
    return loader::python_extension_request(path, 10);
  }
  title = fmt::format("as imported by {}, loaded by full path with LOAD_WITH_ALTERED_SEARCH_PATH",
                      path);
  loader::WindowsLoadRequest r;
  r.flags = loader::k_load_with_altered_search_path;
  r.load_dir = loader::windows_parent(path);
  r.requested_by = path;
  return r;
}

// The import tree of the image at the front: each import resolved as the loader does while it
// loads the image at the root, every module found added to the loaded-module list (so a name met
// again is "already loaded"), and not walked again.
std::vector<report::TreeEntry> walk_imports(const loader::WindowsLoaderConfig& config,
                                            const loader::WindowsLoadRequest& base,
                                            loader::FileProbe& probe,
                                            const facts::BinaryInfo& image,
                                            const std::string& image_path,
                                            std::vector<loader::LoadedModule>& loaded,
                                            std::set<std::string>& seen,
                                            int depth,
                                            bool& all_found,
                                            std::string& undetermined) {
  std::vector<report::TreeEntry> out;
  if (depth > k_max_import_depth) {
    return out;
  }
  for (const std::string& dep : image.needed) {
    report::TreeEntry e;
    e.name = dep;
    if (is_api_set(dep)) {
      e.api_set = true;
      out.push_back(std::move(e));
      continue;
    }
    loader::WindowsLoadRequest request = base;
    request.requested_by = image_path;
    request.loaded = loaded;
    e.resolution = loader::resolve_windows(dep, request, config, probe);
    if (!e.resolution.undetermined.empty()) {
      undetermined = e.resolution.undetermined;
    }
    if (!e.resolution.chosen || e.resolution.fatal_error != 0) {
      all_found = false;
      out.push_back(std::move(e));
      continue;
    }
    const loader::Candidate& found = *e.resolution.chosen;
    e.seen = !seen.insert(loader::windows_path_key(found.real_path)).second;
    if (!e.seen) {
      loaded.push_back({loader::windows_file_name(found.path), found.path});
      if (found.binary != nullptr) {
        e.needed = walk_imports(config,
                                base,
                                probe,
                                *found.binary,
                                found.path,
                                loaded,
                                seen,
                                depth + 1,
                                all_found,
                                undetermined);
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

int run_import_tree(const ResolveOptions& options,
                    bool live,
                    const facts::Facts& facts,
                    loader::FileProbe& probe) {
  if (options.output.format == report::Format::json) {
    throw CommandError{k_exit_usage, "--tree prints text only; drop --format json"};
  }
  const std::string path = windows_argument_path(live, options.name);
  const facts::BinaryInfo* image = pe_image(probe, path, "--tree");
  loader::WindowsLoaderConfig config = loader::windows_config_from(facts);
  std::string title;
  const loader::WindowsLoadRequest base = image_request(path, config, title);
  report::ResolveTree tree;
  tree.windows = true;
  tree.path = path;
  tree.soname = fmt::format("PE {}-bit {}", image->bits, image->machine);
  std::vector<loader::LoadedModule> loaded{{loader::windows_file_name(path), path}};
  std::set<std::string> seen{loader::windows_path_key(path)};
  bool all_found = true;
  std::string undetermined;
  tree.needed =
      walk_imports(config, base, probe, *image, path, loaded, seen, 1, all_found, undetermined);
  write_output("", report::render_resolve_tree(tree));
  if (!undetermined.empty()) {
    throw CommandError{k_exit_internal, fmt::format("cannot tell: {}", undetermined)};
  }
  return all_found ? k_exit_ok : k_exit_findings;
}

// The steps of the frameworks of the --python environment, as LoadSteps; `title` gets their
// descriptions.
std::vector<loader::LoadStep> python_steps(const ResolveOptions& options,
                                           bool live,
                                           const facts::Facts& facts,
                                           loader::FileProbe& probe,
                                           std::string& title) {
  const std::string prefix = loader::windows_path_key(windows_argument_path(live, options.python));
  bool have_env = false;
  for (const facts::PythonEnv& env : facts.python_envs) {
    have_env = have_env || loader::windows_path_key(env.prefix) == prefix;
  }
  if (!have_env) {
    throw CommandError{
        k_exit_usage,
        fmt::format("--python {}: not a Python environment the doctor found (give its prefix, "
                    "e.g. the venv folder; with --sysroot, a Windows path such as C:\\venv)",
                    options.python)};
  }
  const kb::KnowledgeBase kb = load_kb(options.target);
  std::vector<loader::LoadStep> steps;
  const std::string name = util::to_lower(options.name);
  for (const loader::WindowsLoadContext& ctx : loader::analyse_windows(facts, kb, probe)) {
    const auto colon = ctx.id.find(':');
    if (colon == std::string::npos
        || loader::windows_path_key(ctx.id.substr(colon + 1)) != prefix) {
      continue;
    }
    if (!title.empty()) {
      title += "; ";
    }
    title += ctx.description;
    for (const loader::WindowsLoadStep& s : ctx.steps) {
      if (!name.empty() && util::to_lower(loader::windows_file_name(s.dll)) != name
          && util::to_lower(s.resolution.name) != name) {
        continue;
      }
      loader::LoadStep step;
      step.resolution = s.resolution;
      if (step.resolution.requested_by.empty()) { // the framework's own load
        step.resolution.requested_by = "the Python process of " + ctx.id.substr(colon + 1);
      }
      step.role = s.role;
      step.reason = s.reason;
      if (s.error == loader::k_error_mod_not_found && s.resolution.chosen) {
        step.reason += (step.reason.empty() ? "" : "; ")
                       + std::string("the load fails with error 126: an import is missing");
      }
      steps.push_back(std::move(step));
    }
  }
  if (title.empty()) {
    throw CommandError{k_exit_usage,
                       fmt::format("--python {}: no GPU build of torch, TensorFlow, Paddle or "
                                   "ONNX Runtime there",
                                   options.python)};
  }
  return steps;
}

} // namespace

std::vector<std::string> windows_resolve_collectors(bool tree) {
  std::vector<std::string> only{"environment", "os"};
  if (!tree) {
    only.insert(only.end(), {"python", "cuda", "cudnn"});
  }
  return only;
}

std::string windows_argument_path(bool live, const std::string& arg) {
  if (live && !arg.empty() && !loader::is_absolute_windows_path(arg)) {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(platform::u8path(arg), ec);
    if (!ec) {
      return loader::normalize_windows_path(platform::generic_utf8(absolute));
    }
  }
  return loader::normalize_windows_path(arg);
}

int run_resolve_windows(const ResolveOptions& options,
                        bool live,
                        const facts::Facts& facts,
                        loader::FileProbe& probe) {
  if (options.tree) {
    return run_import_tree(options, live, facts, probe);
  }
  std::vector<loader::LoadStep> steps;
  std::string title;
  if (!options.python.empty()) {
    steps = python_steps(options, live, facts, probe, title);
  } else {
    loader::WindowsLoaderConfig config = loader::windows_config_from(facts);
    loader::WindowsLoadRequest request;
    if (!options.from.empty()) {
      const std::string from = windows_argument_path(live, options.from);
      pe_image(probe, from, "--from");
      request = image_request(from, config, title);
    } else {
      title = "as loaded by LoadLibraryW in a program started with this machine's PATH";
    }
    loader::LoadStep step;
    step.role = loader::windows_role_of(options.name);
    step.reason = options.from.empty() ? "" : "import table or LoadLibrary";
    step.resolution = loader::resolve_windows(options.name, request, config, probe);
    steps.push_back(std::move(step));
  }

  if (!facts.collection.collected_at.empty() && !options.target.snapshot.empty()) {
    // A snapshot holds only the paths the collectors looked at; the others say so.
    title += fmt::format(
        " (snapshot of {}: a path it did not record is \"not recorded in the "
        "snapshot\")",
        facts.collection.collected_at);
  }
  report::ResolveReport rep;
  rep.windows = true;
  rep.context = std::move(title);
  rep.steps = std::move(steps);
  rep.cudnn = facts.cudnn;
  // The cuDNN version of a DLL the inventory does not list, from its version resource.
  const std::vector<std::string> outside = report::files_outside_inventory(rep);
  const auto note_version = [&](const loader::Candidate& c) {
    if (c.binary == nullptr
        || std::find(outside.begin(), outside.end(), c.real_path) == outside.end()) {
      return;
    }
    if (auto v = collect::cudnn_dll_version(*c.binary)) {
      rep.file_versions.emplace(c.real_path, std::move(*v));
    }
  };
  for (const loader::LoadStep& s : rep.steps) {
    if (s.resolution.chosen) {
      note_version(*s.resolution.chosen);
    }
    for (const loader::Candidate& c : s.resolution.shadowed) {
      note_version(c);
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
    if (!s.resolution.chosen || s.resolution.fatal_error != 0) {
      return k_exit_findings;
    }
  }
  return k_exit_ok;
}

} // namespace doctor::cli
