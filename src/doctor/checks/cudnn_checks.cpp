// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace doctor::checks {

namespace {

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

void add_library_evidence(const facts::CudnnInstall& inst, FindingDraft& d) {
  for (const facts::CudnnLibrary& lib : inst.libraries) {
    d.evidence.push_back(Evidence{
        lib.version ? lib.version.source() : "file:" + lib.real_path,
        fmt::format("{} -> {} ({} bytes), version {}",
                    lib.name,
                    lib.real_path,
                    lib.size,
                    lib.version ? lib.version->str() : "unknown: " + lib.version.reason())});
  }
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
  d.id = "cudnn.library_set_incomplete";
  d.subject = inst.dir;
  d.params = {
      {"dir", inst.dir},
      {"version", version_text(inst)},
      {"missing", util::join(best_missing, ", ")},
      {"present", util::join(std::vector<std::string>(present.begin(), present.end()), ", ")},
      {"package", hint.package},
      {"package_spec", hint.package_spec}};
  d.tags = hint.tags;
  add_library_evidence(inst, d);
  for (const std::string& m : best_missing) {
    d.evidence.push_back(Evidence{"dir:" + inst.dir, m + ": absent"});
  }
  out.add(std::move(d));
}

void check_mixed_versions(const facts::CudnnInstall& inst, FindingSink& out) {
  std::map<std::string, std::vector<std::string>> by_version; // "9.1.0" -> members
  for (const facts::CudnnLibrary& lib : inst.libraries) {
    if (lib.version) {
      by_version[lib.version->prefix(3)].push_back(lib.member);
    }
  }
  if (by_version.size() < 2) {
    return;
  }
  std::vector<std::string> parts;
  parts.reserve(by_version.size());
  for (const auto& [version, members] : by_version) {
    parts.push_back(fmt::format("{} from {}", util::join(members, ", "), version));
  }
  const PackageHint hint = package_hint(inst);
  FindingDraft d;
  d.id = "cudnn.sublibrary_version_mixed";
  d.subject = inst.dir;
  d.params = {{"dir", inst.dir},
              {"versions", util::join(parts, "; ")},
              {"package", hint.package},
              {"package_spec", hint.package_spec}};
  d.tags = hint.tags;
  add_library_evidence(inst, d);
  out.add(std::move(d));
}

} // namespace

void check_cudnn_sets(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out) {
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    check_mixed_versions(inst, out);
    check_completeness(facts, kb, inst, out);
  }
}

} // namespace doctor::checks
