// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/sysroot.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace doctor::facts {

// What a package manager recorded about one installed file.
struct PackageFile {
  std::string manager; // "pip", "conda", "dpkg"
  std::string package; // "nvidia-cudnn-cu12", "libcudnn9-cuda-12"
  std::string version;
  std::string record; // the record that says so (a RECORD, conda-meta JSON or dpkg .list file)
  std::optional<std::uint64_t> size; // pip RECORD and conda record sizes
  std::string hash; // "sha256=<urlsafe-b64>" (pip), "sha256:<hex>" (conda), "" (dpkg .list)
};

// Answers "which package installed this file?" for cuDNN-like libraries from the package
// managers' own records: pip's dist-info RECORD, conda's conda-meta/*.json and dpkg's
// info/*.list. Records are read lazily, once per location, and only for package names that can
// own GPU libraries (nvidia-*, cudnn, libcudnn*, cuda-*), so a big system costs little.
class PackageIndex {
public:
  explicit PackageIndex(const platform::SysRoot& root);

  // Returns the record for file `name` in directory `dir` (inner, canonical). A pip RECORD entry
  // matches by relative path, or, for trees rearranged from wheels (a toolkit with a dist-info
  // directory), by file name and size. Returns nullopt if no record covers it.
  std::optional<PackageFile>
  owner(const std::string& dir, const std::string& name, std::uint64_t size);

private:
  struct Entry {
    std::string path; // inner path the record names
    PackageFile file;
  };
  const std::vector<Entry>&
  records_in(const std::string& key, const std::string& listing_dir, const std::string& base);
  const std::vector<Entry>& pip_records(const std::string& site_packages);
  const std::vector<Entry>& dist_info_dir_records(const std::string& dist_info_parent);
  const std::vector<Entry>& conda_records(const std::string& prefix);
  const std::vector<Entry>& dpkg_records();

  const platform::SysRoot& m_root;
  std::map<std::string, std::vector<Entry>> m_cache;
};

// Returns true for package names that may own GPU libraries.
bool is_gpu_package_name(const std::string& normalized_name);

} // namespace doctor::facts
