// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/hash_cache.hpp>
#include <doctor/collect/package_records.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>

// check --verify: every library and executable the GPU packages installed, hashed and compared
// with what their package manager recorded (pip RECORD, conda-meta, dpkg md5sums).
//
// The work is reading: a CUDA toolkit with cuDNN is 3 GB. Files are hashed on every core, the
// largest first, so that a 500 MB library does not start last while the other workers idle; each
// worker takes the next file from a shared atomic index. A digest computed before for the same
// file identity comes from the hash cache (hash_cache.hpp) instead.
//
// What is read, and what is not. The doctor often runs as root and examines trees that users
// own (a venv, a conda env), and the snapshot is meant for sharing. So a record's file is read
// only if it is the package's own: a path that leads out of the package's tree (a link planted in
// a venv towards /etc/shadow, a RECORD line with "..") is reported as such, with nothing of what
// it leads to; and a file that the owner of the tree could not read, by the permission bits of
// every directory down to it and of the file itself, is not hashed either. A file whose size
// already differs from the record is not read at all: the size decides.
namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

using platform::HashAlgorithm;

// Every library and executable with a recorded digest that a GPU package installed where this
// machine's GPU stack lives: the toolkits (trees rearranged from wheels keep dist-info/), the
// directories of the cuDNN installations, the site-packages and conda prefixes of the Python
// environments, and dpkg.
std::vector<RecordedFile>
recorded_gpu_files(const platform::SysRoot& root, const Facts& facts, PackageIndex& index) {
  std::vector<RecordedFile> out;
  std::set<std::string> seen;
  auto add = [&](const std::vector<RecordedFile>& files) {
    for (const RecordedFile& f : files) {
      if (!f.file.hash.empty()) { // PackageIndex keeps libraries and executables only
        out.push_back(f);
      }
    }
  };
  auto tree = [&](const std::string& dir) {
    if (seen.insert("tree:" + dir).second && root.is_dir(util::join_path(dir, "dist-info"))) {
      add(index.wheel_tree_records(dir));
    }
  };
  auto conda = [&](const std::string& prefix) {
    if (seen.insert("conda:" + prefix).second) {
      add(index.conda_records(prefix));
    }
  };
  auto pip = [&](const std::string& site_packages) {
    if (seen.insert("pip:" + site_packages).second) {
      add(index.pip_records(site_packages));
    }
  };
  for (const CudaToolkit& tk : facts.cuda_toolkits) {
    tree(tk.path);
    conda(tk.path);
  }
  for (const CudnnInstall& inst : facts.cudnn) {
    const std::string parent = util::parent_path(inst.dir);
    tree(parent);
    conda(parent);
    // pip: <site-packages>/nvidia/<component>/lib
    if (util::file_name(inst.dir) == "lib"
        && util::file_name(util::parent_path(parent)) == "nvidia") {
      pip(util::parent_path(util::parent_path(parent)));
    }
  }
  for (const PythonEnv& env : facts.python_envs) {
    if (env.site_packages) {
      pip(*env.site_packages);
    }
    conda(env.prefix);
  }
  add(index.dpkg_records());
  return out;
}

// One file to hash with one algorithm; several records may share it.
struct HashJob {
  std::string path; // canonical inner path
  std::filesystem::path host;
  HashAlgorithm algorithm = HashAlgorithm::sha256;
  FileIdentity id;
  platform::FileStat stat; // as examined: hash_file reads that file or none
  std::optional<Expected<std::string>> result;
  bool from_cache = false;
};

// One record to compare, and the job that hashes its file.
struct Comparison {
  RecordedFile recorded;
  RecordedDigest digest;
  std::string path; // canonical inner path; the recorded one for a path out of its tree
  std::size_t job = 0;
  std::optional<std::string> not_read; // why the file was not hashed ("cannot examine it: …")
  std::optional<std::uint64_t> size;   // none where the file was not examined
};

// A package's tree on the examined system: its canonical path and its owner.
struct PackageTree {
  std::optional<std::string> real; // none if it cannot be resolved or examined
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
};

// Whether the user `uid` (primary group `gid`) has the permission `bit` (4 read, 1 search) on
// `st`, as the kernel decides it: the owner's bits for the owner, the group's for the group, the
// others' for everyone else. Supplementary groups are not known here, so a file readable only
// through one counts as unreadable. uid 0 has every permission.
bool permits(std::uint32_t uid, std::uint32_t gid, const platform::FileStat& st, unsigned bit) {
  if (uid == 0) {
    return true;
  }
  const unsigned shift = st.uid == uid ? 6U : st.gid == gid ? 3U : 0U;
  return ((st.mode >> shift) & bit) != 0;
}

// Why the owner of `tree` could not read canonical inner path `path` inside it, or nullopt if
// they could: search permission on every directory from the tree down, read on the file.
std::optional<std::string> unreadable_by_owner(const platform::SysRoot& root,
                                               const PackageTree& tree,
                                               const std::string& path,
                                               const platform::FileStat& st) {
  if (tree.uid == 0) {
    return std::nullopt;
  }
  auto refused = [&](std::string_view what) {
    return fmt::format("not read: the owner of {} (uid {}) may not {}", *tree.real, tree.uid, what);
  };
  for (std::string dir = util::parent_path(path); util::is_within(dir, *tree.real);
       dir = util::parent_path(dir)) {
    const auto dst = root.stat(dir);
    if (!dst || !permits(tree.uid, tree.gid, *dst, 1U)) {
      return refused(fmt::format("enter {}", dir));
    }
    if (dir == *tree.real || dir == "/") {
      break;
    }
  }
  if (!permits(tree.uid, tree.gid, st, 4U)) {
    return refused("read it");
  }
  return std::nullopt;
}

// Hashes `jobs` (largest first) with one worker per core.
void hash_in_parallel(std::vector<HashJob*>& jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const HashJob* a, const HashJob* b) {
    return a->id.size > b->id.size;
  });
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < jobs.size(); i = next.fetch_add(1)) {
      HashJob& job = *jobs[i];
      try {
        job.result = platform::hash_file(job.host, job.algorithm, &job.stat);
      } catch (const std::exception& e) {
        job.result = make_error(ErrorCode::internal, e.what());
      }
    }
  };
  const std::size_t workers =
      std::min<std::size_t>(std::max(1U, std::thread::hardware_concurrency()), jobs.size());
  std::vector<std::thread> threads;
  threads.reserve(workers > 0 ? workers - 1 : 0);
  for (std::size_t w = 1; w < workers; ++w) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break; // no more threads to be had: the ones started and this one share the work
    }
  }
  work(); // this thread is one of the workers
  for (std::thread& t : threads) {
    t.join();
  }
}

// An error's message with the host path of `inner` (under a --sysroot) written as `inner`, so
// that the snapshot speaks of the examined system only.
std::string
inner_message(const platform::SysRoot& root, const Error& error, const std::string& inner) {
  return util::replace_all(error.message, root.host_path(inner).string(), inner);
}

std::string package_text(const PackageFile& f) {
  return f.version.empty() ? f.package : fmt::format("{} {}", f.package, f.version);
}

} // namespace

void collect_integrity(const platform::SysRoot& root, const CollectOptions& options, Facts& facts) {
  facts.integrity = IntegrityInfo{};
  if (!options.verify) {
    return;
  }
  facts.integrity.requested = true;

  PackageIndex index(root);
  std::vector<Comparison> comparisons;
  std::vector<HashJob> jobs;
  std::map<std::pair<std::string, HashAlgorithm>, std::size_t> job_of;
  std::set<std::tuple<std::string, std::string, std::string>> compared; // path, manager, package
  std::map<std::string, PackageTree> trees;
  auto tree_of = [&](const std::string& inner) -> const PackageTree& {
    auto [it, inserted] = trees.try_emplace(inner);
    if (inserted) {
      if (auto real = root.resolve(inner)) {
        if (auto st = root.stat(*real)) {
          it->second = PackageTree{*real, st->uid, st->gid};
        }
      }
    }
    return it->second;
  };
  for (RecordedFile& rec : recorded_gpu_files(root, facts, index)) {
    auto digest = parse_recorded_digest(rec.file.hash);
    if (!digest) {
      continue; // the record has no digest for this file (pip's RECORD lists itself without)
    }
    Comparison c{std::move(rec), std::move(*digest), {}, 0, std::nullopt, std::nullopt};
    auto real = root.resolve(c.recorded.path);
    if (!real && real.error().code == ErrorCode::not_found) {
      continue; // a missing file is the library-set and loader checks' business
    }
    const PackageTree& tree = tree_of(c.recorded.tree);
    if (real && (!tree.real || !util::is_within(*real, *tree.real))) {
      // Named by the record's path: where it leads is not the package's, nor the report's.
      c.path = c.recorded.path;
      c.not_read =
          fmt::format("not examined: it leads out of {}, the package's tree", c.recorded.tree);
    } else {
      c.path = real ? *real : c.recorded.path;
    }
    if (!compared.emplace(c.path, c.recorded.file.manager, c.recorded.file.package).second) {
      continue;
    }
    if (c.not_read) {
      comparisons.push_back(std::move(c));
      continue;
    }
    const Expected<platform::FileStat> st =
        real ? root.stat(*real) : Expected<platform::FileStat>(tl::unexpected(real.error()));
    if (st && st->kind != platform::FileKind::regular) {
      continue; // a directory or device the record names as a file: not ours to hash
    }
    if (!st) {
      c.not_read = fmt::format("cannot examine it: {}", inner_message(root, st.error(), c.path));
    } else if (auto why = unreadable_by_owner(root, tree, c.path, *st)) {
      c.not_read = std::move(*why);
    } else {
      c.size = st->size;
      if (c.recorded.file.size && *c.recorded.file.size != st->size) {
        c.not_read = "not hashed: its size differs from the record's";
      }
    }
    if (c.not_read) {
      comparisons.push_back(std::move(c));
      continue;
    }
    const auto key = std::pair(c.path, c.digest.algorithm);
    auto [it, inserted] = job_of.try_emplace(key, jobs.size());
    if (inserted) {
      jobs.push_back(HashJob{c.path,
                             root.host_path(c.path),
                             c.digest.algorithm,
                             identity_of(*st),
                             *st,
                             std::nullopt,
                             false});
    }
    c.job = it->second;
    comparisons.push_back(std::move(c));
  }

  // The cache belongs to the doctor's own process, whatever root it examines.
  HashCache cache;
  if (options.use_hash_cache && !jobs.empty()) {
    cache = HashCache::open(cache_dir(options.cache_dir, platform::Environment::of_this_process()));
  }
  std::vector<HashJob*> pending;
  for (HashJob& job : jobs) {
    if (auto hex = cache.find(job.host.string(), job.id, job.algorithm)) {
      job.result = std::move(*hex);
      job.from_cache = true;
    } else {
      pending.push_back(&job);
    }
  }
  hash_in_parallel(pending);
  for (HashJob* job : pending) {
    if (!job->result || !*job->result) {
      continue;
    }
    ++facts.integrity.files_hashed;
    facts.integrity.bytes_hashed += job->id.size;
    // Only a digest of a file that did not change while it was read is worth remembering.
    const auto after = platform::stat_path(job->host);
    if (after && identity_of(*after) == job->id) {
      cache.store(job->host.string(), job->id, job->algorithm, **job->result);
    }
  }
  (void)cache.save(); // a cache that cannot be written only makes the next run slower

  for (const UnreadRecord& u : index.unread_records()) {
    facts.integrity.unread_records.push_back(
        UnreadPackageRecord{u.record, u.manager, u.package, u.reason});
  }
  std::sort(facts.integrity.unread_records.begin(),
            facts.integrity.unread_records.end(),
            [](const UnreadPackageRecord& a, const UnreadPackageRecord& b) {
              return a.record < b.record;
            });
  facts.integrity.unread_records.erase(
      std::unique(facts.integrity.unread_records.begin(), facts.integrity.unread_records.end()),
      facts.integrity.unread_records.end());
  for (const Comparison& c : comparisons) {
    FileVerification v;
    v.path = c.path;
    v.manager = c.recorded.file.manager;
    v.package = package_text(c.recorded.file);
    v.record =
        c.recorded.file.hash_record.empty() ? c.recorded.file.record : c.recorded.file.hash_record;
    v.algorithm = std::string(platform::to_string(c.digest.algorithm));
    v.expected = c.digest.hex;
    v.expected_size = c.recorded.file.size;
    v.actual_size = c.size;
    if (c.not_read) {
      v.actual = Fact<std::string>::unknown(*c.not_read);
    } else if (const HashJob& job = jobs[c.job]; job.result && *job.result) {
      v.actual = Fact<std::string>::known(
          **job.result, fmt::format("{}:{}", job.from_cache ? "cache" : "file", c.path));
    } else {
      v.actual = Fact<std::string>::unknown(fmt::format(
          "cannot read it: {}",
          job.result ? inner_message(root, job.result->error(), c.path) : "not hashed"));
    }
    facts.integrity.files.push_back(std::move(v));
  }
  std::sort(facts.integrity.files.begin(),
            facts.integrity.files.end(),
            [](const FileVerification& a, const FileVerification& b) {
              return std::tie(a.path, a.manager, a.package)
                     < std::tie(b.path, b.manager, b.package);
            });
}

} // namespace doctor::collect
