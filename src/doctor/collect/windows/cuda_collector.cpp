// SPDX-License-Identifier: MIT
// The CUDA toolkits of a Windows machine: CUDA_PATH and every CUDA_PATH_V<major>_<minor> the
// installer sets, the installer's folders under Program Files\NVIDIA GPU Computing Toolkit\CUDA,
// and nvcc.exe on PATH; each with its release from version.json or version.txt and its runtime
// from cudart64_*.dll's version resource.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr std::size_t k_max_toolkit_version_file = std::size_t{1024} * 1024;

struct ToolkitCandidate {
  std::string dir;
  std::string via;
};

std::vector<ToolkitCandidate> toolkit_candidates(const platform::SysRoot& root) {
  std::vector<ToolkitCandidate> out;
  if (auto path = windows_env(root, "CUDA_PATH"); path && !path->empty()) {
    out.push_back({*path, "env:CUDA_PATH"});
  }
  for (const auto& [name, value] : root.env().all()) {
    const std::string lower = util::to_lower(name);
    if (lower.starts_with("cuda_path_v") && !value.empty()) {
      out.push_back({value, "env:" + name});
    }
  }
  const std::string program_files = windows_env(root, "ProgramFiles").value_or("C:\\Program Files");
  const std::string base = program_files + "\\NVIDIA GPU Computing Toolkit\\CUDA";
  if (auto entries = list_windows_dir(root, base)) {
    for (const platform::DirEntry& e : *entries) {
      if (e.kind == platform::FileKind::directory && util::to_lower(e.name).starts_with("v")) {
        out.push_back({base + "\\" + e.name, "dir:" + base + "\\v*"});
      }
    }
  }
  for (const std::string& dir :
       loader::split_windows_path_list(windows_env(root, "PATH").value_or(""))) {
    const std::string nvcc = loader::windows_join(dir, "nvcc.exe");
    if (util::to_lower(loader::windows_file_name(dir)) == "bin" && windows_is_file(root, nvcc)) {
      out.push_back({loader::windows_parent(dir), "PATH:nvcc.exe"});
    }
  }
  return out;
}

Fact<Version> toolkit_version(const platform::SysRoot& root, const std::string& dir) {
  std::string failures;
  for (const char* name : {"version.json", "version.txt"}) {
    const std::string file = loader::windows_join(dir, name);
    auto text = read_windows_file(root, file, k_max_toolkit_version_file);
    if (!text) {
      if (text.error().code != ErrorCode::not_found && failures.empty()) {
        failures = " (" + text.error().message + ")";
      }
      continue;
    }
    const auto v = std::string_view(name) == "version.json"
                       ? formats::parse_cuda_version_json(*text)
                       : formats::parse_cuda_version_txt(*text);
    if (v) {
      return Fact<Version>::known(*v, "file:" + file);
    }
  }
  return Fact<Version>::unknown(
      fmt::format("{} has no readable version.json or version.txt{}", dir, failures));
}

// cudart64_<major><minor>.dll (CUDA 11: cudart64_110.dll; 12: cudart64_12.dll) in bin.
Fact<Version> runtime_version(const platform::SysRoot& root, const std::string& bin, Facts& facts) {
  auto entries = list_windows_dir(root, bin);
  if (!entries) {
    return Fact<Version>::unknown(entries.error().message);
  }
  for (const platform::DirEntry& e : *entries) {
    const std::string lower = util::to_lower(e.name);
    if (!lower.starts_with("cudart64_") || !lower.ends_with(".dll")) {
      continue;
    }
    auto info = read_windows_binary(root, loader::windows_join(bin, e.name));
    if (!info) {
      continue;
    }
    const std::string text =
        info->product_version.empty() ? info->file_version : info->product_version;
    const auto v = cudart_version_from_resource(text);
    const std::string path = info->path;
    add_windows_binary(facts, std::move(*info));
    if (v) {
      return Fact<Version>::known(*v, fmt::format("pe:{} version {}", path, text));
    }
    return Fact<Version>::unknown(
        fmt::format("{}'s version resource (\"{}\") names no CUDA release", path, text));
  }
  return Fact<Version>::unknown(fmt::format("{} has no cudart64_*.dll", bin));
}

} // namespace

void collect_windows_cuda(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  for (const ToolkitCandidate& c : toolkit_candidates(root)) {
    const std::string dir = loader::normalize_windows_path(c.dir);
    if (!windows_is_dir(root, dir)) {
      continue;
    }
    const std::string key = loader::windows_path_key(dir);
    auto it = std::find_if(
        facts.cuda_toolkits.begin(), facts.cuda_toolkits.end(), [&](const CudaToolkit& tk) {
          return loader::windows_path_key(tk.path) == key;
        });
    if (it != facts.cuda_toolkits.end()) {
      if (std::find(it->found_via.begin(), it->found_via.end(), c.via) == it->found_via.end()) {
        it->found_via.push_back(c.via);
      }
      continue;
    }
    CudaToolkit tk;
    tk.path = dir;
    tk.found_via.push_back(c.via);
    tk.version = toolkit_version(root, dir);
    const std::string bin = loader::windows_join(dir, "bin");
    const std::string nvcc = loader::windows_join(bin, "nvcc.exe");
    tk.nvcc = windows_is_file(root, nvcc)
                  ? Fact<std::string>::known(nvcc, "file:" + nvcc)
                  : Fact<std::string>::unknown(fmt::format("{} does not exist", nvcc));
    if (windows_is_dir(root, bin)) {
      tk.library_dirs.push_back(bin);
      tk.runtime_version = runtime_version(root, bin, facts);
    } else {
      tk.runtime_version = Fact<Version>::unknown(fmt::format("{} does not exist", bin));
    }
    facts.cuda_toolkits.push_back(std::move(tk));
  }
  for (CudaToolkit& tk : facts.cuda_toolkits) {
    std::sort(tk.found_via.begin(), tk.found_via.end());
  }
  std::sort(facts.cuda_toolkits.begin(),
            facts.cuda_toolkits.end(),
            [](const CudaToolkit& a, const CudaToolkit& b) { return a.path < b.path; });
}

} // namespace doctor::collect
