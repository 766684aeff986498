// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/read_limits.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

// Directories where distributions and NVIDIA's installers put the user-space driver, beyond the
// linker's own configuration: Debian's alternatives target, WSL's driver store mount, and the
// path NVIDIA's container images add.
constexpr const char* k_extra_driver_dirs[] = {
    "/usr/lib/x86_64-linux-gnu/nvidia/current",
    "/usr/lib/aarch64-linux-gnu/nvidia/current",
    "/usr/lib/wsl/lib",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
};

constexpr const char* k_driver_library_stems[] = {"libcuda.so", "libnvidia-ml.so"};

std::string octal_mode(std::uint32_t mode) {
  return fmt::format("{:04o}", mode & 07777U);
}

void collect_module(const platform::SysRoot& root, DriverInfo& d) {
  constexpr const char* k_proc = "/proc/driver/nvidia/version";
  if (auto text = root.read_file(k_proc, k_max_small_file)) {
    if (auto parsed = formats::parse_nvidia_proc_version(*text)) {
      const std::string source = fmt::format("file:{}", k_proc);
      d.kernel_module_version = Fact<std::string>::known(parsed->version, source);
      d.kernel_module_type = Fact<std::string>::known(parsed->type, source);
      d.kernel_module_banner = Fact<std::string>::known(parsed->banner, source);
    } else {
      const std::string why = fmt::format("{} has no NVRM version line", k_proc);
      d.kernel_module_version = Fact<std::string>::unknown(why);
      d.kernel_module_type = Fact<std::string>::unknown(why);
      d.kernel_module_banner = Fact<std::string>::unknown(why);
    }
  } else {
    // Without a populated /proc the tree is an image at rest: no kernel runs there, so whether a
    // module would be loaded is unknowable, not "not loaded".
    const auto proc = root.list_dir("/proc");
    const bool running = proc && !proc->empty();
    const std::string why =
        !running ? "the examined tree has no /proc: an image at rest has no running kernel"
        : text.error().code == ErrorCode::not_found
            ? fmt::format("{} does not exist: the NVIDIA kernel module is not loaded", k_proc)
            : fmt::format("cannot read {}: {}", k_proc, text.error().message);
    d.kernel_module_version = Fact<std::string>::unknown(why);
    d.kernel_module_type = Fact<std::string>::unknown(why);
    d.kernel_module_banner = Fact<std::string>::unknown(why);
  }

  constexpr const char* k_sys = "/sys/module/nvidia/version";
  if (auto text = root.read_file(k_sys, k_max_small_file)) {
    d.sys_module_version = Fact<std::string>::known(util::sanitize(util::trim(*text), 64),
                                                    fmt::format("file:{}", k_sys));
  } else {
    d.sys_module_version = Fact<std::string>::unknown(
        text.error().code == ErrorCode::not_found
            ? fmt::format("{} does not exist", k_sys)
            : fmt::format("cannot read {}: {}", k_sys, text.error().message));
  }

  if (auto text = root.read_file("/proc/modules", 4 * k_max_small_file)) {
    std::vector<std::string> gpu_modules;
    bool nouveau = false;
    for (std::string& m : formats::parse_proc_modules(*text)) {
      if (m == "nouveau") {
        nouveau = true;
      }
      if (m.starts_with("nvidia") || m == "nouveau" || m == "nvidiafb") {
        gpu_modules.push_back(std::move(m));
      }
    }
    std::sort(gpu_modules.begin(), gpu_modules.end());
    d.loaded_modules = Fact<std::vector<std::string>>::known(gpu_modules, "file:/proc/modules");
    d.nouveau_loaded = Fact<bool>::known(nouveau, "file:/proc/modules");
  } else {
    const std::string why = "cannot read /proc/modules (not a live system, or no module support)";
    d.loaded_modules = Fact<std::vector<std::string>>::unknown(why);
    if (root.exists("/sys/module/nouveau")) {
      d.nouveau_loaded = Fact<bool>::known(true, "file:/sys/module/nouveau");
    } else {
      d.nouveau_loaded = Fact<bool>::unknown(why);
    }
  }
}

// Finds the user-space driver libraries by their versioned file names. The soname link
// (libcuda.so.1) is followed to the real file, whose name carries the driver version.
void collect_libraries(const platform::SysRoot& root, const Facts& facts, DriverInfo& d) {
  std::vector<std::string> dirs;
  auto add = [&](const std::string& dir) {
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) {
      dirs.push_back(dir);
    }
  };
  for (const std::string& dir : root.env().list("LD_LIBRARY_PATH")) {
    add(util::normalize_path(dir));
  }
  if (facts.linker.conf_dirs) {
    for (const std::string& dir : *facts.linker.conf_dirs) {
      add(dir);
    }
  }
  if (facts.linker.cache) {
    for (const LdCacheEntry& e : *facts.linker.cache) {
      if (e.name.starts_with("libcuda.so") || e.name.starts_with("libnvidia-ml.so")) {
        add(util::parent_path(e.path));
      }
    }
  }
  for (const std::string& dir : facts.linker.default_dirs) {
    add(dir);
  }
  for (const char* dir : k_extra_driver_dirs) {
    add(dir);
  }

  std::set<std::string> seen;
  for (const std::string& dir : dirs) {
    auto entries = root.list_dir(dir);
    if (!entries) {
      continue;
    }
    for (const platform::DirEntry& e : *entries) {
      for (const char* stem : k_driver_library_stems) {
        const std::string_view name = e.name;
        if (!name.starts_with(stem) || name.size() == std::string_view(stem).size()) {
          continue;
        }
        auto real = root.resolve(util::join_path(dir, e.name));
        if (!real || !seen.insert(*real).second || !root.is_file(*real)) {
          continue;
        }
        DriverLibrary lib;
        lib.name = std::string(stem).substr(0, std::string_view(stem).size() - 3);
        lib.path = *real;
        const auto version = formats::version_after_stem(util::file_name(*real), stem);
        // "libcuda.so.1" alone says nothing, and neither does WSL's "libcuda.so.1.1": a driver
        // version has 2+ parts and a branch number of 100 or more ("535.104.05", "390.157").
        const auto parsed = version ? Version::parse(*version) : std::nullopt;
        if (parsed && parsed->size() >= 2 && parsed->major() >= 100) {
          lib.version = Fact<std::string>::known(*version, fmt::format("name:{}", *real));
        } else {
          lib.version = Fact<std::string>::unknown(
              fmt::format("the file name {} carries no driver version", *real));
        }
        lib.stub = real->find("/stubs/") != std::string::npos;
        d.libraries.push_back(std::move(lib));
      }
    }
  }
  std::sort(d.libraries.begin(), d.libraries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.name, a.path) < std::tie(b.name, b.path);
  });
}

void collect_device_nodes(const platform::SysRoot& root, DriverInfo& d) {
  auto entries = root.list_dir("/dev");
  if (!entries) {
    d.device_nodes = Fact<std::vector<DeviceNode>>::unknown(
        fmt::format("cannot list /dev: {}", entries.error().message));
    return;
  }
  std::vector<DeviceNode> nodes;
  for (const platform::DirEntry& e : *entries) {
    if (!e.name.starts_with("nvidia")) {
      continue;
    }
    const std::string path = util::join_path("/dev", e.name);
    auto st = root.lstat(path);
    if (!st) {
      continue;
    }
    DeviceNode n;
    n.path = path;
    n.kind = std::string(platform::to_string(st->kind));
    n.mode = octal_mode(st->mode);
    n.uid = st->uid;
    n.gid = st->gid;
    n.major = st->rdev_major;
    n.minor = st->rdev_minor;
    nodes.push_back(std::move(n));
  }
  d.device_nodes = Fact<std::vector<DeviceNode>>::known(std::move(nodes), "dir:/dev");
}

// The NVIDIA modules each installed kernel has, from its modules.dep (written by depmod, which
// DKMS and the distributions' module packages run). A kernel update without a rebuilt module shows
// as a running kernel whose list is empty while an older kernel's is not.
void collect_installed_modules(const platform::SysRoot& root, DriverInfo& d) {
  constexpr const char* k_modules = "/lib/modules";
  auto kernels = root.list_dir(k_modules);
  if (!kernels) {
    d.installed_modules = Fact<std::vector<KernelModules>>::unknown(
        fmt::format("cannot list {}: {}", k_modules, kernels.error().message));
  } else {
    std::vector<KernelModules> found;
    found.reserve(kernels->size());
    for (const platform::DirEntry& e : *kernels) {
      const std::string dir = util::join_path(k_modules, e.name);
      if (!root.is_dir(dir)) {
        continue;
      }
      KernelModules k;
      k.kernel_release = util::sanitize(e.name, 100);
      if (auto dep = root.read_file(util::join_path(dir, "modules.dep"), 16 * k_max_small_file)) {
        for (const std::string& path : formats::parse_modules_dep_nvidia(*dep)) {
          k.nvidia_modules.push_back(path.starts_with('/') ? path : util::join_path(dir, path));
        }
      }
      found.push_back(std::move(k));
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return a.kernel_release < b.kernel_release;
    });
    d.installed_modules =
        Fact<std::vector<KernelModules>>::known(std::move(found), "dir:/lib/modules/*/modules.dep");
  }

  constexpr const char* k_dkms = "/var/lib/dkms";
  auto trees = root.list_dir(k_dkms);
  if (!trees) {
    d.dkms_modules = Fact<std::vector<std::string>>::unknown(
        trees.error().code == ErrorCode::not_found
            ? fmt::format("{} does not exist: DKMS is not installed", k_dkms)
            : fmt::format("cannot list {}: {}", k_dkms, trees.error().message));
    return;
  }
  std::vector<std::string> modules;
  for (const platform::DirEntry& e : *trees) {
    if (!e.name.starts_with("nvidia")) {
      continue;
    }
    auto versions = root.list_dir(util::join_path(k_dkms, e.name));
    if (!versions) {
      continue;
    }
    for (const platform::DirEntry& v : *versions) {
      if (!v.name.empty() && v.name[0] >= '0' && v.name[0] <= '9') {
        modules.push_back(util::sanitize(e.name + "/" + v.name, 100));
      }
    }
  }
  std::sort(modules.begin(), modules.end());
  d.dkms_modules = Fact<std::vector<std::string>>::known(std::move(modules), "dir:/var/lib/dkms");
}

} // namespace

void collect_driver(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  collect_module(root, facts.driver);
  collect_libraries(root, facts, facts.driver);
  collect_device_nodes(root, facts.driver);
  collect_installed_modules(root, facts.driver);
}

} // namespace doctor::collect
