// SPDX-License-Identifier: MIT
#include <doctor/collect/package_records.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>

namespace doctor::collect {

namespace {

constexpr std::size_t k_max_record = std::size_t{16} * 1024 * 1024;
constexpr std::size_t k_max_status = std::size_t{64} * 1024 * 1024;

// Reads one pip RECORD (CSV: path,hash,size). Paths are relative to site-packages; quoting is
// only used for paths with commas, which GPU wheels do not have, so a quoted line is skipped.
void read_pip_record(const platform::SysRoot& root,
                     const std::string& base,
                     const std::string& dist_info,
                     const formats::DistInfoName& pkg,
                     std::vector<PackageFile>* files_out,
                     std::vector<std::string>* paths_out) {
  const std::string record = util::join_path(dist_info, "RECORD");
  auto text = root.read_file(record, k_max_record);
  if (!text) {
    return;
  }
  for (std::string_view line : util::split_lines(*text)) {
    if (line.empty() || line.front() == '"') {
      continue;
    }
    const auto fields = util::split(line, ',');
    if (fields.size() != 3 || fields[0].empty()) {
      continue;
    }
    PackageFile f;
    f.manager = "pip";
    f.package = pkg.name;
    f.version = pkg.version;
    f.record = record;
    f.size = util::parse_uint(fields[2]);
    f.hash = std::string(fields[1]);
    files_out->push_back(std::move(f));
    paths_out->push_back(util::normalize_path(util::join_path(base, fields[0])));
  }
}

// Reads dpkg's "<md5>  <path without leading slash>" lines into a map from inner path to md5.
std::map<std::string, std::string, std::less<>> read_md5sums(const platform::SysRoot& root,
                                                             const std::string& path) {
  std::map<std::string, std::string, std::less<>> out;
  auto text = root.read_file(path, k_max_record);
  if (!text) {
    return out;
  }
  for (std::string_view line : util::split_lines(*text)) {
    const auto space = line.find(' ');
    if (space != 32 || line.size() < 35) {
      continue;
    }
    std::string_view file = util::trim(line.substr(space));
    if (!file.empty()) {
      out.emplace("/" + std::string(file.front() == '/' ? file.substr(1) : file),
                  util::to_lower(line.substr(0, space)));
    }
  }
  return out;
}

} // namespace

bool is_gpu_package_name(const std::string& n) {
  return n.starts_with("nvidia-") || n == "cudnn" || n.starts_with("libcudnn")
         || n.starts_with("cuda-") || n == "cudatoolkit" || n.starts_with("libcublas")
         || n.starts_with("libnvidia") || n.starts_with("libcuda");
}

PackageIndex::PackageIndex(const platform::SysRoot& root)
    : m_root(root) {}

// Reads the RECORD of every GPU package's dist-info directory in `listing_dir`; RECORD paths are
// relative to `base` (site-packages, or the top of a tree rearranged from wheels).
std::vector<RecordedFile>& PackageIndex::records_in(const std::string& key,
                                                    const std::string& listing_dir,
                                                    const std::string& base) {
  if (auto it = m_cache.find(key); it != m_cache.end()) {
    return it->second;
  }
  std::vector<RecordedFile>& out = m_cache[key];
  auto entries = m_root.list_dir(listing_dir);
  if (!entries) {
    return out;
  }
  for (const platform::DirEntry& e : *entries) {
    const auto pkg = formats::parse_dist_info_dir(e.name);
    if (!pkg || !is_gpu_package_name(pkg->name)) {
      continue;
    }
    std::vector<PackageFile> files;
    std::vector<std::string> paths;
    read_pip_record(m_root, base, util::join_path(listing_dir, e.name), *pkg, &files, &paths);
    for (std::size_t i = 0; i < files.size(); ++i) {
      out.push_back(RecordedFile{paths[i], std::move(files[i])});
    }
  }
  return out;
}

const std::vector<RecordedFile>& PackageIndex::pip_records(const std::string& sp) {
  return records_in("pip:" + sp, sp, sp);
}

// A tree rearranged from wheels puts a wheel's "nvidia/<component>/lib/x" at "<tree>/lib/x" and its
// "<name>.dist-info/x" at "<tree>/dist-info/<name>.dist-info/x"; the file names stay.
const std::vector<RecordedFile>& PackageIndex::dist_info_dir_records(const std::string& parent) {
  const std::string key = "dist-info:" + parent;
  if (auto it = m_cache.find(key); it != m_cache.end()) {
    return it->second;
  }
  std::vector<RecordedFile>& out = records_in(key, util::join_path(parent, "dist-info"), parent);
  const std::string prefix = parent == "/" ? parent : parent + "/";
  for (RecordedFile& f : out) {
    if (!f.path.starts_with(prefix)) {
      continue;
    }
    const std::string_view rel = std::string_view(f.path).substr(prefix.size());
    const auto first = rel.find('/');
    if (first == std::string_view::npos) {
      continue;
    }
    if (rel.starts_with("nvidia/")) {
      if (const auto second = rel.find('/', first + 1); second != std::string_view::npos) {
        f.path = util::join_path(parent, rel.substr(second + 1));
      }
    } else if (rel.substr(0, first).ends_with(".dist-info")) {
      f.path = util::join_path(util::join_path(parent, "dist-info"), rel);
    }
  }
  return out;
}

const std::vector<RecordedFile>& PackageIndex::conda_records(const std::string& prefix) {
  const std::string key = "conda:" + prefix;
  if (auto it = m_cache.find(key); it != m_cache.end()) {
    return it->second;
  }
  std::vector<RecordedFile>& out = m_cache[key];
  const std::string meta = util::join_path(prefix, "conda-meta");
  auto entries = m_root.list_dir(meta);
  if (!entries) {
    return out;
  }
  for (const platform::DirEntry& e : *entries) {
    if (!e.name.ends_with(".json")) {
      continue;
    }
    // conda-meta files are "<name>-<version>-<build>.json"; the name may contain dashes.
    const std::string stem = e.name.substr(0, e.name.size() - 5);
    const auto last = stem.rfind('-');
    const auto second = last == std::string::npos ? std::string::npos : stem.rfind('-', last - 1);
    if (second == std::string::npos
        || !is_gpu_package_name(formats::normalize_package_name(stem.substr(0, second)))) {
      continue;
    }
    const std::string path = util::join_path(meta, e.name);
    auto text = m_root.read_file(path, k_max_record);
    if (!text) {
      continue;
    }
    const auto doc = nlohmann::json::parse(*text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      continue;
    }
    const std::string name = doc.value("name", stem.substr(0, second));
    const std::string version = doc.value("version", stem.substr(second + 1, last - second - 1));
    // Newer conda writes "paths_data" with sizes and hashes; older only "files".
    const auto paths_data = doc.find("paths_data");
    if (paths_data != doc.end() && paths_data->is_object() && paths_data->contains("paths")
        && (*paths_data)["paths"].is_array()) {
      for (const auto& p : (*paths_data)["paths"]) {
        if (!p.is_object() || !p.contains("_path") || !p["_path"].is_string()) {
          continue;
        }
        PackageFile f{"conda", name, version, path, std::nullopt, {}, {}};
        if (p.contains("size_in_bytes") && p["size_in_bytes"].is_number_unsigned()) {
          f.size = p["size_in_bytes"].get<std::uint64_t>();
        }
        if (p.contains("sha256") && p["sha256"].is_string()) {
          f.hash = "sha256:" + p["sha256"].get<std::string>();
        }
        out.push_back(RecordedFile{
            util::normalize_path(util::join_path(prefix, p["_path"].get<std::string>())),
            std::move(f)});
      }
    } else if (doc.contains("files") && doc["files"].is_array()) {
      for (const auto& p : doc["files"]) {
        if (p.is_string()) {
          out.push_back(
              RecordedFile{util::normalize_path(util::join_path(prefix, p.get<std::string>())),
                           PackageFile{"conda", name, version, path, std::nullopt, {}, {}}});
        }
      }
    }
  }
  return out;
}

// dpkg keeps one "<package>[:arch].list" of installed paths per package in /var/lib/dpkg/info,
// their md5 in "<package>[:arch].md5sums" (regular files only; conffiles have none), and the
// versions in /var/lib/dpkg/status. Only GPU package names are read.
const std::vector<RecordedFile>& PackageIndex::dpkg_records() {
  const std::string key = "dpkg";
  if (auto it = m_cache.find(key); it != m_cache.end()) {
    return it->second;
  }
  std::vector<RecordedFile>& out = m_cache[key];
  constexpr const char* k_info = "/var/lib/dpkg/info";
  auto entries = m_root.list_dir(k_info);
  if (!entries) {
    return out;
  }
  std::map<std::string, std::string> list_files; // package -> .list path
  for (const platform::DirEntry& e : *entries) {
    if (!e.name.ends_with(".list")) {
      continue;
    }
    std::string pkg = e.name.substr(0, e.name.size() - 5);
    pkg = pkg.substr(0, pkg.find(':'));
    if (is_gpu_package_name(pkg)) {
      list_files[pkg] = util::join_path(k_info, e.name);
    }
  }
  if (list_files.empty()) {
    return out;
  }
  std::map<std::string, std::string> versions;
  if (auto status = m_root.read_file("/var/lib/dpkg/status", k_max_status)) {
    std::string current;
    for (std::string_view line : util::split_lines(*status)) {
      if (line.starts_with("Package: ")) {
        current = std::string(util::trim(line.substr(9)));
      } else if (line.starts_with("Version: ") && list_files.count(current) != 0) {
        versions[current] = std::string(util::trim(line.substr(9)));
      }
    }
  }
  for (const auto& [pkg, list] : list_files) {
    auto text = m_root.read_file(list, k_max_record);
    if (!text) {
      continue;
    }
    const std::string version = versions.count(pkg) != 0 ? versions[pkg] : std::string();
    const std::string md5sums = list.substr(0, list.size() - 5) + ".md5sums";
    const auto md5_of = read_md5sums(m_root, md5sums);
    for (std::string_view line : util::split_lines(*text)) {
      if (!line.empty() && line.front() == '/') {
        PackageFile f{"dpkg", pkg, version, list, std::nullopt, {}, {}};
        if (auto it = md5_of.find(line); it != md5_of.end()) {
          f.hash = "md5:" + it->second;
          f.hash_record = md5sums;
        }
        out.push_back(RecordedFile{std::string(line), std::move(f)});
      }
    }
  }
  return out;
}

const std::vector<RecordedFile>& PackageIndex::wheel_tree_records(const std::string& tree) {
  return dist_info_dir_records(tree);
}

std::optional<PackageFile>
PackageIndex::owner(const std::string& dir, const std::string& name, std::uint64_t size) {
  const std::string path = util::join_path(dir, name);
  auto by_path = [&](const std::vector<RecordedFile>& entries) -> std::optional<PackageFile> {
    for (const RecordedFile& e : entries) {
      if (e.path == path) {
        return e.file;
      }
    }
    return std::nullopt;
  };
  // pip: <site-packages>/nvidia/<lib>/lib
  if (dir.ends_with("/lib")
      && util::file_name(util::parent_path(util::parent_path(dir))) == "nvidia") {
    const std::string sp = util::parent_path(util::parent_path(util::parent_path(dir)));
    if (auto f = by_path(pip_records(sp))) {
      return f;
    }
  }
  // A tree rearranged from wheels keeps their dist-info next to lib/ (this machine's CUDA tree).
  for (const RecordedFile& e : dist_info_dir_records(util::parent_path(dir))) {
    if (util::file_name(e.path) == name && e.file.size && *e.file.size == size) {
      return e.file;
    }
  }
  // conda: <prefix>/lib with <prefix>/conda-meta
  if (util::file_name(dir) == "lib") {
    if (auto f = by_path(conda_records(util::parent_path(dir)))) {
      return f;
    }
  }
  return by_path(dpkg_records());
}

} // namespace doctor::collect
