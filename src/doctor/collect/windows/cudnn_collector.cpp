// SPDX-License-Identifier: MIT
// cuDNN on a Windows machine, wherever it lies: the toolkits' bin folders (where NVIDIA's guide
// says to copy it), C:\tools\cuda (TensorFlow's guide), the cuDNN installer's
// Program Files\NVIDIA\CUDNN\v*, every PATH folder, System32, and each Python environment's
// torch\lib, site-packages\nvidia\*\bin and conda Library\bin. Each folder with cudnn*64_<N>.dll
// becomes one installation per major, with every DLL's version resource, cudnn_version.h from the
// include folder beside it, and whether zlibwapi.dll (cuDNN 8.3 to 9.1) lies next to it.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr std::size_t k_max_cudnn_header = std::size_t{4} * 1024 * 1024;

struct CudnnDirCandidate {
  std::string dir;
  std::string via;
};

// The bin folders under `dir` and, for the cuDNN 9 installer's layout
// (CUDNN\v9.1\bin\12.4), one level below.
void add_bin_tree(const platform::SysRoot& root,
                  const std::string& dir,
                  const std::string& via,
                  std::vector<CudnnDirCandidate>& out) {
  const std::string bin = loader::windows_join(dir, "bin");
  out.push_back({bin, via});
  if (auto entries = list_windows_dir(root, bin)) {
    for (const platform::DirEntry& e : *entries) {
      if (e.kind == platform::FileKind::directory) {
        out.push_back({loader::windows_join(bin, e.name), via});
        out.push_back({loader::windows_join(loader::windows_join(bin, e.name), "x64"), via});
      }
    }
  }
}

std::vector<CudnnDirCandidate> cudnn_dir_candidates(const platform::SysRoot& root,
                                                    const Facts& facts) {
  std::vector<CudnnDirCandidate> out;
  for (const CudaToolkit& tk : facts.cuda_toolkits) {
    for (const std::string& dir : tk.library_dirs) {
      out.push_back({dir, "toolkit:" + tk.path});
    }
  }
  if (auto path = windows_env(root, "CUDNN_PATH"); path && !path->empty()) {
    add_bin_tree(root, loader::normalize_windows_path(*path), "env:CUDNN_PATH", out);
  }
  out.push_back({"C:\\tools\\cuda\\bin", "dir:C:\\tools\\cuda"});
  const std::string program_files = windows_env(root, "ProgramFiles").value_or("C:\\Program Files");
  const std::string installer = program_files + "\\NVIDIA\\CUDNN";
  if (auto entries = list_windows_dir(root, installer)) {
    for (const platform::DirEntry& e : *entries) {
      if (e.kind == platform::FileKind::directory) {
        add_bin_tree(
            root, loader::windows_join(installer, e.name), "dir:" + installer + "\\v*", out);
      }
    }
  }
  for (const std::string& dir :
       loader::split_windows_path_list(windows_env(root, "PATH").value_or(""))) {
    out.push_back({dir, "PATH"});
  }
  out.push_back({windows_system_root(root) + "\\System32", "System32"});
  for (const PythonEnv& env : facts.python_envs) {
    if (env.site_packages) {
      out.push_back(
          {loader::windows_join(*env.site_packages, "torch\\lib"), "torch:" + env.prefix});
      const std::string nvidia = loader::windows_join(*env.site_packages, "nvidia");
      if (auto entries = list_windows_dir(root, nvidia)) {
        for (const platform::DirEntry& e : *entries) {
          if (e.kind == platform::FileKind::directory) {
            out.push_back({loader::windows_join(loader::windows_join(nvidia, e.name), "bin"),
                           "pip:" + env.prefix});
          }
        }
      }
    }
    if (env.kind == "conda") {
      out.push_back({loader::windows_join(env.prefix, "Library\\bin"), "conda:" + env.prefix});
    }
  }
  return out;
}

// cudnn_version.h in the include folder beside the DLLs' folder: <root>\include for <root>\bin,
// and the installer's include\<cuda> for bin\<cuda>.
Fact<Version>
cudnn_header_version(const platform::SysRoot& root, const std::string& dir, unsigned major) {
  std::vector<std::string> headers;
  std::string up = loader::windows_parent(dir);
  std::string sub;
  if (util::to_lower(loader::windows_file_name(dir)) == "x64") {
    up = loader::windows_parent(up);
  }
  if (util::to_lower(loader::windows_file_name(up)) == "bin") {
    sub = loader::windows_file_name(loader::windows_parent(dir));
    up = loader::windows_parent(up);
    headers.push_back(loader::windows_join(up, fmt::format("include\\{}\\cudnn_version.h", sub)));
  }
  headers.push_back(loader::windows_join(up, "include\\cudnn_version.h"));
  headers.push_back(loader::windows_join(up, "include\\cudnn.h"));
  std::string failure;
  for (const std::string& h : headers) {
    auto text = read_windows_file(root, h, k_max_cudnn_header);
    if (!text) {
      if (text.error().code != ErrorCode::not_found && failure.empty()) {
        failure = " (" + text.error().message + ")";
      }
      continue;
    }
    if (auto v = formats::parse_cudnn_header(*text); v && v->major() == major) {
      return Fact<Version>::known(*v, "file:" + h);
    }
  }
  return Fact<Version>::unknown(
      fmt::format("no readable cudnn_version.h for cuDNN {} beside {}{}", major, dir, failure));
}

// The pip wheel that put the folder there (site-packages\nvidia\cudnn\bin).
Fact<std::string> cudnn_package(const Facts& facts, const std::string& dir) {
  const std::string key = loader::windows_path_key(dir);
  for (const PythonEnv& env : facts.python_envs) {
    if (!env.site_packages
        || key
               != loader::windows_path_key(
                   loader::windows_join(*env.site_packages, "nvidia\\cudnn\\bin"))) {
      continue;
    }
    for (const PythonPackage& p : env.packages) {
      if (p.name.starts_with("nvidia-cudnn")) {
        return Fact<std::string>::known(fmt::format("pip {} {}", p.name, p.version),
                                        "record:" + p.source);
      }
    }
  }
  return Fact<std::string>::unknown("no package record is known for this folder");
}

void read_cudnn_dir(const platform::SysRoot& root,
                    const std::string& dir,
                    const std::vector<std::string>& via,
                    Facts& facts) {
  auto entries = list_windows_dir(root, dir);
  if (!entries) {
    if (entries.error().code != ErrorCode::not_found) {
      facts.unreadable.push_back(UnreadablePath{dir,
                                                "cuDNN libraries",
                                                std::string(to_string(entries.error().code)),
                                                entries.error().message});
    }
    return;
  }
  std::map<unsigned, CudnnInstall> by_major;
  for (const platform::DirEntry& e : *entries) {
    const auto major = cudnn_dll_major(e.name);
    if (!major || e.kind == platform::FileKind::directory) {
      continue;
    }
    CudnnInstall& inst = by_major[*major];
    auto info = read_windows_binary(root, loader::windows_join(dir, e.name));
    if (!info) {
      continue;
    }
    CudnnLibrary lib;
    lib.name = e.name;
    lib.member = util::to_lower(e.name);
    lib.major = *major;
    lib.real_path = info->path;
    lib.size = info->size;
    const std::string text =
        info->file_version.empty() ? info->product_version : info->file_version;
    if (auto v = version_resource_number(text); v && v->major() == *major) {
      lib.version = Fact<Version>::known(*v, fmt::format("pe:{} FileVersion", info->path));
    } else {
      lib.version = Fact<Version>::unknown(
          text.empty()
              ? fmt::format("{} has no version resource", info->path)
              : fmt::format(
                  "{}'s FileVersion \"{}\" is not a cuDNN {} version", info->path, text, *major));
    }
    inst.libraries.push_back(std::move(lib));
    add_windows_binary(facts, std::move(*info));
  }
  for (auto& [major, inst] : by_major) {
    if (inst.libraries.empty()) {
      continue;
    }
    inst.dir = dir;
    inst.major = major;
    inst.found_via = via;
    inst.header_version = cudnn_header_version(root, dir, major);
    inst.package = cudnn_package(facts, dir);
    const std::string dispatcher = fmt::format("cudnn64_{}.dll", major);
    const auto main = std::find_if(inst.libraries.begin(),
                                   inst.libraries.end(),
                                   [&](const CudnnLibrary& l) { return l.member == dispatcher; });
    if (inst.header_version) {
      inst.version = inst.header_version;
    } else if (main != inst.libraries.end() && main->version) {
      inst.version = main->version;
    } else {
      inst.version = Fact<Version>::unknown(fmt::format(
          "neither cudnn_version.h nor {}'s version resource tells the version", dispatcher));
    }
    std::sort(inst.libraries.begin(),
              inst.libraries.end(),
              [](const CudnnLibrary& a, const CudnnLibrary& b) { return a.member < b.member; });
    add_windows_probe(root, facts, loader::windows_join(dir, "zlibwapi.dll"));
    facts.cudnn.push_back(std::move(inst));
  }
}

} // namespace

void collect_windows_cudnn(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  // Folders in first-seen order, each with every way it was reached.
  std::vector<std::pair<std::string, std::vector<std::string>>> dirs;
  for (const CudnnDirCandidate& c : cudnn_dir_candidates(root, facts)) {
    const std::string dir = loader::normalize_windows_path(c.dir);
    if (dir.empty()) {
      continue;
    }
    const std::string key = loader::windows_path_key(dir);
    auto it = std::find_if(dirs.begin(), dirs.end(), [&](const auto& d) {
      return loader::windows_path_key(d.first) == key;
    });
    if (it == dirs.end()) {
      dirs.push_back({dir, {c.via}});
    } else if (std::find(it->second.begin(), it->second.end(), c.via) == it->second.end()) {
      it->second.push_back(c.via);
    }
  }
  for (auto& [dir, via] : dirs) {
    std::sort(via.begin(), via.end());
    read_cudnn_dir(root, dir, via, facts);
  }
  add_windows_probe(root, facts, windows_system_root(root) + "\\System32\\zlibwapi.dll");
  std::sort(
      facts.cudnn.begin(), facts.cudnn.end(), [](const CudnnInstall& a, const CudnnInstall& b) {
        return std::tie(a.dir, a.major) < std::tie(b.dir, b.major);
      });
}

} // namespace doctor::collect
