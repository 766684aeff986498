// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/package_records.hpp>
#include <doctor/collect/read_failure.hpp>
#include <doctor/formats/elf.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr std::size_t k_max_header = std::size_t{4} * 1024 * 1024;

// A libcudnn file name split into its parts: "libcudnn_ops.so.9.1.0" -> {"libcudnn_ops", 9,
// "9.1.0"}. The member name the loader asks for is "<stem>.so.<major>".
struct LibName {
  std::string stem;
  unsigned major = 0;
  std::string version; // empty when the name carries only the major
};

std::optional<LibName> parse_lib_name(std::string_view name) {
  if (!name.starts_with("libcudnn")) {
    return std::nullopt;
  }
  const auto so = name.find(".so.");
  if (so == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view stem = name.substr(0, so);
  for (char c : stem) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) {
      return std::nullopt;
    }
  }
  const std::string_view tail = name.substr(so + 4);
  const auto v = Version::parse(tail);
  if (!v || v->major() == 0 || v->major() > 99) {
    return std::nullopt;
  }
  LibName out;
  out.stem = std::string(stem);
  out.major = v->major();
  if (v->size() >= 3) {
    out.version = std::string(tail);
  }
  return out;
}

// The version a cuDNN library carries inside: cuDNN 8 and 9 export 4-byte objects such as
// `cudnn_ops_infer_version` (libcudnn_ops_infer.so.8, libcudnn_ops.so.9) holding
// major << 16 | minor << 8 | patch (0x080906 in nvidia-cudnn-cu11 8.9.6.50, 0x091300 in cuDNN
// 9.19.0; read from the real files). The dispatcher and some sub-libraries (cnn_train, adv_train,
// cnn.so.9, graph) have none. `stem` is "libcudnn_ops_infer"; returns nullopt without such an
// object.
std::optional<Version> embedded_version(const platform::SysRoot& root,
                                        const std::string& real_path,
                                        std::string_view stem) {
  if (!stem.starts_with("libcudnn_")) {
    return std::nullopt;
  }
  const std::string part(stem.substr(3)); // "cudnn_ops_infer", "cudnn_ops"
  auto mapped = root.map_file(real_path);
  if (!mapped) {
    return std::nullopt;
  }
  const auto objects =
      formats::read_elf_objects(mapped->data(), {part + "_version", part + "_infer_version"}, 4);
  for (const formats::ElfObject& o : objects) {
    if (!o.value) {
      continue;
    }
    const auto major = (*o.value >> 16U) & 0xFFU;
    const auto minor = (*o.value >> 8U) & 0xFFU;
    const auto patch = *o.value & 0xFFU;
    if (major >= 7 && major <= 99 && (*o.value >> 24U) == 0) {
      return Version::parse(fmt::format("{}.{}.{}", major, minor, patch));
    }
  }
  return std::nullopt;
}

struct DirCandidate {
  std::string dir;
  std::string via;
};

// Every directory where a cuDNN could be loaded from or was installed to.
std::vector<DirCandidate> candidate_dirs(const platform::SysRoot& root, const Facts& facts) {
  std::vector<DirCandidate> out;
  auto add = [&](const std::string& dir, std::string via) {
    out.push_back(DirCandidate{util::normalize_path(dir), std::move(via)});
  };
  for (const std::string& dir : root.env().list("LD_LIBRARY_PATH")) {
    add(dir, "LD_LIBRARY_PATH");
  }
  if (auto cudnn_path = root.env().get("CUDNN_PATH"); cudnn_path && !cudnn_path->empty()) {
    add(util::join_path(*cudnn_path, "lib"), "env:CUDNN_PATH");
    add(util::join_path(*cudnn_path, "lib64"), "env:CUDNN_PATH");
  }
  if (facts.linker.cache) {
    for (const LdCacheEntry& e : *facts.linker.cache) {
      if (e.name.starts_with("libcudnn")) {
        add(util::parent_path(e.path), "ld.so.cache");
      }
    }
  }
  if (facts.linker.conf_dirs) {
    for (const std::string& dir : *facts.linker.conf_dirs) {
      add(dir, "ld.so.conf");
    }
  }
  for (const std::string& dir : facts.linker.default_dirs) {
    add(dir, "default");
  }
  for (const CudaToolkit& tk : facts.cuda_toolkits) {
    for (const std::string& dir : tk.library_dirs) {
      add(dir, fmt::format("toolkit:{}", tk.path));
    }
  }
  for (const PythonEnv& env : facts.python_envs) {
    if (env.site_packages) {
      add(util::join_path(*env.site_packages, "nvidia/cudnn/lib"),
          fmt::format("pip:{}", env.prefix));
      add(util::join_path(*env.site_packages, "torch/lib"), fmt::format("torch:{}", env.prefix));
    }
    if (env.kind == "conda") {
      add(util::join_path(env.prefix, "lib"), fmt::format("conda:{}", env.prefix));
    }
  }
  return out;
}

// cudnn_version.h (cuDNN 8+) or cudnn.h (7) near a library directory: the toolkit and tarball
// layouts (../include), pip (../include under nvidia/cudnn) and Debian/Ubuntu packages
// (/usr/include/<triplet>/cudnn_version_v9.h).
Fact<Version>
header_version(const platform::SysRoot& root, const std::string& dir, unsigned major) {
  std::vector<std::string> headers;
  const std::string include = util::join_path(util::parent_path(dir), "include");
  for (const std::string& name : {fmt::format("cudnn_version_v{}.h", major),
                                  std::string("cudnn_version.h"),
                                  fmt::format("cudnn_v{}.h", major),
                                  std::string("cudnn.h")}) {
    headers.push_back(util::join_path(include, name));
  }
  if (dir.starts_with("/usr/lib/") || dir.starts_with("/lib/")) {
    const std::string_view triplet = util::file_name(dir);
    headers.push_back(fmt::format("/usr/include/{}/cudnn_version_v{}.h", triplet, major));
    headers.push_back(fmt::format("/usr/include/cudnn_version_v{}.h", major));
    headers.push_back("/usr/include/cudnn_version.h");
  }
  ReadFailure failure;
  for (const std::string& h : headers) {
    auto text = root.read_file(h, k_max_header);
    if (!text) {
      failure.note(text.error());
      continue;
    }
    if (auto v = formats::parse_cudnn_header(*text); v && v->major() == major) {
      return Fact<Version>::known(*v, fmt::format("file:{}", h));
    }
  }
  return Fact<Version>::unknown(fmt::format(
      "no readable cudnn_version.h for cuDNN {} next to {}{}", major, dir, failure.suffix()));
}

// A pip wheel's library directory (<site-packages>/nvidia/<component>/lib) holds the wheel's
// files only while they stay in site-packages: a link planted there towards another file (a venv
// owner's link to /etc/shadow, read by a doctor run as root) is not one, and its target's size,
// mode and owner must not reach the snapshot. Other directories' links (the system's
// /usr/lib/x86_64-linux-gnu/libcudnn.so.9 -> /etc/alternatives/…) are the loader's to follow.
// Why no record names the files of `dir`: none does, or one that would have could not be read.
std::string unrecorded_reason(const PackageIndex& packages, const std::string& dir) {
  for (const UnreadRecord& u : packages.unread_records()) {
    // dpkg's md5sums say nothing of who owns a file; its .list does.
    if (util::is_within(dir, u.tree) && !u.record.ends_with(".md5sums")) {
      return fmt::format("no package record could be read: {}: {}", u.record, u.reason);
    }
  }
  return "no package manager records these files";
}

bool in_own_tree(const std::string& dir, const std::string& target) {
  if (util::file_name(dir) != "lib"
      || util::file_name(util::parent_path(util::parent_path(dir))) != "nvidia") {
    return true;
  }
  return util::is_within(target, util::parent_path(util::parent_path(util::parent_path(dir))));
}

} // namespace

void collect_cudnn(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  PackageIndex packages(root);
  // Keyed by (canonical dir, major); a directory reached several ways is one installation.
  std::map<std::pair<std::string, unsigned>, CudnnInstall> installs;
  std::set<std::string> scanned;
  std::map<std::string, std::vector<std::string>> via_by_dir;
  // (dir, major) -> {"pip nvidia-cudnn-cu12 9.1.0.70", record path}, from the first owned file.
  std::map<std::pair<std::string, unsigned>, std::pair<std::string, std::string>> package_of;

  for (const DirCandidate& c : candidate_dirs(root, facts)) {
    auto real = root.resolve(c.dir);
    if (!real) {
      continue;
    }
    auto& vias = via_by_dir[*real];
    if (std::find(vias.begin(), vias.end(), c.via) == vias.end()) {
      vias.push_back(c.via);
    }
    if (!scanned.insert(*real).second) {
      continue;
    }
    auto entries = root.list_dir(*real);
    if (!entries) {
      if (entries.error().code != ErrorCode::not_found) {
        facts.unreadable.push_back(UnreadablePath{*real,
                                                  "cuDNN libraries",
                                                  std::string(to_string(entries.error().code)),
                                                  entries.error().message});
      }
      continue;
    }
    // One record per member: prefer the file the loader asks for ("<stem>.so.<major>") and read
    // the version from the real file it points to.
    std::map<std::pair<std::string, unsigned>, std::string> chosen;
    for (const platform::DirEntry& e : *entries) {
      const auto name = parse_lib_name(e.name);
      if (!name) {
        continue;
      }
      const auto key = std::pair(name->stem, name->major);
      const std::string soname = fmt::format("{}.so.{}", name->stem, name->major);
      auto it = chosen.find(key);
      if (it == chosen.end() || e.name == soname) {
        chosen[key] = e.name;
      }
    }
    for (const auto& [key, file] : chosen) {
      const std::string path = util::join_path(*real, file);
      auto target = root.resolve(path);
      auto st = root.stat(path);
      if (!target || !st || st->kind != platform::FileKind::regular) {
        continue; // a dangling link is the loader issue's business
      }
      if (!in_own_tree(*real, *target)) {
        continue; // not the wheel's library, and nothing of what it leads to is recorded
      }
      CudnnLibrary lib;
      lib.name = file;
      lib.member = fmt::format("{}.so.{}", key.first, key.second);
      lib.major = key.second;
      lib.real_path = *target;
      lib.size = st->size;
      const auto real_name = parse_lib_name(util::file_name(*target));
      const auto owner = packages.owner(
          util::parent_path(*target), std::string(util::file_name(*target)), st->size);
      if (owner) {
        package_of.try_emplace(
            std::pair(*real, key.second),
            fmt::format("{} {} {}", owner->manager, owner->package, owner->version),
            owner->record);
      }
      if (real_name && !real_name->version.empty()) {
        lib.version = Fact<Version>::known(*Version::parse(real_name->version),
                                           fmt::format("name:{}", *target));
      } else if (owner) {
        if (auto v = Version::parse_prefix(owner->version); v && v->major() == key.second) {
          lib.version = Fact<Version>::known(
              *v,
              fmt::format(
                  "{}:{} {} ({})", owner->manager, owner->package, owner->version, owner->record));
        }
      }
      if (!lib.version) {
        if (auto v = embedded_version(root, *target, key.first); v && v->major() == key.second) {
          lib.version = Fact<Version>::known(*v, fmt::format("elf-symbol:{}", *target));
        }
      }
      if (!lib.version) {
        lib.version = Fact<Version>::unknown(fmt::format(
            "the name {} carries only the major version, no package record covers it and it "
            "exports no version object",
            util::file_name(*target)));
      }
      CudnnInstall& inst = installs[std::pair(*real, key.second)];
      inst.dir = *real;
      inst.major = key.second;
      inst.libraries.push_back(std::move(lib));
    }
  }

  for (auto& [key, inst] : installs) {
    inst.found_via = via_by_dir[inst.dir];
    std::sort(inst.found_via.begin(), inst.found_via.end());
    std::sort(inst.libraries.begin(), inst.libraries.end(), [](const auto& a, const auto& b) {
      return a.member < b.member;
    });
    inst.header_version = header_version(root, inst.dir, inst.major);
    if (auto it = package_of.find(key); it != package_of.end()) {
      inst.package = Fact<std::string>::known(it->second.first, "record:" + it->second.second);
    } else {
      inst.package = Fact<std::string>::unknown(unrecorded_reason(packages, inst.dir));
    }
    // Whole-installation version: the header when it matches the major, else the libraries'
    // common version when they agree.
    std::set<std::string> lib_versions;
    std::string lib_source;
    for (const CudnnLibrary& lib : inst.libraries) {
      if (lib.version) {
        lib_versions.insert(lib.version->prefix(3));
        lib_source = lib.version.source();
      }
    }
    if (inst.header_version) {
      inst.version = inst.header_version;
    } else if (lib_versions.size() == 1) {
      inst.version = Fact<Version>::known(*Version::parse(*lib_versions.begin()), lib_source);
    } else if (lib_versions.size() > 1) {
      inst.version = Fact<Version>::unknown("the libraries in this directory disagree");
    } else {
      inst.version = Fact<Version>::unknown(
          "no header, versioned file name or package record tells the version");
    }
    facts.cudnn.push_back(std::move(inst));
  }
}

std::optional<Version> cudnn_library_version(const platform::SysRoot& root,
                                             const std::string& real_path) {
  const auto name = parse_lib_name(util::file_name(real_path));
  if (!name) {
    return std::nullopt;
  }
  if (!name->version.empty()) {
    return Version::parse(name->version);
  }
  auto v = embedded_version(root, real_path, name->stem);
  return v && v->major() == name->major ? v : std::nullopt;
}

} // namespace doctor::collect
