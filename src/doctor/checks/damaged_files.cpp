// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

// Family 3 of the troubleshooting guide (damaged or missing files): files that differ from their
// package records (check --verify), binaries whose headers show structural damage (every run),
// and cuDNN installations that lack one of their libraries.
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

std::string version_text(const facts::CudnnInstall& inst) {
  return inst.version ? inst.version->str() : fmt::format("{} (exact version unknown)", inst.major);
}

// Members a set requires of this installation: its members, plus optional ones whose first
// release is not newer than the installation's version (unknown version: only the members).
std::vector<std::string> required_members(const kb::CudnnLibrarySet& set,
                                          const facts::CudnnInstall& inst) {
  std::vector<std::string> out = set.members;
  for (const auto& [member, since] : set.optional_members) {
    const auto first = Version::parse(since);
    if (inst.version && first && *inst.version >= *first) {
      out.push_back(member);
    }
  }
  return out;
}

void check_completeness(const facts::Facts& facts,
                        const kb::KnowledgeBase& kb,
                        const facts::CudnnInstall& inst,
                        FindingSink& out) {
  const auto sets = kb.cudnn_sets(inst.major, facts.collection.os_family);
  if (sets.empty()) {
    return;
  }
  std::set<std::string> present;
  for (const facts::CudnnLibrary& lib : inst.libraries) {
    present.insert(lib.member);
  }
  // Every member name any variant of this major knows: a present one outside a variant rules
  // that variant out (a directory with libcudnn_ops is not a JIT-only install missing nothing).
  std::set<std::string> known;
  for (const kb::CudnnLibrarySet* set : sets) {
    known.insert(set->members.begin(), set->members.end());
    for (const auto& opt : set->optional_members) {
      known.insert(opt.first);
    }
  }
  std::vector<std::string> best_missing;
  for (const kb::CudnnLibrarySet* set : sets) {
    std::set<std::string> allowed(set->members.begin(), set->members.end());
    for (const auto& opt : set->optional_members) {
      allowed.insert(opt.first);
    }
    const bool foreign = std::any_of(present.begin(), present.end(), [&](const std::string& m) {
      return known.count(m) != 0 && allowed.count(m) == 0;
    });
    std::vector<std::string> missing;
    for (const std::string& m : required_members(*set, inst)) {
      if (present.count(m) == 0) {
        missing.push_back(m);
      }
    }
    if (missing.empty() && !foreign) {
      return;
    }
    if (foreign) {
      continue;
    }
    // Report against the variant that is closest to complete.
    if (best_missing.empty() || missing.size() < best_missing.size()) {
      best_missing = std::move(missing);
    }
  }
  if (best_missing.empty()) {
    return; // only unknown extra files: nothing this knowledge base can judge
  }
  const PackageHint hint = package_hint(inst);
  FindingDraft d;
  d.id = ids::k_cudnn_library_set_incomplete;
  d.subject = inst.dir;
  d.params = {
      {"dir", inst.dir},
      {"version", version_text(inst)},
      {"missing", util::join(best_missing, ", ")},
      {"present", util::join(std::vector<std::string>(present.begin(), present.end()), ", ")},
      {"package", hint.package},
      {"package_spec", hint.package_spec}};
  d.tags = hint.tags;
  add_cudnn_library_evidence(inst, d);
  for (const std::string& m : best_missing) {
    d.evidence.push_back(Evidence{"dir:" + inst.dir, m + ": absent"});
  }
  out.add(std::move(d));
}

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
util::Command pip_for(const facts::Facts& facts, const std::string& record) {
  const std::string site_packages = dir_of(dir_of(record));
  for (const facts::PythonEnv& env : facts.python_envs) {
    if (env.site_packages && *env.site_packages == site_packages
        && facts.collection.os_family == "linux") {
      util::Command pip;
      pip.value((env.prefix == "/" ? "" : env.prefix) + "/bin/python");
      return pip.text(" -m pip");
    }
  }
  return util::Command("pip");
}

// Returns the command that writes the file again, or an empty one where none is safe: a tree
// rearranged from wheels (a toolkit's dist-info/) was not installed by pip, so pip cannot repair
// it. The package's name, version and folders come from records on the examined machine: values.
util::Command reinstall_command(const facts::Facts& facts, const facts::FileVerification& v) {
  const auto [name, version] = split_package(v.package);
  if (v.manager == "pip") {
    if (v.record.find("/dist-info/") != std::string::npos) {
      return {};
    }
    return pip_for(facts, v.record)
        .text(" install --force-reinstall --no-deps")
        .arg(pinned(name, version));
  }
  if (v.manager == "conda") {
    const auto meta = v.record.rfind("/conda-meta/");
    util::Command conda("conda install");
    if (meta != std::string::npos) {
      conda.text(" -p").arg(meta == 0 ? "/" : v.record.substr(0, meta));
    }
    return conda.text(" --force-reinstall").arg(pinned(name, version));
  }
  if (v.manager == "dpkg") {
    return util::Command("sudo apt install --reinstall").arg(name);
  }
  return {};
}

// True if the file was examined and its size is not the recorded one (then it was not hashed).
bool size_differs(const facts::FileVerification& v) {
  return v.expected_size && v.actual_size && *v.expected_size != *v.actual_size;
}

std::string describe_difference(const facts::FileVerification& v) {
  if (size_differs(v)) {
    return fmt::format("size {} bytes instead of {}, {}",
                       *v.actual_size,
                       *v.expected_size,
                       *v.actual_size < *v.expected_size ? "truncated" : "larger than recorded");
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

// A record that exists but could not be read leaves its package's files unverified: say so, or
// --verify's silence would read as "intact".
void check_unread_records(const facts::Facts& facts, FindingSink& out) {
  for (const facts::UnreadPackageRecord& u : facts.integrity.unread_records) {
    FindingDraft d;
    d.id = ids::k_integrity_record_unread;
    d.subject = u.record;
    d.params = {
        {"record", u.record}, {"package", u.package}, {"manager", u.manager}, {"reason", u.reason}};
    d.tags = {u.manager};
    d.evidence.push_back(Evidence{"record:" + u.record, u.reason});
    out.add(std::move(d));
  }
}

} // namespace

// A cuDNN directory holds every library of one of its major's variants (the knowledge base's
// library sets), or the loader fails when the dispatcher opens the missing one.
void check_cudnn_completeness(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out) {
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    check_completeness(facts, kb, inst, out);
  }
}

void check_integrity_hashes(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  if (!facts.integrity.requested) {
    return;
  }
  check_unread_records(facts, out);
  for (const facts::FileVerification& v : facts.integrity.files) {
    // A size that differs decides without a digest; a file not read otherwise has nothing to
    // compare, and why is in the snapshot.
    if (!size_differs(v) && (!v.actual || *v.actual == v.expected)) {
      continue;
    }
    FindingDraft d;
    d.id = ids::k_integrity_hash_mismatch;
    d.subject = v.path;
    d.params = {{"path", v.path},
                {"package", v.package},
                {"manager", v.manager},
                {"record", v.record},
                {"detail", describe_difference(v)}};
    d.commands = {{"reinstall", reinstall_command(facts, v)}};
    d.tags = {v.manager};
    d.evidence.push_back(Evidence{
        "record:" + v.record,
        v.expected_size
            ? fmt::format("recorded: {} {}, {} bytes", v.algorithm, v.expected, *v.expected_size)
            : fmt::format("recorded: {} {}", v.algorithm, v.expected)});
    d.evidence.push_back(
        v.actual
            ? Evidence{v.actual.source(),
                       fmt::format(
                           "on disk: {} {}, {} bytes", v.algorithm, *v.actual, *v.actual_size)}
            : Evidence{"file:" + v.path,
                       fmt::format("on disk: {} bytes ({})", *v.actual_size, v.actual.reason())});
    out.add(std::move(d));
  }
}

void check_binary_damage(const facts::Facts& facts, const kb::KnowledgeBase&, FindingSink& out) {
  for (const facts::BinaryInfo& b : facts.binaries) {
    // A file that could not be read is unreadable (library_access says so), never damaged;
    // snapshots from before read_error kept that as a problem "cannot be read: …".
    if (b.problems.empty() || !b.read_error.empty()
        || b.problems.front().starts_with("cannot be read")) {
      continue;
    }
    FindingDraft d;
    d.id = ids::k_integrity_binary_damaged;
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
