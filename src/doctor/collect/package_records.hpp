// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/sysroot.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::collect {

// What a package manager recorded about one installed file.
struct PackageFile {
  std::string manager; // "pip", "conda", "dpkg"
  std::string package; // "nvidia-cudnn-cu12", "libcudnn9-cuda-12"
  std::string version;
  std::string record; // the record that says so (a RECORD, conda-meta JSON or dpkg .list file)
  std::optional<std::uint64_t> size; // pip RECORD and conda record sizes
  std::string hash; // "sha256=<urlsafe-b64>" (pip), "sha256:<hex>" (conda), "md5:<hex>" (dpkg)
  // The record `hash` comes from where that is not `record` (dpkg: info/<pkg>.md5sums).
  std::string hash_record;
};

// A file a package record lists: the inner path it names, and what the record says.
struct RecordedFile {
  std::string path;
  PackageFile file;
  // The package's own tree, which its files must not leave (a link out of it is not the
  // package's file): the site-packages of a pip RECORD, the top of a tree rearranged from
  // wheels, a conda prefix, "/" for dpkg.
  std::string tree;
};

// A package record that exists but could not be read (larger than the most a record is read to,
// unreadable): what it would have said is unknown, which is not the same as "no record".
struct UnreadRecord {
  std::string record;  // inner path
  std::string manager; // "pip", "conda", "dpkg"
  std::string package; // "nvidia-cudnn-cu12 9.1.0.70", from the record's own file name
  std::string tree;    // the package's tree (RecordedFile::tree)
  std::string reason;  // "larger than 16 MB, the most a package record is read to"
};

// Answers "which package installed this file?" for cuDNN-like libraries from the package
// managers' own records: pip's dist-info RECORD, conda's conda-meta/*.json and dpkg's
// info/*.list with info/*.md5sums. Records are read lazily, once per location, and only for package
// names that can own GPU libraries (nvidia-*, cudnn, libcudnn*, cuda-*), so a big system costs
// little.
class PackageIndex {
public:
  explicit PackageIndex(const platform::SysRoot& root);

  // Returns the record for file `name` in directory `dir` (inner, canonical). A pip RECORD entry
  // matches by relative path, or, for trees rearranged from wheels (a toolkit with a dist-info
  // directory), by file name and size. Returns nullopt if no record covers it.
  std::optional<PackageFile>
  owner(const std::string& dir, const std::string& name, std::uint64_t size);

  // Every library and executable (is_recorded_binary) the GPU packages of one location record, as
  // inner paths (not resolved; they need not exist). Empty if the location has no such records.
  // pip: the RECORDs of site-packages `site_packages`.
  const std::vector<RecordedFile>& pip_records(const std::string& site_packages);
  // A tree rearranged from wheels (`tree`/dist-info, as this machine's CUDA toolkit has): each
  // RECORD path at its place in the tree, a wheel's "nvidia/<component>/lib/x" being the tree's
  // "lib/x" and "<name>.dist-info/x" the tree's "dist-info/<name>.dist-info/x".
  const std::vector<RecordedFile>& wheel_tree_records(const std::string& tree);
  // conda: conda-meta/*.json of environment `prefix`.
  const std::vector<RecordedFile>& conda_records(const std::string& prefix);
  // dpkg: /var/lib/dpkg/info/<pkg>.list, with the md5 of info/<pkg>.md5sums where it has one.
  const std::vector<RecordedFile>& dpkg_records();

  // The records of GPU packages met so far that exist but could not be read, in the order met.
  const std::vector<UnreadRecord>& unread_records() const { return m_unread; }

private:
  std::vector<RecordedFile>&
  records_in(const std::string& key, const std::string& listing_dir, const std::string& base);
  const std::vector<RecordedFile>& dist_info_dir_records(const std::string& dist_info_parent);
  // Reads record `path` of package `package`, or notes in m_unread why it could not be.
  std::optional<std::string> read_record(const std::string& path,
                                         const std::string& manager,
                                         const std::string& package,
                                         const std::string& tree);

  const platform::SysRoot& m_root;
  std::map<std::string, std::vector<RecordedFile>> m_cache;
  std::vector<UnreadRecord> m_unread;
};

// Returns true for package names that may own GPU libraries.
bool is_gpu_package_name(const std::string& normalized_name);

// True for a shared-library name: "x.dll", "x.so", "x.so.9", "x.so.13.0.96".
bool is_library_name(std::string_view name);

// The recorded files PackageIndex keeps: shared libraries (what owner() is asked about) and what
// lies in a bin/ directory (executables; with the libraries, what --verify hashes). Headers,
// static archives and metadata are left out: they are most of a toolkit's records (CCCL's
// RECORD alone lists 2 300 headers), little of its bytes, and not what a broken install breaks
// at run time.
bool is_recorded_binary(std::string_view path);

} // namespace doctor::collect
