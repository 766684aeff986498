// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <string>

// Integrity of the GPU stack's files: digests against package records (check --verify), and
// structural damage seen in the binaries' headers (every run).
namespace doctor::checks {

namespace {

// "nvidia-cudnn-cu12 9.1.0.70" -> {"nvidia-cudnn-cu12", "9.1.0.70"}.
std::pair<std::string, std::string> split_package(const std::string& package) {
  const auto space = package.find(' ');
  if (space == std::string::npos) {
    return {package, ""};
  }
  return {package.substr(0, space), package.substr(space + 1)};
}

std::string pinned(const std::string& name, const std::string& version) {
  return version.empty() ? name : fmt::format("{}=={}", name, version);
}

// "/a/b/c" -> "/a/b" (the facts' paths are normalised inner paths).
std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

// The pip of the environment whose site-packages holds `record` ("<sp>/<dist>.dist-info/RECORD").
std::string pip_for(const facts::Facts& facts, const std::string& record) {
  const std::string site_packages = dir_of(dir_of(record));
  for (const facts::PythonEnv& env : facts.python_envs) {
    if (env.site_packages && *env.site_packages == site_packages
        && facts.collection.os_family == "linux") {
      return fmt::format("{}/bin/python -m pip", env.prefix == "/" ? "" : env.prefix);
    }
  }
  return "pip";
}

// Returns the command that writes the file again, or "" where none is safe: a tree rearranged
// from wheels (a toolkit's dist-info/) was not installed by pip, so pip cannot repair it.
std::string reinstall_command(const facts::Facts& facts, const facts::FileVerification& v) {
  const auto [name, version] = split_package(v.package);
  if (v.manager == "pip") {
    if (v.record.find("/dist-info/") != std::string::npos) {
      return "";
    }
    return fmt::format("{} install --force-reinstall --no-deps {}",
                       pip_for(facts, v.record),
                       pinned(name, version));
  }
  if (v.manager == "conda") {
    const auto meta = v.record.rfind("/conda-meta/");
    if (meta != std::string::npos) {
      return fmt::format("conda install -p {} --force-reinstall {}",
                         meta == 0 ? "/" : v.record.substr(0, meta),
                         pinned(name, version));
    }
    return fmt::format("conda install --force-reinstall {}", pinned(name, version));
  }
  if (v.manager == "dpkg") {
    return fmt::format("sudo apt install --reinstall {}", name);
  }
  return "";
}

std::string describe_difference(const facts::FileVerification& v) {
  if (v.expected_size && *v.expected_size != v.actual_size) {
    return fmt::format("size {} bytes instead of {}, {}",
                       v.actual_size,
                       *v.expected_size,
                       v.actual_size < *v.expected_size ? "truncated" : "larger than recorded");
  }
  return fmt::format("{} differs", v.algorithm);
}

std::string format_name(const facts::Facts& facts, const std::string& format) {
  if (format == "elf") {
    return "ELF";
  }
  if (format == "pe") {
    return "PE";
  }
  return facts.collection.os_family == "windows" ? "PE" : "ELF";
}

// The first problems for the message; every one is in the evidence.
std::string summarize_problems(const std::vector<std::string>& problems) {
  constexpr std::size_t k_shown = 2;
  if (problems.size() <= k_shown) {
    return util::join(problems, "; ");
  }
  return fmt::format("{}; and {} more",
                     util::join({problems.begin(), problems.begin() + k_shown}, "; "),
                     problems.size() - k_shown);
}

} // namespace

void check_integrity_hashes(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  if (!facts.integrity.requested) {
    return;
  }
  for (const facts::FileVerification& v : facts.integrity.files) {
    if (!v.actual) {
      continue; // unreadable: nothing to compare, and the reason is in the snapshot
    }
    const bool size_differs = v.expected_size && *v.expected_size != v.actual_size;
    if (!size_differs && *v.actual == v.expected) {
      continue;
    }
    FindingDraft d;
    d.id = "integrity.hash_mismatch";
    d.subject = v.path;
    d.params = {{"path", v.path},
                {"package", v.package},
                {"manager", v.manager},
                {"record", v.record},
                {"detail", describe_difference(v)},
                {"reinstall", reinstall_command(facts, v)}};
    d.tags = {v.manager};
    d.evidence.push_back(Evidence{
        "record:" + v.record,
        v.expected_size
            ? fmt::format("recorded: {} {}, {} bytes", v.algorithm, v.expected, *v.expected_size)
            : fmt::format("recorded: {} {}", v.algorithm, v.expected)});
    d.evidence.push_back(
        Evidence{v.actual.source(),
                 fmt::format("on disk: {} {}, {} bytes", v.algorithm, *v.actual, v.actual_size)});
    out.add(std::move(d));
  }
}

void check_binary_damage(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  for (const facts::BinaryInfo& b : facts.binaries) {
    if (b.problems.empty()) {
      continue;
    }
    FindingDraft d;
    d.id = "integrity.binary_damaged";
    d.subject = b.path;
    d.params = {{"path", b.path},
                {"format", format_name(facts, b.format)},
                {"problems", summarize_problems(b.problems)}};
    d.evidence.push_back(
        Evidence{"file:" + b.path, fmt::format("{} bytes, format {}", b.size, b.format)});
    for (const std::string& p : b.problems) {
      d.evidence.push_back(Evidence{"file:" + b.path, p});
    }
    // Name the owning package where --verify found a record of the file.
    for (const facts::FileVerification& v : facts.integrity.files) {
      if (v.path == b.path) {
        d.evidence.push_back(
            Evidence{"record:" + v.record,
                     v.expected_size ? fmt::format(
                         "installed by {} {}: {} bytes", v.manager, v.package, *v.expected_size)
                                     : fmt::format("installed by {} {}", v.manager, v.package)});
        d.tags.push_back(v.manager);
      }
    }
    out.add(std::move(d));
  }
}

} // namespace doctor::checks
