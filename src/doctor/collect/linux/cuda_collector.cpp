// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/read_failure.hpp>
#include <doctor/collect/read_limits.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

struct ToolkitCandidate {
  std::string path;
  std::string via;
};

void add_toolkit_candidate(std::vector<ToolkitCandidate>& out,
                           std::string_view path,
                           std::string via) {
  out.push_back(ToolkitCandidate{util::normalize_path(path), std::move(via)});
}

// Every place a toolkit is commonly put or pointed at, in the order a user would think of them.
std::vector<ToolkitCandidate> candidates(const platform::SysRoot& root, const Facts& facts) {
  std::vector<ToolkitCandidate> out;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"}) {
    if (auto v = root.env().get(var); v && !v->empty()) {
      add_toolkit_candidate(out, *v, fmt::format("env:{}", var));
    }
  }
  for (const std::string& dir : root.env().list("PATH")) {
    if (dir.front() == '/' && root.is_file(util::join_path(dir, "nvcc"))) {
      add_toolkit_candidate(out, util::parent_path(dir), "PATH:nvcc");
    }
  }
  for (const char* base : {"/usr/local", "/opt"}) {
    auto entries = root.list_dir(base);
    if (!entries) {
      continue;
    }
    for (const platform::DirEntry& e : *entries) {
      if (e.name == "cuda" || e.name.starts_with("cuda-")) {
        add_toolkit_candidate(
            out, util::join_path(base, e.name), fmt::format("dir:{}/cuda*", base));
      }
    }
  }
  for (const PythonEnv& env : facts.python_envs) {
    if (env.kind == "conda") {
      add_toolkit_candidate(out, env.prefix, fmt::format("conda:{}", env.prefix));
    }
  }
  // Debian's nvidia-cuda-toolkit package installs into /usr with nvcc in /usr/bin.
  if (root.is_file("/usr/lib/nvidia-cuda-toolkit/bin/nvcc")) {
    add_toolkit_candidate(out, "/usr/lib/nvidia-cuda-toolkit", "dir:/usr/lib/nvidia-cuda-toolkit");
  }
  return out;
}

// The runtime's version from the versioned libcudart file name (runfile and package installs name
// the real file libcudart.so.12.4.127) or from a pip dist-info of nvidia-cuda-runtime.
Fact<Version> runtime_version(const platform::SysRoot& root,
                              const std::string& tk,
                              const std::vector<std::string>& lib_dirs) {
  for (const std::string& dir : lib_dirs) {
    auto entries = root.list_dir(dir);
    if (!entries) {
      continue;
    }
    for (const platform::DirEntry& e : *entries) {
      const auto v = formats::version_after_stem(e.name, "libcudart.so");
      if (v && std::count(v->begin(), v->end(), '.') >= 2) {
        if (auto parsed = Version::parse(*v)) {
          return Fact<Version>::known(*parsed,
                                      fmt::format("name:{}", util::join_path(dir, e.name)));
        }
      }
    }
  }
  const std::string dist = util::join_path(tk, "dist-info");
  if (auto entries = root.list_dir(dist)) {
    for (const platform::DirEntry& e : *entries) {
      const auto name = formats::parse_dist_info_dir(e.name);
      if (name && name->name.starts_with("nvidia-cuda-runtime")) {
        if (auto parsed = Version::parse(name->version)) {
          return Fact<Version>::known(*parsed,
                                      fmt::format("dist-info:{}", util::join_path(dist, e.name)));
        }
      }
    }
  }
  return Fact<Version>::unknown("no versioned libcudart file name and no runtime package record");
}

Fact<Version> toolkit_version(const platform::SysRoot& root, const std::string& tk) {
  ReadFailure failure;
  const std::string json = util::join_path(tk, "version.json");
  if (auto text = root.read_file(json, k_max_text_file)) {
    if (auto v = formats::parse_cuda_version_json(*text)) {
      return Fact<Version>::known(*v, fmt::format("file:{}", json));
    }
  } else {
    failure.note(text.error());
  }
  const std::string txt = util::join_path(tk, "version.txt");
  if (auto text = root.read_file(txt, k_max_text_file)) {
    if (auto v = formats::parse_cuda_version_txt(*text)) {
      return Fact<Version>::known(*v, fmt::format("file:{}", txt));
    }
  } else {
    failure.note(text.error());
  }
  // Mapped, not read: cuda.h is over a megabyte and its CUDA_VERSION sits in the first 16 KB,
  // so only the pages the search passes are touched (reading it whole cost check 6 MB of peak
  // memory with two toolkits).
  for (const char* header : {"include/cuda.h", "include/cuda_runtime_api.h"}) {
    const std::string path = util::join_path(tk, header);
    if (auto mapped = root.map_file(path)) {
      if (mapped->data().size() > k_max_text_file) {
        continue;
      }
      if (auto v = formats::parse_cuda_header(mapped->data())) {
        return Fact<Version>::known(*v, fmt::format("file:{}", path));
      }
    } else {
      failure.note(mapped.error());
    }
  }
  return Fact<Version>::unknown(
      fmt::format("{} has no readable version.json, version.txt, cuda.h or cuda_runtime_api.h{}",
                  tk,
                  failure.suffix()));
}

// A runtime-only install says its release only through libcudart's name: 12.2.140 -> 12.2.
Fact<Version> version_from_runtime(const Fact<Version>& runtime, const Fact<Version>& fallback) {
  if (!fallback && runtime && runtime->size() >= 2) {
    return Fact<Version>::known(Version::from_parts({runtime->major(), runtime->minor()}),
                                runtime.source());
  }
  return fallback;
}

// A small "#!" script that execs another nvcc (/usr/local/bin/nvcc on this project's machines,
// /usr/bin/nvcc of Debian's nvidia-cuda-toolkit): returns the absolute nvcc path it runs. The
// script is read, never run.
std::optional<std::string> wrapper_target(const platform::SysRoot& root, const std::string& path) {
  constexpr std::size_t k_max_wrapper = 4096;
  auto text = root.read_file(path, k_max_wrapper);
  if (!text || !text->starts_with("#!")) {
    return std::nullopt;
  }
  for (std::string_view line : util::split_lines(*text)) {
    for (std::string_view word : util::split(line, ' ')) {
      word = util::unquote(util::trim(word));
      if (word.starts_with("/") && word.ends_with("/bin/nvcc") && word != path) {
        return std::string(word);
      }
    }
  }
  return std::nullopt;
}

// The directory that really holds a toolkit reached through `dir`. A directory whose markers
// are links or wrapper scripts into another toolkit (/usr/local with bin/nvcc and include/cuda.h
// pointing into /usr/local/cuda-13.0) is that other toolkit, not a second one. nullopt if `dir`
// has no toolkit marker at all.
std::optional<std::string> toolkit_root(const platform::SysRoot& root, const std::string& dir) {
  constexpr const char* k_markers[] = {
      "bin/nvcc", "version.json", "version.txt", "include/cuda.h", "include/cuda_runtime_api.h"};
  for (const char* marker : k_markers) {
    auto real = root.resolve(util::join_path(dir, marker));
    if (!real || !root.is_file(*real)) {
      continue;
    }
    if (std::string_view(marker) == "bin/nvcc") {
      if (auto target = wrapper_target(root, *real)) {
        auto followed = root.resolve(*target);
        if (!followed || !root.is_file(*followed)) {
          continue; // a wrapper into nowhere is no toolkit; look at the other markers
        }
        real = followed;
      }
    }
    const std::string suffix = std::string("/") + marker;
    if (real->size() > suffix.size() && real->ends_with(suffix)) {
      return real->substr(0, real->size() - suffix.size());
    }
    return root.resolve(dir).value_or(dir);
  }
  // A runtime-only install (the nvidia/cuda *-runtime container images) has no compiler and
  // no headers, only the libraries: libcudart in lib64/ or targets/<arch>/lib/.
  for (const std::string& lib_dir : {util::join_path(dir, "lib64"),
                                     util::join_path(dir, "lib"),
                                     util::join_path(dir, "targets/x86_64-linux/lib"),
                                     util::join_path(dir, "targets/sbsa-linux/lib")}) {
    auto entries = root.list_dir(lib_dir);
    if (!entries) {
      continue;
    }
    for (const platform::DirEntry& e : *entries) {
      if (e.name.starts_with("libcudart.so.")) {
        return root.resolve(dir).value_or(dir);
      }
    }
  }
  return std::nullopt;
}

std::vector<std::string> library_dirs(const platform::SysRoot& root, const std::string& tk) {
  std::vector<std::string> out;
  auto add = [&](const std::string& dir) {
    auto real = root.resolve(dir);
    if (real && root.is_dir(*real) && std::find(out.begin(), out.end(), *real) == out.end()) {
      out.push_back(*real);
    }
  };
  add(util::join_path(tk, "lib64"));
  add(util::join_path(tk, "lib"));
  const std::string targets = util::join_path(tk, "targets");
  if (auto entries = root.list_dir(targets)) {
    for (const platform::DirEntry& e : *entries) {
      add(util::join_path(util::join_path(targets, e.name), "lib"));
    }
  }
  return out;
}

} // namespace

void collect_cuda(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  std::map<std::string, CudaToolkit> by_path;
  for (const ToolkitCandidate& c : candidates(root, facts)) {
    auto real = toolkit_root(root, c.path);
    if (!real || !root.is_dir(*real)) {
      continue;
    }
    auto [it, inserted] = by_path.try_emplace(*real);
    CudaToolkit& tk = it->second;
    if (inserted) {
      tk.path = *real;
    }
    // An alias is another name of the same directory (/usr/local/cuda), not a directory that
    // merely holds a link or wrapper into it (/usr/local with bin/nvcc).
    const auto same = root.resolve(c.path);
    if (c.path != *real && same && *same == *real
        && std::find(tk.aliases.begin(), tk.aliases.end(), c.path) == tk.aliases.end()) {
      tk.aliases.push_back(c.path);
    }
    if (std::find(tk.found_via.begin(), tk.found_via.end(), c.via) == tk.found_via.end()) {
      tk.found_via.push_back(c.via);
    }
  }
  for (auto& [path, tk] : by_path) {
    tk.version = toolkit_version(root, path);
    tk.library_dirs = library_dirs(root, path);
    tk.runtime_version = runtime_version(root, path, tk.library_dirs);
    tk.version = version_from_runtime(tk.runtime_version, tk.version);
    const std::string nvcc = util::join_path(path, "bin/nvcc");
    tk.nvcc = root.is_file(nvcc) ? Fact<std::string>::known(nvcc, fmt::format("file:{}", nvcc))
                                 : Fact<std::string>::unknown(fmt::format(
                                     "{} has no bin/nvcc (a runtime-only install)", path));
    std::sort(tk.aliases.begin(), tk.aliases.end());
    std::sort(tk.found_via.begin(), tk.found_via.end());
    facts.cuda_toolkits.push_back(std::move(tk));
  }
}

} // namespace doctor::collect
