// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/compat_facts.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>

// Family 1 of the troubleshooting guide (version compatibility), on the driver side: the driver
// against the CUDA each framework build, cuDNN and toolkit needs, and the GPU against the driver
// branch and the toolkits. versions.cpp holds the library side.
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

const char* os_tag(kb::Os os) {
  return os == kb::Os::windows ? "windows" : "linux";
}

// Something built for one CUDA release: a framework build or an installed toolkit.
struct CudaConsumer {
  std::string subject;     // the framework's or toolkit's directory
  std::string description; // "torch 2.4.1+cu121 in /venv", "CUDA toolkit 12.4.1 in /usr/local/…"
  Version cuda;
  Evidence evidence;
  const facts::Framework* framework = nullptr;
  const facts::PythonEnv* env = nullptr;
};

std::vector<CudaConsumer> cuda_consumers(const facts::Facts& facts) {
  std::vector<CudaConsumer> out;
  for (const facts::PythonEnv& env : facts.python_envs) {
    for (const facts::Framework& fw : env.frameworks) {
      if (!fw.cuda_build.value_or(false) || !fw.cuda_version) {
        continue;
      }
      const auto cuda = kb::decode_tensorflow_version(*fw.cuda_version);
      if (!cuda || cuda->major() < 7) {
        continue;
      }
      out.push_back(
          CudaConsumer{fw.location,
                       fmt::format("{} {} in {} was built with CUDA {}",
                                   fw.name,
                                   fw.version.value_or("(version unknown)"),
                                   env.prefix,
                                   cuda->str()),
                       *cuda,
                       evidence_of(fw.cuda_version, fmt::format("{} built with CUDA", fw.name)),
                       &fw,
                       &env});
    }
  }
  // A cuDNN built for a CUDA major needs that major's driver floor; one inside an environment
  // whose framework is judged above is the framework's, and reported with it.
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    const unsigned major = cudnn_cuda_major(inst);
    const bool in_framework_env = std::any_of(out.begin(), out.end(), [&](const CudaConsumer& c) {
      return c.env != nullptr && inst.dir.starts_with(c.env->prefix + "/");
    });
    if (major == 0 || in_framework_env) {
      continue;
    }
    out.push_back(
        CudaConsumer{inst.dir,
                     fmt::format("cuDNN {} in {} ({}) is a build for CUDA {}",
                                 inst.version ? inst.version->str() : std::to_string(inst.major),
                                 inst.dir,
                                 *inst.package,
                                 major),
                     Version::from_parts({major}),
                     evidence_of(inst.package, "cuDNN package"),
                     nullptr,
                     nullptr});
  }
  for (const facts::CudaToolkit& tk : facts.cuda_toolkits) {
    if (tk.version) {
      out.push_back(
          CudaConsumer{tk.path,
                       fmt::format("The CUDA toolkit in {} is CUDA {}", tk.path, tk.version->str()),
                       *tk.version,
                       evidence_of(tk.version, "CUDA toolkit"),
                       nullptr,
                       nullptr});
    }
  }
  return out;
}

// The newest build of the same framework release whose CUDA the driver runs: the way out that
// keeps the driver.
const kb::FrameworkBuildRow* build_for_driver(const kb::CompatTables& compat,
                                              const facts::Framework& fw,
                                              const Version& driver,
                                              kb::Os os) {
  const auto version = framework_version(fw);
  if (!version) {
    return nullptr;
  }
  const kb::FrameworkBuildRow* best = nullptr;
  std::optional<Version> best_cuda;
  for (const kb::FrameworkBuildRow* row : compat.framework_builds_for(fw.name, *version, os)) {
    const auto cuda = Version::parse(row->cuda);
    if (!cuda || row->install.empty() || !row->gpu_supported) {
      continue;
    }
    const auto floor = compat.minimum_driver(*cuda, os, true);
    if (floor && driver >= *floor && (!best_cuda || *cuda > *best_cuda)) {
      best = row;
      best_cuda = cuda;
    }
  }
  return best;
}

unsigned needed_branch(const std::optional<Version>& floor, const std::optional<Version>& full) {
  return floor ? floor->major() : full ? full->major() : 0;
}

std::string newest_cuda_of(const kb::CompatTables& compat, const Version& driver) {
  const kb::DriverBranchRow* branch = compat.branch_of(driver);
  return branch ? fmt::format("CUDA {}", branch->max_cuda.str())
                : std::string("(not in the knowledge base)");
}

} // namespace

void check_driver_for_cuda(const facts::Facts& facts,
                           const kb::KnowledgeBase& kb,
                           FindingSink& out) {
  const auto driver = installed_driver(facts);
  if (!driver) {
    return;
  }
  const kb::CompatTables& compat = kb.compat();
  const kb::Os os = os_of(facts);
  for (const CudaConsumer& c : cuda_consumers(facts)) {
    const auto floor = compat.minimum_driver(c.cuda, os, true);
    const auto full = compat.minimum_driver(c.cuda, os, false);
    if (!floor && !full) {
      continue;
    }
    const kb::MinorCompatRow* mc = compat.minor_compat_for(c.cuda);
    FindingDraft d;
    d.subject = c.subject;
    // A GPU whose last driver branch is older than this CUDA needs cannot get there: a newer
    // driver would drop the GPU, so only an older CUDA build helps.
    std::optional<unsigned> last_branch;
    for (const GpuCc& gpu : gpu_kinds(facts, compat)) {
      const kb::ArchitectureRow* arch = gpu.cc ? compat.architecture(*gpu.cc) : nullptr;
      if (arch && arch->last_branch && *arch->last_branch < needed_branch(floor, full)) {
        last_branch = *arch->last_branch;
        d.evidence.insert(d.evidence.end(), gpu.evidence.begin(), gpu.evidence.end());
        d.evidence.push_back(Evidence{"kb",
                                      fmt::format("{} GPUs: last driver branch {} ({})",
                                                  arch->name,
                                                  *arch->last_branch,
                                                  arch->source)});
      }
    }
    if (last_branch) {
      d.tags.emplace_back("gpu_stuck");
    } else {
      d.tags = distro_tags(facts);
      d.tags.emplace_back(os_tag(os));
      if (d.tags.size() == 1 && os == kb::Os::linux) {
        d.tags.emplace_back("other_linux");
      }
    }
    const kb::DriverBranchRow* last =
        last_branch ? compat.branch_of(Version::from_parts({*last_branch})) : nullptr;
    util::Command alternative;
    if (c.framework) {
      d.tags.emplace_back("framework");
      if (const kb::FrameworkBuildRow* row =
              build_for_driver(compat, *c.framework, driver->version, os)) {
        alternative = install_command(*row, *c.framework, *c.env, os, true);
        d.tags.emplace_back("have_alternative");
      }
    } else {
      d.tags.emplace_back("toolkit");
    }
    d.params = {{"what", c.description},
                {"cuda", c.cuda.str()},
                {"driver", driver->version.str()},
                {"driver_cuda", newest_cuda_of(compat, driver->version)},
                {"required", (floor ? *floor : *full).str()},
                {"toolkit_driver", full ? full->str() : std::string("(not known)")},
                {"last_branch", last_branch ? std::to_string(*last_branch) : ""},
                {"last_branch_cuda", last ? last->max_cuda.str() : "(not known)"}};
    d.commands = {{"alternative", std::move(alternative)}};
    d.shell = shell_for(os);
    d.evidence.insert(d.evidence.begin(), c.evidence);
    d.evidence.insert(d.evidence.begin(), driver->evidence);
    const Version& needed = floor ? *floor : *full;
    if (driver->version < needed) {
      d.id = ids::k_compat_driver_too_old;
      if (c.framework) {
        d.severity = Severity::error;
      }
      d.evidence.push_back(Evidence{
          "kb",
          mc && floor
              ? fmt::format("CUDA {}.x runs on drivers >= {} ({}; minor-version "
                            "compatibility). Source: {}",
                            c.cuda.major(),
                            floor->str(),
                            os_tag(os),
                            mc->source)
              : fmt::format(
                  "CUDA {} needs driver >= {} on {}", c.cuda.str(), needed.str(), os_tag(os))});
      out.add(std::move(d));
    } else if (full && driver->version < *full) {
      d.id = ids::k_compat_driver_minor_compat_only;
      d.evidence.push_back(Evidence{
          "kb",
          fmt::format("CUDA {} was released with driver {} ({}); minor-version compatibility "
                      "needs only {}{}",
                      c.cuda.str(),
                      full->str(),
                      os_tag(os),
                      needed.str(),
                      mc ? ". Source: " + mc->source : std::string())});
      out.add(std::move(d));
    }
  }
}

// The GPU against the driver branch: branches drop old architectures (R470 the last for Kepler,
// R580 for Maxwell, Pascal and Volta) and new ones need a minimum branch, on Linux only with the
// open kernel modules for some.
void check_gpu_driver_support(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out) {
  const auto driver = installed_driver(facts);
  if (!driver) {
    return;
  }
  const kb::CompatTables& compat = kb.compat();
  const unsigned branch = driver->version.major();
  for (const GpuCc& gpu : gpu_kinds(facts, compat)) {
    if (!gpu.cc) {
      continue;
    }
    const kb::ArchitectureRow* arch = compat.architecture(*gpu.cc);
    if (!arch) {
      continue;
    }
    FindingDraft d;
    d.subject = gpu.description;
    d.params = {{"gpu", gpu.description},
                {"cc", gpu.cc->str()},
                {"arch", arch->name},
                {"driver", driver->version.str()},
                {"branch", std::to_string(branch)},
                {"last_branch", arch->last_branch ? std::to_string(*arch->last_branch) : ""},
                {"first_branch", arch->first_branch ? std::to_string(*arch->first_branch) : ""}};
    d.evidence = gpu.evidence;
    d.evidence.push_back(driver->evidence);
    d.evidence.push_back(Evidence{
        "kb",
        fmt::format("{} (compute capability {}): {}", arch->name, arch->cc.str(), arch->source)});
    d.tags = distro_tags(facts);
    d.tags.emplace_back(os_tag(os_of(facts)));
    if (d.tags.size() == 1 && os_of(facts) == kb::Os::linux) {
      d.tags.emplace_back("other_linux");
    }
    if (arch->last_branch && branch > *arch->last_branch) {
      d.id = ids::k_compat_gpu_dropped_by_driver;
      out.add(std::move(d));
    } else if (arch->first_branch && branch < *arch->first_branch) {
      d.id = ids::k_compat_gpu_needs_newer_driver;
      out.add(std::move(d));
    } else if (arch->linux_open_modules_only && os_of(facts) == kb::Os::linux
               && facts.driver.kernel_module_type.value_or("") == "proprietary") {
      d.id = ids::k_compat_gpu_needs_open_module;
      d.evidence.push_back(
          evidence_of(facts.driver.kernel_module_type, "NVIDIA kernel module flavour"));
      out.add(std::move(d));
    }
  }
}

// Installed toolkits that can no longer build for the GPU (offline compilation removed).
void check_gpu_toolkit_support(const facts::Facts& facts,
                               const kb::KnowledgeBase& kb,
                               FindingSink& out) {
  const kb::CompatTables& compat = kb.compat();
  for (const GpuCc& gpu : gpu_kinds(facts, compat)) {
    const kb::ArchitectureRow* arch = gpu.cc ? compat.architecture(*gpu.cc) : nullptr;
    if (!arch) {
      continue;
    }
    for (const facts::CudaToolkit& tk : facts.cuda_toolkits) {
      const bool too_new =
          tk.version && arch->removed_in_cuda && *tk.version >= *arch->removed_in_cuda;
      const bool too_old = tk.version && *tk.version < arch->first_cuda;
      if (!too_new && !too_old) {
        continue;
      }
      FindingDraft d;
      d.id = ids::k_compat_gpu_unsupported_by_toolkit;
      d.subject = tk.path;
      d.params = {{"gpu", gpu.description},
                  {"cc", gpu.cc->str()},
                  {"arch", arch->name},
                  {"toolkit", tk.version->str()},
                  {"dir", tk.path},
                  {"range",
                   arch->removed_in_cuda
                       ? fmt::format("CUDA {} up to the release before {}",
                                     arch->first_cuda.str(),
                                     arch->removed_in_cuda->str())
                       : fmt::format("CUDA {} and newer", arch->first_cuda.str())}};
      d.evidence = gpu.evidence;
      d.evidence.push_back(evidence_of(tk.version, "CUDA toolkit " + tk.path));
      d.evidence.push_back(Evidence{"kb", arch->source});
      d.tags.emplace_back(too_new ? "too_new" : "too_old");
      out.add(std::move(d));
    }
  }
}

} // namespace doctor::checks
