// SPDX-License-Identifier: MIT
#include <doctor/collect/package_records.hpp>
#include <doctor/formats/package_files.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <functional>
#include <set>

namespace doctor::collect {

namespace {

constexpr std::size_t k_max_record = std::size_t{16} * 1024 * 1024;
constexpr std::size_t k_max_status = std::size_t{64} * 1024 * 1024;

// The text of a package record's size limit, for the reason it was not read.
std::string too_large_reason() {
  return fmt::format("larger than {} MB, the most a package record is read to",
                     k_max_record / (std::size_t{1024} * 1024));
}

} // namespace

bool is_library_name(std::string_view name) {
  if (util::to_lower(name).ends_with(".dll")) {
    return true;
  }
  for (auto pos = name.find(".so"); pos != std::string_view::npos;
       pos = name.find(".so", pos + 1)) {
    const std::string_view rest = name.substr(pos + 3);
    if (rest.empty()
        || (rest.front() == '.'
            && rest.find_first_not_of("0123456789.") == std::string_view::npos)) {
      return true;
    }
  }
  return false;
}

bool is_recorded_binary(std::string_view path) {
  return is_library_name(util::file_name(path))
         || util::file_name(util::parent_path(path)) == "bin";
}

bool is_gpu_package_name(const std::string& n) {
  return n.starts_with("nvidia-") || n == "cudnn" || n.starts_with("libcudnn")
         || n.starts_with("cuda-") || n == "cudatoolkit" || n.starts_with("libcublas")
         || n.starts_with("libnvidia") || n.starts_with("libcuda");
}

PackageIndex::PackageIndex(const platform::SysRoot& root)
    : m_root(root) {}

// Every GPU package's record is far below the limit (cuDNN's RECORD is a few KB, a CUDA wheel's
// tens of KB); one larger is not read at all, neither streamed nor cut, and is named as unread:
// a cut record would make the files it no longer lists look unrecorded.
std::optional<std::string> PackageIndex::read_record(const std::string& path,
                                                     const std::string& manager,
                                                     const std::string& package,
                                                     const std::string& tree) {
  auto text = m_root.read_file(path, k_max_record);
  if (text) {
    return std::move(*text);
  }
  if (text.error().code != ErrorCode::not_found) {
    m_unread.push_back(UnreadRecord{
        path,
        manager,
        package,
        tree,
        text.error().code == ErrorCode::too_large
            ? too_large_reason()
            : util::replace_all(text.error().message, m_root.host_path(path).string(), path)});
  }
  return std::nullopt;
}

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
    const std::string record = util::join_path(util::join_path(listing_dir, e.name), "RECORD");
    const auto text =
        read_record(record, "pip", fmt::format("{} {}", pkg->name, pkg->version), base);
    if (!text) {
      continue;
    }
    for (formats::PipRecordLine& line : formats::parse_pip_record(*text)) {
      if (!is_recorded_binary(line.path)) {
        continue;
      }
      out.push_back(RecordedFile{
          util::normalize_path(util::join_path(base, line.path)),
          PackageFile{"pip", pkg->name, pkg->version, record, line.size, std::move(line.hash), {}},
          base});
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
    const auto stem = formats::split_conda_meta_stem(e.name.substr(0, e.name.size() - 5));
    if (!stem || !is_gpu_package_name(formats::normalize_package_name(stem->first))) {
      continue;
    }
    const std::string path = util::join_path(meta, e.name);
    const auto text =
        read_record(path, "conda", fmt::format("{} {}", stem->first, stem->second), prefix);
    if (!text) {
      continue;
    }
    const auto record = formats::parse_conda_meta(*text);
    if (!record) {
      continue;
    }
    const std::string& name = record->name.empty() ? stem->first : record->name;
    const std::string& version = record->version.empty() ? stem->second : record->version;
    for (const formats::CondaFile& f : record->files) {
      if (!is_recorded_binary(f.path)) {
        continue;
      }
      out.push_back(RecordedFile{util::normalize_path(util::join_path(prefix, f.path)),
                                 PackageFile{"conda",
                                             name,
                                             version,
                                             path,
                                             f.size,
                                             f.sha256.empty() ? "" : "sha256:" + f.sha256,
                                             {}},
                                 prefix});
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
  // Mapped, not read: the status file of a desktop system is megabytes, of which only the
  // stanzas of the GPU packages matter (reading it whole was most of what check read on Debian).
  if (auto status = m_root.map_file("/var/lib/dpkg/status");
      status && status->data().size() <= k_max_status) {
    std::set<std::string, std::less<>> wanted;
    for (const auto& [pkg, list] : list_files) {
      wanted.insert(pkg);
    }
    versions = formats::parse_dpkg_status_versions(status->data(), wanted);
  }
  for (const auto& [pkg, list] : list_files) {
    const std::string version = versions.count(pkg) != 0 ? versions[pkg] : std::string();
    const std::string package = version.empty() ? pkg : fmt::format("{} {}", pkg, version);
    const auto text = read_record(list, "dpkg", package, "/");
    if (!text) {
      continue;
    }
    const std::string md5sums = list.substr(0, list.size() - 5) + ".md5sums";
    const auto md5_text = read_record(md5sums, "dpkg", package, "/");
    const auto md5_of = md5_text ? formats::parse_dpkg_md5sums(*md5_text)
                                 : std::map<std::string, std::string, std::less<>>{};
    for (std::string_view line : formats::parse_dpkg_list(*text)) {
      if (!is_recorded_binary(line)) {
        continue;
      }
      PackageFile f{"dpkg", pkg, version, list, std::nullopt, {}, {}};
      if (auto it = md5_of.find(line); it != md5_of.end()) {
        f.hash = "md5:" + it->second;
        f.hash_record = md5sums;
      }
      out.push_back(RecordedFile{std::string(line), std::move(f), "/"});
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
