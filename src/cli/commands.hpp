// SPDX-License-Identifier: MIT
#pragma once

#include "options.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/platform/sysroot.hpp>

#include <initializer_list>

namespace doctor::cli {

// A condition that stops a command with a message and an exit status (usage or internal).
struct CommandError {
  int exit_status;
  std::string message;
};

// The parts of the knowledge base a command needs at once; the rest are parsed on first use.
enum class KbPart { signatures, crash };

// Loads the embedded knowledge base, or --kb-dir's, and parses `parts` now. Throws CommandError
// (usage for a bad --kb-dir, internal for the embedded files) if it is invalid.
kb::KnowledgeBase load_kb(const TargetOptions& target, std::initializer_list<KbPart> parts = {});

// The examined system: the live machine with the doctor's own environment (single variables
// overridden by --env), or a --sysroot tree whose environment holds only what --env gives.
// Throws CommandError for a bad --sysroot or --env.
platform::SysRoot make_root(const TargetOptions& target);

// Collection settings from the command line (NVML, probe timeout, --verify, the doctor's own
// executable for probe children). Without `children` the collection starts no child (NVML,
// probe, stress), and the doctor's own executable is not looked up.
collect::CollectOptions collect_options(const TargetOptions& target, bool children = true);

// The machine or --sysroot tree that `target` names, opened, with its slow collectors (the NVML
// child) already running: make it before loading the knowledge base, so that the two overlap.
// Throws CommandError for a bad --sysroot or --env. Not movable: the running collectors hold
// its SysRoot.
class Collection {
public:
  explicit Collection(const TargetOptions& target);
  Collection(const Collection&) = delete;
  Collection& operator=(const Collection&) = delete;

  // Runs the other collectors and returns every fact; call once.
  facts::Facts finish(const kb::KnowledgeBase& kb);

private:
  platform::SysRoot m_root;
  collect::CollectOptions m_options;
  collect::StartedCollectors m_started;
};

// Collects the facts of the machine or --sysroot tree that `target` names.
facts::Facts collect_facts(const TargetOptions& target, const kb::KnowledgeBase& kb);

// Reads a snapshot file ("-": standard input). Throws CommandError (exit 2) if it is unusable.
facts::Facts load_snapshot(const std::string& path);

// Writes `text` to `path`, or to standard output for "" and "-". Throws CommandError (exit 2)
// naming the error if any of it could not be written (a full disk, a closed standard output).
void write_output(const std::string& path, const std::string& text);

// Whether a report in `format` to `output` gets ANSI colours (NO_COLOR, terminals).
bool use_color(ColorMode color, report::Format format, const std::string& output);

// `check`: collect (or load) facts, run the checks, print the report. Returns the exit status.
// Throws CommandError for unusable input (a bad snapshot, an unreadable --kb-dir).
int run_check(const CheckOptions& options);

// `snapshot`: collect facts and write them as JSON. Returns the exit status.
int run_snapshot(const SnapshotOptions& options);

// `kb`: print the knowledge base's version, files and number of distinct sources; with --check,
// load DIR's files over the built-in ones first. Returns the exit status. Throws CommandError
// (exit 2) naming the file, row and field when a --check file is not valid.
int run_kb(const KbOptions& options);

} // namespace doctor::cli
