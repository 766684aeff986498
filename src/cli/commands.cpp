// SPDX-License-Identifier: MIT
#include "commands.hpp"

#include "probe.hpp"
#include "run.hpp"

#include <doctor/checks/all_checks.hpp>
#include <doctor/checks/runner.hpp>
#include <doctor/collect/collect.hpp>
#include <doctor/collect/probe_runs.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/kb/signatures.hpp>
#include <doctor/model/facts_json.hpp>
#include <doctor/platform/environment.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/host.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/process.hpp>
#include <doctor/platform/registry_hive.hpp>
#include <doctor/platform/standard_output.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/platform/terminal.hpp>
#include <doctor/report/kb_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <vector>

namespace doctor::cli {

namespace {

// Both a file and standard input stop at this size (facts::k_snapshot_limits).
constexpr std::size_t k_max_snapshot = facts::k_snapshot_limits.max_bytes;

std::string too_large_message(const std::string& path) {
  return fmt::format(
      "--snapshot {}: larger than {} MiB, the most a snapshot may be", path, k_max_snapshot >> 20U);
}

// Standard input up to k_max_snapshot + 1 bytes: one byte more than the cap says it is too
// large, and nothing past that is read. It is read in blocks and joined once its length is
// known, so that the text never takes twice its size (a growing buffer would, when it moves).
std::string read_snapshot_stdin() {
  constexpr std::size_t k_block = std::size_t{1} << 20U;
  std::vector<std::string> blocks;
  std::size_t total = 0;
  while (total <= k_max_snapshot) {
    std::string block(std::min(k_block, k_max_snapshot + 1 - total), '\0');
    std::cin.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<std::size_t>(std::cin.gcount());
    total += got;
    const bool more = got == block.size();
    block.resize(got);
    blocks.push_back(std::move(block));
    if (!more) {
      break;
    }
  }
  if (total > k_max_snapshot) {
    throw CommandError{k_exit_usage, too_large_message("-")};
  }
  if (std::cin.bad()) {
    throw CommandError{k_exit_usage, "--snapshot -: cannot read standard input"};
  }
  std::string text;
  text.reserve(total);
  for (std::string& block : blocks) {
    text += block;
    std::string().swap(block);
  }
  return text;
}

} // namespace

namespace {

// The *.json files of --kb-dir DIR, by name.
Expected<std::vector<kb::KbFileOverride>> read_kb_dir(const std::filesystem::path& dir) {
  auto listing = platform::list_directory(dir);
  if (!listing) {
    return make_error(listing.error().code, fmt::format("--kb-dir: {}", listing.error().message));
  }
  std::vector<kb::KbFileOverride> out;
  for (const platform::DirEntry& e : *listing) {
    if (e.name.size() < 6 || e.name.substr(e.name.size() - 5) != ".json") {
      continue;
    }
    auto text = platform::read_file(dir / platform::u8path(e.name), kb::k_max_kb_file);
    if (!text) {
      return make_error(text.error().code, fmt::format("--kb-dir: {}", text.error().message));
    }
    out.push_back({e.name, std::move(*text), platform::utf8(dir / platform::u8path(e.name))});
  }
  return out;
}

} // namespace

kb::KnowledgeBase load_kb(const TargetOptions& target, std::initializer_list<KbPart> parts) {
  auto kb = [&]() -> Expected<kb::KnowledgeBase> {
    if (target.kb_dir.empty()) {
      return kb::KnowledgeBase::load_embedded();
    }
    auto files = read_kb_dir(platform::u8path(target.kb_dir));
    if (!files) {
      return tl::unexpected(files.error());
    }
    return kb::KnowledgeBase::load_with_overrides(*files);
  }();
  if (!kb) {
    throw CommandError{target.kb_dir.empty() ? k_exit_internal : k_exit_usage,
                       fmt::format("knowledge base: {}", kb.error().message)};
  }
  for (const KbPart part : parts) {
    const Expected<void> loaded =
        part == KbPart::signatures ? kb->load_signatures() : kb->load_crash();
    if (!loaded) {
      throw CommandError{target.kb_dir.empty() ? k_exit_internal : k_exit_usage,
                         fmt::format("knowledge base: {}", loaded.error().message)};
    }
  }
  return std::move(*kb);
}

// The examined system: the live machine with the doctor's own environment (single variables
// overridden by --env), or a --sysroot tree whose environment holds only what --env gives.
platform::SysRoot make_root(const TargetOptions& target) {
  auto assignments = parse_env_assignments(target.env);
  if (!assignments) {
    throw CommandError{k_exit_usage, assignments.error().message};
  }
  if (target.sysroot.empty()) {
    platform::Environment env = platform::Environment::of_this_process();
    for (const auto& [name, value] : *assignments) {
      env.set(name, value);
    }
    platform::SysRoot root("/", std::move(env), platform::host_os(), true);
    root.set_registry(platform::open_live_registry()); // nullptr on Linux
    return root;
  }
  const std::filesystem::path sysroot = platform::u8path(target.sysroot);
  auto st = platform::stat_path(sysroot);
  if (!st || st->kind != platform::FileKind::directory) {
    throw CommandError{k_exit_usage, fmt::format("--sysroot {}: not a directory", target.sysroot)};
  }
  // A tree the doctor may not list would look like an empty machine ("none found", exit 0):
  // say so instead.
  if (auto listing = platform::list_dir_entries(sysroot); !listing) {
    throw CommandError{k_exit_usage,
                       fmt::format("--sysroot {}: cannot be read ({}); run the doctor as a user "
                                   "who may read the tree",
                                   target.sysroot,
                                   listing.error().code == ErrorCode::permission_denied
                                       ? "permission denied"
                                       : listing.error().message)};
  }
  // A Windows system disk (Windows/System32 in it) is examined as Windows, its registry read
  // from the hives; anything else as a Linux tree.
  return platform::open_tree_root(sysroot, platform::Environment(*assignments));
}

collect::CollectOptions collect_options(const TargetOptions& target, bool children) {
  collect::CollectOptions options;
  options.tool_version = DOCTOR_VERSION;
  options.sysroot_label = target.sysroot.empty() ? "/" : target.sysroot;
  options.nvml = target.no_nvml ? collect::NvmlQuery::never : target.nvml;
  options.verify = target.verify;
  options.use_hash_cache = !target.no_cache;
  options.probe_timeout =
      std::chrono::milliseconds(static_cast<long long>(target.probe_timeout * 1000.0));
  if (children) {
    if (auto self = platform::current_executable()) {
      options.self_executable = *self;
    }
  }
  return options;
}

Collection::Collection(const TargetOptions& target)
    : m_root(make_root(target))
    , m_options(collect_options(target))
    , m_started(collect::start_collectors(m_root, m_options)) {}

facts::Facts Collection::finish(const kb::KnowledgeBase& kb) {
  m_options.kb = &kb;
  return collect::collect(m_root, m_options, std::move(m_started));
}

facts::Facts collect_facts(const TargetOptions& target, const kb::KnowledgeBase& kb) {
  return Collection(target).finish(kb);
}

namespace {

facts::Facts read_snapshot(const std::string& path) {
  std::string text;
  if (path == "-") {
    text = read_snapshot_stdin();
  } else {
    auto data = platform::read_file(platform::u8path(path), k_max_snapshot);
    if (!data) {
      if (data.error().code == ErrorCode::too_large) {
        throw CommandError{k_exit_usage, too_large_message(path)};
      }
      throw CommandError{k_exit_usage, fmt::format("--snapshot {}", data.error().message)};
    }
    text = std::move(*data);
  }
  auto facts = facts::from_json_text(text);
  if (!facts) {
    throw CommandError{k_exit_usage, fmt::format("--snapshot {}: {}", path, facts.error().message)};
  }
  return std::move(*facts);
}

} // namespace

facts::Facts load_snapshot(const std::string& path) {
  try {
    return read_snapshot(path);
  } catch (const std::bad_alloc&) {
    throw CommandError{k_exit_usage,
                       fmt::format("--snapshot {}: not enough memory to read it", path)};
  }
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    if (auto written = platform::write_stdout(text); !written) {
      throw CommandError{k_exit_usage, written.error().message};
    }
    return;
  }
  if (auto written = platform::write_file(platform::u8path(path), text); !written) {
    throw CommandError{k_exit_usage, fmt::format("-o {}", written.error().message)};
  }
}

bool use_color(ColorMode color, report::Format format, const std::string& output) {
  if (format != report::Format::text || !output.empty()) {
    return false;
  }
  switch (color) {
  case ColorMode::always:
    return true;
  case ColorMode::never:
    return false;
  case ColorMode::automatic:
    break;
  }
  const char* no_color = std::getenv("NO_COLOR");
  return (no_color == nullptr || no_color[0] == '\0') && platform::stdout_is_terminal();
}

int run_check(const CheckOptions& options) {
  std::optional<Collection> live;
  if (options.target.snapshot.empty()) {
    live.emplace(options.target); // NVML starts now, while the knowledge base loads
  }
  const kb::KnowledgeBase kb = load_kb(options.target);
  report::Report rep;
  if (!options.target.snapshot.empty()) {
    if (!options.target.sysroot.empty() || !options.target.env.empty()) {
      throw CommandError{k_exit_usage, "--snapshot cannot be combined with --sysroot or --env"};
    }
    rep.target_kind = "snapshot";
    rep.target = options.target.snapshot;
  } else {
    rep.target_kind = options.target.sysroot.empty() ? "live" : "sysroot";
    rep.target = options.target.sysroot.empty() ? "/" : options.target.sysroot;
  }
  const facts::Facts facts = live ? live->finish(kb) : load_snapshot(options.target.snapshot);
  rep.command = "check";
  rep.tool_version = DOCTOR_VERSION;
  rep.kb_version = kb.version();
  rep.fail_on = options.output.fail_on;
  rep.inventory = report::make_inventory(facts);
  rep.findings = checks::run_checks(facts, kb, checks::all_checks());
  const OutputOptions& out = options.output;
  write_output(out.file,
               report::render(rep, out.format, use_color(out.color, out.format, out.file)));
  return report::exit_status(rep) == 0 ? k_exit_ok : k_exit_findings;
}

int run_snapshot(const SnapshotOptions& options) {
  const std::map<std::string, std::string> probe_libs = parse_probe_libraries(options.probe_libs);
  if (!options.probe && !probe_libs.empty()) {
    throw CommandError{k_exit_usage, "--lib needs --probe"};
  }
  Collection live(options.target); // NVML starts now, while the knowledge base loads
  const kb::KnowledgeBase kb = load_kb(options.target);
  facts::Facts facts = live.finish(kb);
  if (options.probe) {
    const platform::SysRoot root = make_root(options.target);
    collect::CollectOptions copts = collect_options(options.target);
    copts.kb = &kb;
    collect::collect_probes(root, copts, kb, probe_libs, facts);
  }
  write_output(options.output.file, facts::to_json_text(facts));
  return k_exit_ok;
}

int run_kb(const KbOptions& options) {
  TargetOptions target;
  target.kb_dir = options.check_dir;
  const kb::KnowledgeBase kb = load_kb(target, {KbPart::signatures, KbPart::crash});
  // Each signature's examples must match its own patterns: an edited pattern that no longer
  // recognises the message it was written for is caught here.
  if (const auto unmatched = kb::unmatched_examples(kb.signatures()); !unmatched.empty()) {
    throw CommandError{
        target.kb_dir.empty() ? k_exit_internal : k_exit_usage,
        fmt::format("knowledge base: signatures.json: examples their patterns do not "
                    "match:\n  {}",
                    fmt::join(unmatched, "\n  "))};
  }
  const report::KbSummary summary = report::summarize_kb(kb, options.check_dir);
  const std::string out = options.output.format == report::Format::json
                              ? report::render_kb_json(summary)
                              : report::render_kb_text(summary);
  write_output("", out);
  return k_exit_ok;
}

} // namespace doctor::cli
