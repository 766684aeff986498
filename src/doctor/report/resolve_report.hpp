// SPDX-License-Identifier: MIT
// The output of `resolve` (docs/resolve.md): for each library asked for, the copy the loader
// picks and how, every path considered in order and the copies that lose, as text for people or
// JSON (schema cudnn-doctor-resolve/1) for programs; and `--tree`, a libtree-style text of an
// object's whole DT_NEEDED tree. Pure: the CLI resolves and reads what the files say first.
#pragma once

#include <doctor/loader/analysis.hpp>
#include <doctor/loader/resolution.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/util/version.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::report {

inline constexpr std::string_view k_resolve_schema = "cudnn-doctor-resolve/1";

// What `resolve` found in one context, with what is known about the files it names.
struct ResolveReport {
  // "as loaded by /opt/app/bin/train", "as loaded by a program without RPATH or RUNPATH", or the
  // descriptions of a --python environment's frameworks joined by "; ". Empty: no title line.
  std::string context;
  std::vector<loader::LoadStep> steps;
  // The inventory's cuDNN installations: a file among their libraries is described by the
  // library's version and the installation's package.
  std::vector<facts::CudnnInstall> cudnn;
  // cuDNN versions read from the files themselves (file name, exported version object), by real
  // path, for the files `files_outside_inventory` names.
  std::map<std::string, Version> file_versions;
  // The examined machine is Windows: paths are Windows paths, the default caller is a program
  // calling LoadLibraryW, and a failed load is named by its error (126, 193).
  bool windows = false;
};

// The real paths of the files the report names (winners and losers) that no cuDNN installation
// of `report.cudnn` lists, in order of appearance, each once: those whose version
// `file_versions` supplies.
std::vector<std::string> files_outside_inventory(const ResolveReport& report);

// What is known about one file: its cuDNN version (from the inventory, else `file_versions`) and
// package, and its format, class, machine and soname ("version 9.19.0 (pip …), ELF 64-bit
// x86-64, soname libcudnn.so.9"). Empty when nothing is known.
std::string describe_copy(const ResolveReport& report, const loader::Candidate& copy);

// The text of `resolve`: the context, then per library its winner (or "not found", or the file
// at which the load fails), who asked for it, the numbered paths considered and the losers.
std::string render_resolve_text(const ResolveReport& report);

// The JSON document (schema k_resolve_schema), with a final newline.
std::string render_resolve_json(const ResolveReport& report);

// One DT_NEEDED entry of a `--tree` walk, resolved with the chain of objects that led to it.
struct TreeEntry {
  std::string name; // as the object names it: "libcudnn_graph.so.9"
  loader::Resolution resolution;
  bool seen = false;             // its file was resolved earlier in the walk: "(see above)"
  bool api_set = false;          // Windows: an API set name (api-ms-win-*), not a file
  std::vector<TreeEntry> needed; // its own entries; empty when not found, seen, or too deep
};

// The DT_NEEDED tree of one ELF object, or the import tree of one PE image.
struct ResolveTree {
  std::string path;   // the object, as given
  std::string soname; // empty: it has none; Windows: the image's kind ("PE 64-bit x64")
  std::vector<TreeEntry> needed;
  bool windows = false; // a PE image on a Windows machine: Windows paths
};

// The `--tree` text: the object, then each entry indented four spaces per level with the file
// it resolves to and how, "(see above)" for a file met before, and for an entry that is not
// found (or fails) every path considered.
std::string render_resolve_tree(const ResolveTree& tree);

} // namespace doctor::report
