// SPDX-License-Identifier: MIT
#include <doctor/loader/windows_search.hpp>
#include <doctor/report/resolve_report.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/json_bytes.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace doctor::report {

namespace {

using Json = nlohmann::ordered_json;

// The inventory's entry for the file at `real_path`, with its installation; the first one when
// several list it.
struct InventoryEntry {
  const facts::CudnnInstall* install = nullptr;
  const facts::CudnnLibrary* library = nullptr;
};

InventoryEntry find_in_inventory(const std::vector<facts::CudnnInstall>& cudnn,
                                 const std::string& real_path) {
  for (const facts::CudnnInstall& inst : cudnn) {
    for (const facts::CudnnLibrary& lib : inst.libraries) {
      if (lib.real_path == real_path) {
        return {&inst, &lib};
      }
    }
  }
  return {};
}

// Every candidate the report names: each winner, then the copies it shadows.
template<typename Fn>
void for_each_copy(const ResolveReport& report, Fn&& fn) {
  for (const loader::LoadStep& step : report.steps) {
    if (step.resolution.chosen) {
      fn(*step.resolution.chosen);
    }
    for (const loader::Candidate& c : step.resolution.shadowed) {
      fn(c);
    }
  }
}

// The label of a search step in the text's column: a long source ("RUNPATH of
// /very/long/libfoo.so") keeps its first words there and is written out in full on the next line.
constexpr std::size_t k_source_column = 28;

Json copy_json(const ResolveReport& report, const loader::Candidate& c) {
  return {{"path", c.path},
          {"real_path", c.real_path},
          {"via", loader::to_string(c.via)},
          {"source", c.source},
          {"about", describe_copy(report, c)}};
}

// The number of a search step in the loader's order, "7", or "7-206" for a run of paths that
// differ only in the folder; advances `n` past it.
std::string step_number(std::size_t& n, const loader::SearchStep& s) {
  const std::size_t first = n + 1;
  n += s.count;
  return s.count > 1 ? fmt::format("{}-{}", first, n) : std::to_string(first);
}

// "path: outcome", or for a run "libx.so.9: absent in each of 200 folders, from /a to /z".
// `sep` is the path separator: '/' on Linux, '\\' on Windows.
std::string step_text(const loader::SearchStep& s, char sep = '/') {
  if (s.count > 1) {
    const auto dir = [sep](std::string_view p) {
      const auto slash = p.rfind(sep);
      return slash == std::string_view::npos ? std::string_view() : p.substr(0, slash);
    };
    const auto slash = s.path.rfind(sep);
    return fmt::format("{}: {} in each of {} folders, from {} to {}",
                       slash == std::string::npos ? s.path : s.path.substr(slash + 1),
                       s.outcome,
                       s.count,
                       dir(s.path),
                       dir(s.last_path));
  }
  return s.path.empty() ? s.outcome : s.path + ": " + s.outcome;
}

// Every name, path, source and outcome comes from an examined file (DT_NEEDED strings, folder
// names): each is escaped for the terminal.
void render_tree_entries(const std::vector<TreeEntry>& entries,
                         int depth,
                         char sep,
                         std::string& out) {
  const std::string indent(static_cast<std::size_t>(depth) * 4, ' ');
  const auto x = [](std::string_view s) { return util::escape_terminal(s); };
  for (const TreeEntry& e : entries) {
    const loader::Resolution& r = e.resolution;
    if (e.api_set) {
      out +=
          fmt::format("{}{} => API set, mapped by the loader (not modelled)\n", indent, x(e.name));
      continue;
    }
    if (!r.chosen) {
      out += r.fatal_error != 0
                 ? fmt::format("{}{} fails: {}\n", indent, x(e.name), x(r.fatal_message))
             : !r.undetermined.empty()
                 ? fmt::format("{}{} cannot tell: {}\n", indent, x(e.name), x(r.undetermined))
                 : fmt::format("{}{} not found\n", indent, x(e.name));
      std::size_t n = 0;
      for (const loader::SearchStep& s : r.steps) {
        out += fmt::format(
            "{}    {}. {}: {}\n", indent, step_number(n, s), x(s.source), x(step_text(s, sep)));
      }
      continue;
    }
    // The line of every library found, written in place (a tree has hundreds).
    out += indent;
    util::append_escaped_terminal(out, e.name);
    out += " => ";
    util::append_escaped_terminal(out, r.chosen->path);
    out += " [";
    util::append_escaped_terminal(out, r.chosen->source);
    out += e.seen ? "] (see above)\n" : "]\n";
    if (r.fatal_error != 0) {
      out += fmt::format("{}    LoadLibrary fails here with error {}\n", indent, r.fatal_error);
    }
    render_tree_entries(e.needed, depth + 1, sep, out);
  }
}

} // namespace

std::vector<std::string> files_outside_inventory(const ResolveReport& report) {
  std::vector<std::string> out;
  for_each_copy(report, [&](const loader::Candidate& c) {
    if (!c.real_path.empty() && find_in_inventory(report.cudnn, c.real_path).library == nullptr
        && std::find(out.begin(), out.end(), c.real_path) == out.end()) {
      out.push_back(c.real_path);
    }
  });
  return out;
}

std::string describe_copy(const ResolveReport& report, const loader::Candidate& c) {
  std::vector<std::string> parts;
  if (const InventoryEntry in = find_in_inventory(report.cudnn, c.real_path); in.library) {
    std::string v =
        in.library->version ? "version " + in.library->version->str() : "version unknown";
    if (in.install->package) {
      v += " (" + *in.install->package + ")";
    }
    parts.push_back(std::move(v));
  } else if (!c.real_path.empty()) {
    if (const auto v = report.file_versions.find(c.real_path); v != report.file_versions.end()) {
      parts.push_back("cuDNN " + v->second.str());
    }
  }
  if (c.binary != nullptr && c.binary->format == "unknown") { // Windows: found first, cannot load
    parts.emplace_back("neither a PE nor an ELF image");
  } else if (c.binary != nullptr) {
    parts.push_back(fmt::format("{} {}-bit {}{}",
                                c.binary->format == "elf"  ? "ELF"
                                : c.binary->format == "pe" ? "PE"
                                                           : c.binary->format,
                                c.binary->bits,
                                c.binary->machine,
                                c.binary->soname.empty() ? "" : ", soname " + c.binary->soname));
  }
  return util::join(parts, ", ");
}

// Paths, sonames and the loader's messages come from the examined machine: each passes
// util::escape_terminal on its way out.
std::string render_resolve_text(const ResolveReport& report) {
  const auto e = [](std::string_view s) { return util::escape_terminal(s); };
  std::string out;
  if (!report.context.empty()) {
    out += e(report.context) + "\n\n";
  }
  for (const loader::LoadStep& step : report.steps) {
    const loader::Resolution& r = step.resolution;
    if (r.chosen) {
      out += fmt::format("{} => {} [{}]\n", e(r.name), e(r.chosen->path), e(r.chosen->source));
      const std::string about = describe_copy(report, *r.chosen);
      if (!about.empty()) {
        out += "  " + e(about) + "\n";
      }
      // Windows compares paths without regard to case.
      if (report.windows ? loader::windows_path_key(r.chosen->real_path)
                               != loader::windows_path_key(r.chosen->path)
                         : r.chosen->real_path != r.chosen->path) {
        out += "  real file " + e(r.chosen->real_path) + "\n";
      }
      if (r.fatal_error != 0) { // Windows: the first file of the name cannot be loaded
        out += fmt::format("  LoadLibrary fails here with error {}{}\n",
                           r.fatal_error,
                           r.fatal_error == 193 ? " (ERROR_BAD_EXE_FORMAT)" : "");
      }
    } else if (report.windows && r.undetermined.empty()) {
      out += fmt::format(
          "{} => not found: LoadLibrary fails with error 126 "
          "(ERROR_MOD_NOT_FOUND){}\n",
          e(r.name),
          r.unknown ? ", unless it is in a path below that could not be judged" : "");
    } else if (r.fatal_error != 0) {
      out += fmt::format(
          "{} => fails: {} (dlopen stops the search there)\n", e(r.name), e(r.fatal_message));
    } else if (!r.undetermined.empty()) {
      out += fmt::format("{} => cannot tell: {}\n", e(r.name), e(r.undetermined));
    } else {
      out += fmt::format("{} => not found\n", e(r.name));
    }
    out += fmt::format("  asked for by {}{}\n",
                       !r.requested_by.empty() ? e(r.requested_by)
                       : report.windows        ? "a program calling LoadLibraryW"
                                               : "a program without RPATH or RUNPATH",
                       step.reason.empty() ? "" : " (" + e(step.reason) + ")");
    out += "  paths considered, in order:\n";
    std::size_t n = 0;
    for (const loader::SearchStep& s : r.steps) {
      const std::string source = e(s.source);
      const bool long_source = source.size() > k_source_column;
      const auto of = source.find(" of ");
      const std::string label = !long_source ? source
                                : of != std::string::npos && of + 3 <= k_source_column
                                    ? source.substr(0, of)
                                    : std::string(util::cut_utf8(source, k_source_column));
      out += fmt::format("    {:>2}. {:<28} {}\n",
                         step_number(n, s),
                         label,
                         e(step_text(s, report.windows ? '\\' : '/')));
      if (long_source) {
        out += fmt::format("        ({})\n", source);
      }
    }
    if (!r.shadowed.empty()) {
      out += "  other copies, which lose:\n";
      for (const loader::Candidate& c : r.shadowed) {
        const std::string about = describe_copy(report, c);
        out += fmt::format(
            "    {}{} [{}]\n", e(c.path), about.empty() ? "" : " (" + e(about) + ")", e(c.source));
      }
    }
    out += "\n";
  }
  return out;
}

std::string render_resolve_json(const ResolveReport& report) {
  Json j;
  j["schema"] = std::string(k_resolve_schema);
  j["context"] = report.context;
  Json list = Json::array();
  for (const loader::LoadStep& step : report.steps) {
    const loader::Resolution& r = step.resolution;
    Json e;
    e["name"] = r.name;
    e["requested_by"] = r.requested_by.empty() ? Json(nullptr) : Json(r.requested_by);
    e["reason"] = step.reason;
    e["found"] = r.chosen ? copy_json(report, *r.chosen) : Json(nullptr);
    if (report.windows) { // GetLastError() of the failed LoadLibrary
      if (r.fatal_error != 0) {
        e["error"] = r.fatal_error;
      } else if (!r.chosen && r.undetermined.empty()) {
        e["error"] = loader::k_error_mod_not_found;
      }
    } else if (r.fatal_error != 0) {
      e["error"] = r.fatal_message;
    }
    if (!r.undetermined.empty()) {
      e["undetermined"] = r.undetermined;
    }
    Json considered = Json::array();
    for (const loader::SearchStep& s : r.steps) {
      Json c = {{"via", loader::to_string(s.via)},
                {"source", s.source},
                {"path", s.path},
                {"outcome", s.outcome},
                {"loadable", s.found}};
      if (s.count > 1) { // a run: as many paths as `count`, from `path` to `last_path`
        c["count"] = s.count;
        c["last_path"] = s.last_path;
      }
      considered.push_back(std::move(c));
    }
    e["considered"] = considered;
    Json others = Json::array();
    for (const loader::Candidate& c : r.shadowed) {
      others.push_back(copy_json(report, c));
    }
    e["shadowed"] = others;
    list.push_back(e);
  }
  j["resolutions"] = list;
  util::keep_bytes(j);
  return j.dump(2) + "\n";
}

std::string render_resolve_tree(const ResolveTree& tree) {
  std::string out =
      fmt::format("{} [{}]\n",
                  util::escape_terminal(tree.path),
                  tree.soname.empty() ? "no soname" : util::escape_terminal(tree.soname));
  render_tree_entries(tree.needed, 1, tree.windows ? '\\' : '/', out);
  return out;
}

} // namespace doctor::report
