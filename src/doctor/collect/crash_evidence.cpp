// SPDX-License-Identifier: MIT
#include <doctor/collect/crash_evidence.hpp>
#include <doctor/collect/crash_files.hpp>
#include <doctor/collect/crash_sources.hpp>
#include <doctor/collect/linux/journal.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/host_path.hpp>

#include <fmt/format.h>

#include <filesystem>

namespace doctor::collect {

namespace {

constexpr std::size_t k_max_dir_files = 2000;
constexpr int k_max_depth = 3;

bool has_journal_files(const std::filesystem::path& dir, int depth) {
  auto entries = platform::list_directory(dir);
  if (!entries) {
    return false;
  }
  for (const platform::DirEntry& e : *entries) {
    if (e.kind == platform::FileKind::regular
        && (e.name.ends_with(".journal") || e.name.ends_with(".journal~"))) {
      return true;
    }
    if (e.kind == platform::FileKind::directory && depth > 0
        && has_journal_files(dir / platform::u8path(e.name), depth - 1)) {
      return true;
    }
  }
  return false;
}

// A path the user named (--from): host paths, read as they are on this machine.
void collect_path(const std::string& path,
                  const kb::KnowledgeBase& kb,
                  crash::Collected& out,
                  int depth,
                  std::size_t& files) {
  const std::filesystem::path host = platform::u8path(path);
  auto kind = platform::kind_of(host);
  if (!kind) {
    add_source(out, path, "unreadable", kind.error().message);
    return;
  }
  std::error_code ec;
  const bool dir =
      *kind == platform::FileKind::directory
      || (*kind == platform::FileKind::symlink && std::filesystem::is_directory(host, ec));
  if (!dir) {
    if (++files > k_max_dir_files) {
      return;
    }
    ingest_file(path, "", kb, out);
    return;
  }
  if (has_journal_files(host, 1)) {
    auto journal = read_journal({path}, k_max_journal_lines);
    if (!journal) {
      add_source(out, path, "unreadable", "journal: " + journal.error().message);
    } else {
      add_journal(*journal, path, out);
      out.earlier_boots_covered = out.earlier_boots_covered || journal->boots.size() > 1;
    }
    return;
  }
  if (depth >= k_max_depth) {
    add_source(out, path, "skipped", "deeper than 3 directory levels");
    return;
  }
  auto entries = platform::list_directory(host);
  if (!entries) {
    add_source(out, path, "unreadable", entries.error().message);
    return;
  }
  for (const platform::DirEntry& e : *entries) {
    if (e.kind == platform::FileKind::regular || e.kind == platform::FileKind::directory
        || e.kind == platform::FileKind::symlink) {
      collect_path(platform::utf8(host / platform::u8path(e.name)), kb, out, depth + 1, files);
    }
  }
  if (files > k_max_dir_files) {
    add_source(out,
               path,
               "skipped",
               fmt::format("more than {} files: the rest were not read", k_max_dir_files));
  }
}

} // namespace

crash::Collected collect_files(const std::vector<std::string>& paths, const kb::KnowledgeBase& kb) {
  crash::Collected out;
  std::size_t files = 0;
  for (const std::string& p : paths) {
    collect_path(p, kb, out, 0, files);
  }
  return out;
}

crash::Collected collect_machine(const platform::SysRoot& root, const kb::KnowledgeBase& kb) {
  crash::Collected out;
  out.machine.live = root.is_live();
  if (root.os() == platform::OsFamily::windows && root.is_live()) {
    collect_live_windows_crash_sources(root, kb, out);
  } else if (const auto windows = windows_directory(root)) {
    collect_windows_disk_crash_sources(root, *windows, kb, out);
  } else {
    collect_linux_crash_sources(root, kb, out);
  }
  return out;
}

} // namespace doctor::collect
