// SPDX-License-Identifier: MIT
#include "resolve.hpp"

#include "commands.hpp"
#include "run.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/collect/sysroot_probe.hpp>
#include <doctor/loader/analysis.hpp>
#include <doctor/platform/environment.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/host.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <set>

namespace doctor::cli {

namespace {

using Json = nlohmann::ordered_json;

// What is known about a resolved file: its cuDNN version (from the inventory, else from its name
// or the version object it exports) and package, and its ELF class, machine and soname.
std::string describe_copy(const platform::SysRoot& root,
                          const facts::Facts& facts,
                          const loader::Candidate& c) {
  std::vector<std::string> parts;
  bool in_inventory = false;
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    for (const facts::CudnnLibrary& lib : inst.libraries) {
      if (lib.real_path == c.real_path && !in_inventory) {
        in_inventory = true;
        std::string v = lib.version ? "version " + lib.version->str() : "version unknown";
        if (inst.package) {
          v += " (" + *inst.package + ")";
        }
        parts.push_back(std::move(v));
      }
    }
  }
  if (!in_inventory && !c.real_path.empty()) {
    if (auto v = collect::cudnn_library_version(root, c.real_path)) {
      parts.push_back("cuDNN " + v->str());
    }
  }
  if (c.binary != nullptr) {
    parts.push_back(fmt::format("{} {}-bit {}{}",
                                c.binary->format == "elf" ? "ELF" : c.binary->format,
                                c.binary->bits,
                                c.binary->machine,
                                c.binary->soname.empty() ? "" : ", soname " + c.binary->soname));
  }
  return util::join(parts, ", ");
}

// A path from the command line as the model's inner path: on the live machine a relative path is
// taken from the current directory (`resolve --python .venv`); with --sysroot paths are inside the
// tree, where there is no current directory, so they stay as given.
std::string as_inner_path(const platform::SysRoot& root, const std::string& arg) {
  if (root.is_live() && !arg.empty() && arg.front() != '/') {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(arg, ec);
    if (!ec) {
      return util::normalize_path(absolute.generic_string());
    }
  }
  return util::normalize_path(arg);
}

std::string render_text(const platform::SysRoot& root,
                        const facts::Facts& facts,
                        const std::string& title,
                        const std::vector<loader::LoadStep>& steps) {
  std::string out;
  if (!title.empty()) {
    out += title + "\n\n";
  }
  for (const loader::LoadStep& step : steps) {
    const loader::Resolution& r = step.resolution;
    if (r.chosen) {
      out += fmt::format("{} => {} [{}]\n", r.name, r.chosen->path, r.chosen->source);
      const std::string about = describe_copy(root, facts, *r.chosen);
      if (!about.empty()) {
        out += "  " + about + "\n";
      }
      if (r.chosen->real_path != r.chosen->path) {
        out += "  real file " + r.chosen->real_path + "\n";
      }
    } else if (r.fatal_error != 0) {
      out +=
          fmt::format("{} => fails: {} (dlopen stops the search there)\n", r.name, r.fatal_message);
    } else {
      out += fmt::format("{} => not found\n", r.name);
    }
    out +=
        fmt::format("  asked for by {}{}\n",
                    r.requested_by.empty() ? "a program without RPATH or RUNPATH" : r.requested_by,
                    step.reason.empty() ? "" : " (" + step.reason + ")");
    out += "  paths considered, in order:\n";
    std::size_t n = 0;
    for (const loader::SearchStep& s : r.steps) {
      // A long source ("RUNPATH of /very/long/libfoo.so") keeps its first words in the column
      // and is written out in full on the next line.
      const bool long_source = s.source.size() > 28;
      const auto of = s.source.find(" of ");
      const std::string label = !long_source                              ? s.source
                                : of != std::string::npos && of + 3 <= 28 ? s.source.substr(0, of)
                                                                          : s.source.substr(0, 28);
      out += fmt::format(
          "    {:>2}. {:<28} {}{}\n", ++n, label, s.path.empty() ? "" : s.path + ": ", s.outcome);
      if (long_source) {
        out += fmt::format("        ({})\n", s.source);
      }
    }
    if (!r.shadowed.empty()) {
      out += "  other copies, which lose:\n";
      for (const loader::Candidate& c : r.shadowed) {
        const std::string about = describe_copy(root, facts, c);
        out += fmt::format(
            "    {}{} [{}]\n", c.path, about.empty() ? "" : " (" + about + ")", c.source);
      }
    }
    out += "\n";
  }
  return out;
}

Json render_json(const platform::SysRoot& root,
                 const facts::Facts& facts,
                 const std::string& title,
                 const std::vector<loader::LoadStep>& steps) {
  Json j;
  j["schema"] = "cudnn-doctor-resolve/1";
  j["context"] = title;
  Json list = Json::array();
  for (const loader::LoadStep& step : steps) {
    const loader::Resolution& r = step.resolution;
    Json e;
    e["name"] = r.name;
    e["requested_by"] = r.requested_by.empty() ? Json(nullptr) : Json(r.requested_by);
    e["reason"] = step.reason;
    if (r.chosen) {
      e["found"] = {{"path", r.chosen->path},
                    {"real_path", r.chosen->real_path},
                    {"via", loader::to_string(r.chosen->via)},
                    {"source", r.chosen->source},
                    {"about", describe_copy(root, facts, *r.chosen)}};
    } else {
      e["found"] = nullptr;
    }
    if (r.fatal_error != 0) {
      e["error"] = r.fatal_message;
    }
    Json considered = Json::array();
    for (const loader::SearchStep& s : r.steps) {
      considered.push_back({{"via", loader::to_string(s.via)},
                            {"source", s.source},
                            {"path", s.path},
                            {"outcome", s.outcome},
                            {"loadable", s.found}});
    }
    e["considered"] = considered;
    Json others = Json::array();
    for (const loader::Candidate& c : r.shadowed) {
      others.push_back({{"path", c.path},
                        {"real_path", c.real_path},
                        {"via", loader::to_string(c.via)},
                        {"source", c.source},
                        {"about", describe_copy(root, facts, c)}});
    }
    e["shadowed"] = others;
    list.push_back(e);
  }
  j["resolutions"] = list;
  return j;
}

// libtree-style: every DT_NEEDED of `object`, recursively, each resolved with the chain of
// objects that led to it (so RPATHs are inherited exactly as ld.so does). A library already
// resolved is shown once with "(see above)", as the loader maps it once.
void tree(const loader::LinuxLoaderConfig& config,
          loader::FileProbe& probe,
          const std::vector<loader::LoaderObject>& chain,
          std::set<std::string>& seen,
          int depth,
          std::string& out,
          bool& all_found) {
  const facts::BinaryInfo* b = chain.front().binary;
  if (b == nullptr || depth > 32) {
    return;
  }
  for (const std::string& dep : b->needed) {
    const loader::Resolution r = loader::resolve_linux(dep, chain, config, probe);
    const std::string indent(static_cast<std::size_t>(depth) * 4, ' ');
    if (!r.chosen) {
      all_found = false;
      out += r.fatal_error != 0 ? fmt::format("{}{} fails: {}\n", indent, dep, r.fatal_message)
                                : fmt::format("{}{} not found\n", indent, dep);
      std::size_t n = 0;
      for (const loader::SearchStep& s : r.steps) {
        out += fmt::format("{}    {}. {}: {}{}\n",
                           indent,
                           ++n,
                           s.source,
                           s.path.empty() ? "" : s.path + ": ",
                           s.outcome);
      }
      continue;
    }
    const bool again = !seen.insert(r.chosen->real_path).second;
    out += fmt::format("{}{} => {} [{}]{}\n",
                       indent,
                       dep,
                       r.chosen->path,
                       r.chosen->source,
                       again ? " (see above)" : "");
    if (again) {
      continue;
    }
    std::vector<loader::LoaderObject> next = chain;
    next.insert(next.begin(), loader::LoaderObject{r.chosen->path, r.chosen->binary});
    tree(config, probe, next, seen, depth + 1, out, all_found);
  }
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
  const platform::SysRoot root = make_root(target);
  collect::CollectOptions copts = collect_options(target);
  // What the loader model needs: the environment, the architecture and the linker's settings;
  // cuDNN versions (through the toolkits and Python environments that lead to them) for display,
  // except in --tree mode, which only walks dependencies.
  copts.only = {"environment", "os", "linker"};
  if (!options.python.empty()) {
    copts.python_prefixes.push_back(as_inner_path(root, options.python));
  }
  if (!options.tree) {
    copts.only.insert(copts.only.end(), {"python", "cuda", "cudnn"});
  }
  facts::Facts facts = collect::collect(root, copts);
  collect::SysRootProbe probe(root);

  if (options.tree) {
    if (options.format == report::Format::json) {
      throw CommandError{k_exit_usage, "--tree prints text only; drop --format json"};
    }
    const std::string path = as_inner_path(root, options.name);
    const loader::PathState st = probe.probe(path);
    if (!st.exists || st.binary == nullptr || st.binary->format != "elf") {
      throw CommandError{k_exit_usage, fmt::format("--tree {}: not an ELF file", options.name)};
    }
    std::string out =
        fmt::format("{} [{}]\n", path, st.binary->soname.empty() ? "no soname" : st.binary->soname);
    std::set<std::string> seen{st.real_path};
    bool all_found = true;
    tree(loader::linux_config_from(facts), probe, {{path, st.binary}}, seen, 1, out, all_found);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return all_found ? k_exit_ok : k_exit_findings;
  }

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

  const std::string text = options.format == report::Format::json
                               ? render_json(root, facts, title, steps).dump(2) + "\n"
                               : render_text(root, facts, title, steps);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  for (const loader::LoadStep& s : steps) {
    if (!s.resolution.chosen) {
      return k_exit_findings;
    }
  }
  return k_exit_ok;
}

} // namespace doctor::cli
