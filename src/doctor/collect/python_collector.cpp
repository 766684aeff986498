// SPDX-License-Identifier: MIT
#include <doctor/collect/binary_reader.hpp>
#include <doctor/collect/collect.hpp>
#include <doctor/collect/python_envs.hpp>
#include <doctor/formats/python_files.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <tuple>

// Reads, from files only, which GPU frameworks each Python environment (python_envs.hpp) holds
// and how they were built. Nothing found is run or imported, and only site-packages directories
// are listed: no METADATA is read and no tree is walked, so an environment costs a handful of
// directory listings and a few small reads.
namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

// Completes "unknown, because …" for a file that could not be read.
std::string read_failure(std::string_view path, const Error& error) {
  switch (error.code) {
  case ErrorCode::not_found:
    return fmt::format("{} does not exist", path);
  case ErrorCode::symlink_loop:
    return fmt::format("{} is a symbolic link loop", path);
  case ErrorCode::too_large:
    return fmt::format(
        "{} is larger than {} bytes, not a version file", path, k_max_python_small_file);
  case ErrorCode::permission_denied:
    return fmt::format("{} cannot be read (permission denied)", path);
  case ErrorCode::not_regular: // "<path>: is a FIFO, not a regular file"
  case ErrorCode::resource:
    return error.message;
  default:
    return fmt::format("{} cannot be read ({})", path, to_string(error.code));
  }
}

struct LibDir {
  std::string name;    // "python3.11"
  std::string version; // "3.11"
};

bool older(const LibDir& a, const LibDir& b) {
  auto va = Version::parse(a.version);
  auto vb = Version::parse(b.version);
  if (va && vb && *va != *vb) {
    return *va < *vb;
  }
  return a.name < b.name;
}

// The python3.X directories under `lib`, oldest first.
std::vector<LibDir> lib_dirs(const platform::SysRoot& root, const std::string& lib) {
  std::vector<LibDir> out;
  if (auto entries = root.list_dir(lib)) {
    for (const platform::DirEntry& e : *entries) {
      if (auto v = formats::python_version_from_name(e.name)) {
        out.push_back(LibDir{e.name, *v});
      }
    }
  }
  std::sort(out.begin(), out.end(), older);
  return out;
}

// Picks the lib/python3.X directory of the environment's Python when its version is known, else
// the newest; `note` says when the choice was not obvious.
std::optional<LibDir>
pick_lib_dir(const std::vector<LibDir>& dirs, const Fact<std::string>& version, std::string& note) {
  if (dirs.empty()) {
    return std::nullopt;
  }
  if (version) {
    auto v = Version::parse(*version);
    for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
      if (v && Version::parse(it->version) && v->prefix(2) == it->version) {
        return *it;
      }
    }
  }
  if (dirs.size() > 1) {
    std::vector<std::string> names;
    names.reserve(dirs.size());
    for (const LibDir& d : dirs) {
      names.push_back(d.name);
    }
    note = fmt::format(" (several: {}; the newest taken)", util::join(names, ", "));
  }
  return dirs.back();
}

// The user's site-packages (PEP 370) that site.py puts on sys.path before the environment's own:
// $PYTHONUSERBASE or ~/.local, then lib/python3.X/site-packages. None with PYTHONNOUSERSITE, or in
// a venv that leaves the system's packages out (include-system-site-packages = false).
std::optional<std::string>
user_site_dir(const platform::SysRoot& root, const PythonEnv& env, const std::string& lib_name) {
  if (auto off = root.env().get("PYTHONNOUSERSITE"); off && !off->empty()) {
    return std::nullopt;
  }
  if (env.kind == "venv") {
    auto cfg = root.read_file(util::join_path(env.prefix, "pyvenv.cfg"), k_max_python_small_file);
    if (!cfg || !formats::pyvenv_cfg_includes_system_site(*cfg)) {
      return std::nullopt;
    }
  }
  std::string base;
  if (auto v = root.env().get("PYTHONUSERBASE"); v && !v->empty() && v->front() == '/') {
    base = *v;
  } else if (auto home = root.env().get("HOME"); home && !home->empty() && home->front() == '/') {
    base = util::join_path(*home, ".local");
  } else {
    return std::nullopt;
  }
  return util::join_path(util::join_path(util::join_path(base, "lib"), lib_name), "site-packages");
}

// The directories whose packages the environment's Python imports, in its search order (the
// user's site-packages first); `site_packages` reports the first of the environment's own, or the
// user's when the environment has none.
std::vector<std::string> site_dirs(const platform::SysRoot& root, PythonEnv& env) {
  std::vector<std::string> out;
  std::string note;
  auto add = [&](const std::string& dir) {
    if (std::find(out.begin(), out.end(), dir) == out.end() && root.is_dir(dir)) {
      out.push_back(dir);
    }
  };
  const std::string lib = util::join_path(env.prefix, "lib");
  const std::vector<LibDir> dirs = lib_dirs(root, lib);
  const std::optional<LibDir> chosen = pick_lib_dir(dirs, env.python_version, note);
  if (!env.python_version && chosen) {
    env.python_version = Fact<std::string>::known(
        chosen->version, fmt::format("name:{}{}", util::join_path(lib, chosen->name), note));
  }
  if (env.kind == "system" && env.prefix == "/usr") {
    // Debian: pip's packages in /usr/local/lib/python3.X/dist-packages come before apt's.
    if (chosen) {
      add(fmt::format("/usr/local/lib/{}/dist-packages", chosen->name));
    }
    add("/usr/lib/python3/dist-packages");
    if (chosen) {
      add(fmt::format("/usr/local/lib/{}/site-packages", chosen->name));
    }
  }
  if (chosen) {
    add(util::join_path(util::join_path(lib, chosen->name), "site-packages"));
    if (env.prefix == "/usr") {
      add(fmt::format("/usr/lib64/{}/site-packages", chosen->name));
    }
  }
  add(util::join_path(env.prefix, "Lib/site-packages"));
  const auto user = chosen ? user_site_dir(root, env, chosen->name) : std::nullopt;
  const bool user_first =
      user && std::find(out.begin(), out.end(), *user) == out.end() && root.is_dir(*user);
  if (!out.empty()) {
    env.site_packages =
        Fact<std::string>::known(out.front(), fmt::format("dir:{}{}", out.front(), note));
  } else if (user_first) {
    env.site_packages = Fact<std::string>::known(*user, fmt::format("dir:{}{}", *user, note));
  } else if (auto listing = root.list_dir(lib);
             !listing && listing.error().code != ErrorCode::not_found) {
    env.site_packages = Fact<std::string>::unknown(read_failure(lib, listing.error()));
  } else {
    env.site_packages = Fact<std::string>::unknown(fmt::format(
        "{} has no lib/python3.*/site-packages or Lib/site-packages directory", env.prefix));
  }
  if (user_first) {
    out.insert(out.begin(), *user);
  }
  return out;
}

// One listed site-packages directory.
struct SiteDir {
  std::string path;
  std::set<std::string> entries;         // every name in it
  std::vector<PythonPackage> dist_infos; // every *.dist-info / *.egg-info, parsed
  std::optional<Error> error;            // why it could not be listed
};

// The packages a GPU stack is made of: frameworks, their CUDA plugins and NVIDIA's wheels.
bool relevant_package(std::string_view name) {
  // The DirectML builds run on the GPU Windows assigns the program (check
  // windows_hybrid_graphics).
  constexpr std::array<std::string_view, 18> k_names = {"jax",
                                                        "jaxlib",
                                                        "keras",
                                                        "onnxruntime",
                                                        "onnxruntime-directml",
                                                        "onnxruntime-gpu",
                                                        "paddlepaddle",
                                                        "paddlepaddle-gpu",
                                                        "tensorflow",
                                                        "tensorflow-cpu",
                                                        "tensorflow-directml",
                                                        "tensorflow-directml-plugin",
                                                        "tensorflow-gpu",
                                                        "tensorflow-intel",
                                                        "tf-nightly",
                                                        "torch",
                                                        "torch-directml",
                                                        "triton"};
  return std::find(k_names.begin(), k_names.end(), name) != k_names.end()
         || name.starts_with("nvidia-") || name.starts_with("cupy") || name.starts_with("tensorrt")
         || formats::jax_plugin_cuda_major(name).has_value();
}

SiteDir list_site_dir(const platform::SysRoot& root, const std::string& dir) {
  SiteDir out{dir, {}, {}, std::nullopt};
  auto entries = root.list_dir(dir);
  if (!entries) {
    out.error = entries.error();
    return out;
  }
  for (const platform::DirEntry& e : *entries) {
    out.entries.insert(e.name);
    if (auto parsed = formats::parse_dist_info_dir(e.name)) {
      out.dist_infos.push_back(PythonPackage{
          parsed->name, util::sanitize(parsed->version, 80), util::join_path(dir, e.name)});
    }
  }
  return out;
}

// The site directory holding package directory `package`, first in search order, or nullptr.
const SiteDir* find_package(const std::vector<SiteDir>& sites, const std::string& package) {
  for (const SiteDir& site : sites) {
    if (site.entries.contains(package)) {
      return &site;
    }
  }
  return nullptr;
}

// The version of the distributions named `names` recorded in `site`; unknown when there is no
// record or several disagree (a half-finished upgrade), in which case the caller may fall back
// on the package's own version file.
Fact<std::string> dist_version(const SiteDir& site, const std::vector<std::string>& names) {
  std::vector<const PythonPackage*> found;
  for (const PythonPackage& p : site.dist_infos) {
    if (std::find(names.begin(), names.end(), p.name) != names.end()) {
      found.push_back(&p);
    }
  }
  if (found.empty()) {
    return Fact<std::string>::unknown(
        fmt::format("{} has no {} dist-info or egg-info", site.path, util::join(names, "/")));
  }
  std::set<std::string> versions;
  for (const PythonPackage* p : found) {
    versions.insert(p->version);
  }
  if (versions.size() > 1) {
    return Fact<std::string>::unknown(
        fmt::format("{} has records of several versions ({})",
                    site.path,
                    util::join(std::vector<std::string>(versions.begin(), versions.end()), ", ")));
  }
  return Fact<std::string>::known(found.front()->version,
                                  fmt::format("dist-info:{}", found.front()->source));
}

const PythonPackage* find_dist(const SiteDir& site, std::string_view name) {
  for (const PythonPackage& p : site.dist_infos) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

std::string major_of(std::string_view version) {
  return std::string(version.substr(0, version.find('.')));
}

// Frameworks that load cuDNN from the nvidia-cudnn-cuNN wheel (torch, the JAX CUDA plugins)
// record no cuDNN version themselves: the wheel beside them tells which cuDNN they get.
Fact<std::string> cudnn_from_wheel(const std::vector<PythonPackage>& packages,
                                   const Fact<std::string>& cuda,
                                   std::string_view framework,
                                   std::string no_wheel_reason) {
  if (!cuda) {
    return Fact<std::string>::unknown(
        fmt::format("the CUDA version {} was built with is unknown", framework));
  }
  const std::string wanted = "nvidia-cudnn-cu" + major_of(*cuda);
  std::vector<std::string> others;
  for (const PythonPackage& p : packages) {
    if (p.name == wanted) {
      return Fact<std::string>::known(
          p.version,
          fmt::format("dist-info:{} (the {} wheel beside {}; {} itself records no "
                      "cuDNN version)",
                      p.source,
                      wanted,
                      framework,
                      framework));
    }
    if (p.name.starts_with("nvidia-cudnn-cu")) {
      others.push_back(p.name);
    }
  }
  if (!others.empty()) {
    return Fact<std::string>::unknown(
        fmt::format("the environment has {} but no {} for the CUDA {} "
                    "{} was built with",
                    util::join(others, ", "),
                    wanted,
                    *cuda,
                    framework));
  }
  return Fact<std::string>::unknown(std::move(no_wheel_reason));
}

// Reads a small text file, or says why it could not be.
struct FileText {
  std::string path;
  std::optional<std::string> text;
  std::string failure;
};

FileText read_small(const platform::SysRoot& root, std::string path) {
  FileText out{std::move(path), std::nullopt, {}};
  auto text = root.read_file(out.path, k_max_python_small_file);
  if (text) {
    out.text = std::move(*text);
  } else {
    out.failure = read_failure(out.path, text.error());
  }
  return out;
}

Framework make_framework(std::string name, const SiteDir& site, const std::string& dir) {
  Framework fw;
  fw.name = std::move(name);
  fw.location = util::join_path(site.path, dir);
  return fw;
}

void set_all_build_facts_unknown(Framework& fw, const std::string& reason) {
  fw.cuda_build = Fact<bool>::unknown(reason);
  fw.cuda_version = Fact<std::string>::unknown(reason);
  fw.cudnn_version = Fact<std::string>::unknown(reason);
  fw.cuda_archs = Fact<std::vector<std::string>>::unknown(reason);
}

// The GPU architectures torch was compiled for: version.py does not record them, so they come from
// the CUDA device code of its CUDA library (binfmt/fatbin.hpp), as the architectures every
// container there has code for (torch declares the same list; a few kernels add sm_90a and the
// like). Reads only the fatbin headers, a few milliseconds for torch's 500 MB library.
Fact<std::vector<std::string>> torch_cuda_archs(const platform::SysRoot& root,
                                                const std::string& location) {
  std::vector<std::string> tried;
  for (const char* name : {"lib/libtorch_cuda.so", "lib/torch_cuda.dll"}) {
    const std::string path = util::join_path(location, name);
    auto real = root.resolve(path);
    if (!real) {
      tried.push_back(path);
      continue;
    }
    auto file = collect::read_fatbin_file(root.host_path(*real));
    if (!file) {
      return Fact<std::vector<std::string>>::unknown(
          fmt::format("the CUDA device code of {} cannot be read: {}", path, file.error().message));
    }
    auto archs = formats::fatbin_common_archs(file->fatbin);
    if (archs.empty()) {
      return Fact<std::vector<std::string>>::unknown(fmt::format(
          "the {} section of {} holds no SASS or PTX{}",
          file->section_name,
          path,
          file->fatbin.problems.empty() ? "" : fmt::format(" ({})", file->fatbin.problems[0])));
    }
    return Fact<std::vector<std::string>>::known(std::move(archs), fmt::format("fatbin:{}", path));
  }
  return Fact<std::vector<std::string>>::unknown(
      fmt::format("{} do not exist (torch/version.py records no compute capabilities; a CPU-only "
                  "build has no CUDA library)",
                  util::join(tried, " and ")));
}

Framework read_torch(const platform::SysRoot& root, const SiteDir& site, const PythonEnv& env) {
  Framework fw = make_framework("torch", site, "torch");
  const FileText file = read_small(root, util::join_path(fw.location, "version.py"));
  const std::string source = fmt::format("file:{}", file.path);
  const auto parsed = file.text ? formats::parse_torch_version_py(*file.text) : std::nullopt;
  // torch.__version__ (version.py) carries the build's local label ("2.0.1+cu117") that users see
  // and quote; the dist-info directory of a PyPI wheel drops it. Prefer the file.
  if (parsed && parsed->version) {
    fw.version = Fact<std::string>::known(util::sanitize(*parsed->version, 80), source);
  } else {
    fw.version = dist_version(site, {"torch"});
  }
  fw.cuda_archs = torch_cuda_archs(root, fw.location);
  // A `cuda` bound in a form that is not evaluated (`cuda += x`, `cuda = detect()`) is unknown,
  // never the value of an earlier assignment.
  const std::string* cuda_unknown = nullptr;
  if (parsed) {
    if (const auto it = parsed->unknown.find("cuda"); it != parsed->unknown.end()) {
      cuda_unknown = &it->second;
    }
  }
  if (cuda_unknown != nullptr) {
    const std::string reason =
        fmt::format("{}: cuda is {}", file.path, util::sanitize(*cuda_unknown, 200));
    fw.cuda_build = Fact<bool>::unknown(reason);
    fw.cuda_version = Fact<std::string>::unknown(reason);
    fw.cudnn_version = Fact<std::string>::unknown(reason);
    return fw;
  }
  if (!parsed || !parsed->cuda_recorded) {
    const std::string reason =
        !file.text
            ? file.failure
            : fmt::format("{} assigns no `cuda` (damaged, or not a torch version.py)", file.path);
    fw.cuda_build = Fact<bool>::unknown(reason);
    fw.cuda_version = Fact<std::string>::unknown(reason);
    fw.cudnn_version = Fact<std::string>::unknown(reason);
    return fw;
  }
  fw.cuda_build = Fact<bool>::known(parsed->cuda.has_value(), source);
  if (parsed->cuda) {
    fw.cuda_version = Fact<std::string>::known(util::sanitize(*parsed->cuda, 40), source);
  } else {
    const std::string reason =
        parsed->hip ? fmt::format("{} says cuda = None: a ROCm build (hip {})",
                                  file.path,
                                  util::sanitize(*parsed->hip, 40))
                    : fmt::format("{} says cuda = None: a CPU-only build", file.path);
    fw.cuda_version = Fact<std::string>::unknown(reason);
    fw.cudnn_version = Fact<std::string>::unknown(reason);
    return fw;
  }
  fw.cudnn_version = cudnn_from_wheel(
      env.packages,
      fw.cuda_version,
      "torch",
      "torch records only the CUDA it was built with; the cuDNN comes from the nvidia-cudnn-* "
      "wheel or torch/lib");
  return fw;
}

Framework read_tensorflow(const platform::SysRoot& root, const SiteDir& site) {
  Framework fw = make_framework("tensorflow", site, "tensorflow");
  fw.version = dist_version(
      site, {"tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel", "tf-nightly"});
  const FileText file =
      read_small(root, util::join_path(fw.location, "python/platform/build_info.py"));
  const auto info = file.text ? formats::parse_tensorflow_build_info(*file.text) : std::nullopt;
  if (!info) {
    set_all_build_facts_unknown(
        fw,
        !file.text ? file.failure
                   : fmt::format("{} has none of the build_info keys (is_cuda_build, "
                                 "cuda_version, …)",
                                 file.path));
    return fw;
  }
  const std::string source = fmt::format("file:{}", file.path);
  const bool cuda_build = info->is_cuda_build.value_or(false);
  fw.cuda_build = info->is_cuda_build
                      ? Fact<bool>::known(*info->is_cuda_build, source)
                      : Fact<bool>::unknown(fmt::format("{} has no is_cuda_build", file.path));
  auto version_fact = [&](const std::optional<std::string>& value,
                          const std::optional<std::string>& raw,
                          std::string_view key) {
    if (info->is_cuda_build && !cuda_build) {
      return Fact<std::string>::unknown(
          fmt::format("not a CUDA build (is_cuda_build is False in {})", file.path));
    }
    if (!value) {
      return Fact<std::string>::unknown(fmt::format("{} has no {}", file.path, key));
    }
    const std::string written =
        raw && *raw != *value ? fmt::format(" (written '{}')", util::sanitize(*raw, 40)) : "";
    return Fact<std::string>::known(util::sanitize(*value, 40), source + written);
  };
  fw.cuda_version = version_fact(info->cuda_version, info->cuda_version_raw, "cuda_version");
  fw.cudnn_version = version_fact(info->cudnn_version, info->cudnn_version_raw, "cudnn_version");
  if (info->cuda_compute_capabilities) {
    std::vector<std::string> archs;
    for (const std::string& a : *info->cuda_compute_capabilities) {
      archs.push_back(util::sanitize(a, 40));
    }
    fw.cuda_archs = Fact<std::vector<std::string>>::known(std::move(archs), source);
  } else {
    fw.cuda_archs = Fact<std::vector<std::string>>::unknown(
        info->is_cuda_build && !cuda_build
            ? fmt::format("not a CUDA build (is_cuda_build is False in {})", file.path)
            : fmt::format("{} lists no cuda_compute_capabilities (TensorFlow before 2.3 does not "
                          "record them)",
                          file.path));
  }
  return fw;
}

Framework
read_jax(const platform::SysRoot& root, const std::vector<SiteDir>& sites, const PythonEnv& env) {
  const SiteDir* site = find_package(sites, "jaxlib");
  const bool has_jaxlib = site != nullptr;
  if (!has_jaxlib) {
    site = find_package(sites, "jax");
  }
  Framework fw = make_framework("jax", *site, has_jaxlib ? "jaxlib" : "jax");
  fw.cuda_archs =
      Fact<std::vector<std::string>>::unknown("JAX records no compute capabilities in its files");
  if (!has_jaxlib) {
    set_all_build_facts_unknown(fw,
                                fmt::format("jax is installed in {} without jaxlib", site->path));
    fw.version =
        Fact<std::string>::unknown("jaxlib, whose version matters for CUDA, is not installed");
    return fw;
  }
  fw.version = dist_version(*site, {"jaxlib"});
  if (!fw.version) {
    const FileText file = read_small(root, util::join_path(fw.location, "version.py"));
    if (auto v = file.text ? formats::parse_jax_version_py(*file.text) : std::nullopt) {
      fw.version =
          Fact<std::string>::known(util::sanitize(*v, 80), fmt::format("file:{}", file.path));
    }
  }
  // Since jax 0.4.2x CUDA support is a separate plugin wheel; before, jaxlib's own local version
  // label named the CUDA and cuDNN it bundled.
  std::set<std::string> majors;
  const PythonPackage* plugin = nullptr;
  for (const PythonPackage& p : env.packages) {
    if (auto major = formats::jax_plugin_cuda_major(p.name)) {
      majors.insert(*major);
      // Name the jax-cudaNN-plugin wheel rather than its jax-cudaNN-pjrt companion.
      if (plugin == nullptr
          || (p.name.ends_with("-plugin") && !plugin->name.ends_with("-plugin"))) {
        plugin = &p;
      }
    }
  }
  const PythonPackage* jaxlib = find_dist(*site, "jaxlib");
  const auto tag =
      jaxlib != nullptr ? formats::parse_jaxlib_local_version(jaxlib->version) : std::nullopt;
  if (plugin != nullptr) {
    const std::string source = fmt::format("dist-info:{}", plugin->source);
    fw.cuda_build = Fact<bool>::known(true, source);
    fw.cuda_version =
        majors.size() == 1
            ? Fact<std::string>::known(*majors.begin(), source)
            : Fact<std::string>::unknown(fmt::format(
                "JAX CUDA plugins for several CUDA versions are installed ({})",
                util::join(std::vector<std::string>(majors.begin(), majors.end()), ", ")));
    fw.cudnn_version = cudnn_from_wheel(
        env.packages,
        fw.cuda_version,
        "the JAX CUDA plugin",
        "the JAX CUDA plugin records no cuDNN version and no nvidia-cudnn wheel is installed");
  } else if (tag) {
    const std::string source = fmt::format("dist-info:{} (local version label)", jaxlib->source);
    fw.cuda_build = Fact<bool>::known(true, source);
    fw.cuda_version = Fact<std::string>::known(*tag->cuda, source);
    fw.cudnn_version = tag->cudnn ? Fact<std::string>::known(*tag->cudnn, source)
                                  : Fact<std::string>::unknown(fmt::format(
                                      "jaxlib's version {} names no cuDNN", jaxlib->version));
  } else if (jaxlib != nullptr) {
    const std::string reason = "no jax-cuda plugin is installed and jaxlib names no CUDA: CPU only";
    fw.cuda_build = Fact<bool>::known(
        false, fmt::format("dist-info:{} (and no jax-cuda*-plugin)", jaxlib->source));
    fw.cuda_version = Fact<std::string>::unknown(reason);
    fw.cudnn_version = Fact<std::string>::unknown(reason);
  } else {
    set_all_build_facts_unknown(
        fw, fmt::format("{} has no jaxlib dist-info and no jax-cuda plugin", site->path));
  }
  return fw;
}

Framework read_paddle(const platform::SysRoot& root, const SiteDir& site) {
  Framework fw = make_framework("paddle", site, "paddle");
  fw.version = dist_version(site, {"paddlepaddle", "paddlepaddle-gpu"});
  // Paddle >= 2 has a version package, Paddle 1.x a version module.
  FileText file = read_small(root, util::join_path(fw.location, "version/__init__.py"));
  if (!file.text) {
    FileText old = read_small(root, util::join_path(fw.location, "version.py"));
    old.failure = fmt::format("{}, and {}", file.failure, old.failure);
    file = std::move(old);
  }
  const auto info = file.text ? formats::parse_paddle_version_py(*file.text) : std::nullopt;
  const std::string source = fmt::format("file:{}", file.path);
  if (!fw.version && info && info->full_version) {
    fw.version = Fact<std::string>::known(util::sanitize(*info->full_version, 80), source);
  }
  const std::string failure =
      !file.text ? file.failure : fmt::format("{} is not a Paddle version file", file.path);
  const PythonPackage* gpu_dist = find_dist(site, "paddlepaddle-gpu");
  if (info && info->cuda_recorded) {
    fw.cuda_build = Fact<bool>::known(info->cuda_version.has_value(), source);
  } else if (info && info->with_gpu) {
    fw.cuda_build = Fact<bool>::known(*info->with_gpu, source);
  } else if (gpu_dist != nullptr) {
    fw.cuda_build = Fact<bool>::known(true, fmt::format("dist-info:{}", gpu_dist->source));
  } else {
    fw.cuda_build = Fact<bool>::unknown(
        info ? fmt::format("{} records no cuda_version (Paddle 1.x does not)", file.path)
             : failure);
  }
  auto version_fact = [&](const std::optional<std::string>& value, std::string_view what) {
    if (!info) {
      return Fact<std::string>::unknown(failure);
    }
    if (value) {
      return Fact<std::string>::known(util::sanitize(*value, 40), source);
    }
    if (info->cuda_recorded && !info->cuda_version) {
      return Fact<std::string>::unknown(
          fmt::format("a CPU build ({} says cuda_version = 'False')", file.path));
    }
    return Fact<std::string>::unknown(fmt::format("{} records no {}", file.path, what));
  };
  fw.cuda_version = version_fact(info ? info->cuda_version : std::nullopt, "cuda_version");
  fw.cudnn_version = version_fact(info ? info->cudnn_version : std::nullopt, "cudnn_version");
  if (info && info->cuda_archs && !info->cuda_archs->empty()) {
    std::vector<std::string> archs;
    for (const std::string& a : *info->cuda_archs) {
      archs.push_back(util::sanitize(a, 40));
    }
    fw.cuda_archs = Fact<std::vector<std::string>>::known(std::move(archs), source);
  } else {
    fw.cuda_archs = Fact<std::vector<std::string>>::unknown(
        info ? fmt::format("{} lists no compiled_cuda_archs (Paddle before 3 does not)", file.path)
             : failure);
  }
  return fw;
}

Framework read_onnxruntime(const platform::SysRoot& root, const SiteDir& site) {
  Framework fw = make_framework("onnxruntime", site, "onnxruntime");
  // Every variant installs the same onnxruntime/ package: the dist-info name tells which it is.
  const PythonPackage* dist = nullptr;
  std::vector<std::string> names;
  for (const PythonPackage& p : site.dist_infos) {
    if (p.name.starts_with("onnxruntime") || p.name.starts_with("ort-nightly")) {
      names.push_back(p.name);
      dist = dist != nullptr ? dist : &p;
    }
  }
  fw.version = names.empty() ? dist_version(site, {"onnxruntime", "onnxruntime-gpu"})
                             : dist_version(site, names);
  const FileText file =
      read_small(root, util::join_path(fw.location, "capi/build_and_package_info.py"));
  const auto info = file.text ? formats::parse_onnxruntime_build_info(*file.text) : std::nullopt;
  const std::string source = fmt::format("file:{}", file.path);
  if (!fw.version && info && info->version) {
    fw.version = Fact<std::string>::known(util::sanitize(*info->version, 80), source);
  }
  fw.cuda_archs = Fact<std::vector<std::string>>::unknown(
      "onnxruntime records no compute capabilities in its Python files");
  const std::string no_file =
      !file.text ? file.failure : fmt::format("{} has no package_name or __version__", file.path);
  if (info && info->package_name) {
    const std::string package = util::sanitize(*info->package_name, 80);
    fw.cuda_build = Fact<bool>::known(info->cuda_version.has_value(),
                                      fmt::format("{} (package_name '{}')", source, package));
  } else if (dist != nullptr) {
    fw.cuda_build =
        Fact<bool>::known(dist->name.ends_with("-gpu"),
                          fmt::format("dist-info:{} (package {})", dist->source, dist->name));
  } else {
    fw.cuda_build = Fact<bool>::unknown(no_file);
  }
  if (info && info->cuda_version) {
    fw.cuda_version = Fact<std::string>::known(util::sanitize(*info->cuda_version, 40), source);
  } else if (fw.cuda_build && !*fw.cuda_build) {
    fw.cuda_version = Fact<std::string>::unknown(fmt::format(
        "not a CUDA build (the {} package)", dist != nullptr ? dist->name : "onnxruntime"));
  } else {
    fw.cuda_version = Fact<std::string>::unknown(
        fmt::format("{}; onnxruntime records its CUDA version only there (since 1.21)", no_file));
  }
  if (info && info->cudnn_version) {
    fw.cudnn_version = Fact<std::string>::known(util::sanitize(*info->cudnn_version, 40), source);
  } else {
    fw.cudnn_version = Fact<std::string>::unknown(
        "onnxruntime records only the CUDA version it was built with, not the cuDNN");
  }
  return fw;
}

void read_packages(const platform::SysRoot& root,
                   PythonEnv& env,
                   const std::vector<std::string>& dirs) {
  std::vector<SiteDir> sites;
  sites.reserve(dirs.size());
  for (const std::string& dir : dirs) {
    sites.push_back(list_site_dir(root, dir));
  }
  if (!sites.empty() && sites.front().error) {
    // It exists but its packages cannot be known: say so rather than report an empty one.
    env.site_packages =
        Fact<std::string>::unknown(read_failure(sites.front().path, *sites.front().error));
  }
  for (const SiteDir& site : sites) {
    for (const PythonPackage& p : site.dist_infos) {
      if (relevant_package(p.name)) {
        env.packages.push_back(p);
      }
    }
  }
  std::sort(
      env.packages.begin(), env.packages.end(), [](const PythonPackage& a, const PythonPackage& b) {
        return std::tie(a.name, a.version, a.source) < std::tie(b.name, b.version, b.source);
      });
  if (const SiteDir* site = find_package(sites, "torch")) {
    env.frameworks.push_back(read_torch(root, *site, env));
  }
  if (const SiteDir* site = find_package(sites, "tensorflow")) {
    env.frameworks.push_back(read_tensorflow(root, *site));
  }
  if (find_package(sites, "jaxlib") != nullptr || find_package(sites, "jax") != nullptr) {
    env.frameworks.push_back(read_jax(root, sites, env));
  }
  if (const SiteDir* site = find_package(sites, "paddle")) {
    env.frameworks.push_back(read_paddle(root, *site));
  }
  if (const SiteDir* site = find_package(sites, "onnxruntime")) {
    env.frameworks.push_back(read_onnxruntime(root, *site));
  }
  std::sort(env.frameworks.begin(),
            env.frameworks.end(),
            [](const Framework& a, const Framework& b) { return a.name < b.name; });
}

} // namespace

void read_python_site_packages(const platform::SysRoot& root,
                               PythonEnv& env,
                               const std::vector<std::string>& site_dirs) {
  read_packages(root, env, site_dirs);
}

void collect_python(const platform::SysRoot& root, const CollectOptions& options, Facts& facts) {
  for (PythonEnv& env : discover_python_envs(root, options.python_prefixes)) {
    const std::vector<std::string> dirs = site_dirs(root, env);
    read_packages(root, env, dirs);
    facts.python_envs.push_back(std::move(env));
  }
}

} // namespace doctor::collect
