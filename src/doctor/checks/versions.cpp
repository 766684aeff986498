// SPDX-License-Identifier: MIT
#include <doctor/checks/checks.hpp>
#include <doctor/checks/compat_facts.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>
#include <map>

// Family 1 of the troubleshooting guide (version compatibility), on the library side: the cuDNN a
// framework build loads against the one it was built with, the GPU against the code in the build
// and the cuDNN, TensorFlow's end of GPU support on native Windows, and one cuDNN directory
// holding several releases. versions_driver.cpp holds the driver side.
namespace doctor::checks {

namespace {

namespace ids = kb::ids;

// The cuDNN a framework loads: the loader model's winner for the framework's dispatcher
// request where the snapshot has the walk, else the environment's own cuDNN (a pip wheel inside
// its prefix).
const facts::CudnnInstall* cudnn_of(const facts::Facts& facts,
                                    const std::vector<loader::LoadContext>& contexts,
                                    const facts::PythonEnv& env,
                                    const facts::Framework& fw,
                                    std::string& how) {
  const std::string id = fw.name + ":" + env.prefix;
  for (const loader::LoadContext& ctx : contexts) {
    if (ctx.id != id) {
      continue;
    }
    for (const loader::LoadStep& step : ctx.steps) {
      if (step.role != loader::LibraryRole::cudnn_dispatcher || !step.resolution.chosen) {
        continue;
      }
      for (const facts::CudnnInstall& inst : facts.cudnn) {
        for (const facts::CudnnLibrary& lib : inst.libraries) {
          if (lib.real_path == step.resolution.chosen->real_path) {
            how = fmt::format("the loader finds {} there via {}",
                              step.resolution.name,
                              step.resolution.chosen->source);
            return &inst;
          }
        }
      }
    }
  }
  const std::string inside = env.prefix + "/";
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    if (inst.dir.starts_with(inside) && inst.version) {
      how = "the environment's own cuDNN";
      return &inst;
    }
  }
  return nullptr;
}

// What cuDNN the framework was built with, as precisely as known: its own record, refined by the
// knowledge base where the record has the major only (TensorFlow's build_info says "8").
std::optional<Version> expected_cudnn(const kb::CompatTables& compat,
                                      const facts::Framework& fw,
                                      kb::Os os,
                                      std::string& source) {
  if (!fw.cudnn_version) {
    return std::nullopt;
  }
  auto recorded = kb::decode_tensorflow_version(*fw.cudnn_version);
  if (!recorded) {
    return std::nullopt;
  }
  source = fw.cudnn_version.source();
  const auto version = framework_version(fw);
  if (recorded->size() >= 2 || !version) {
    return recorded;
  }
  for (const kb::FrameworkBuildRow* row : compat.framework_builds_for(fw.name, *version, os)) {
    auto kb_cudnn = Version::parse(row->cudnn);
    if (kb_cudnn && kb_cudnn->major() == recorded->major() && kb_cudnn->size() >= 2) {
      source = row->source;
      return kb_cudnn;
    }
  }
  return recorded;
}

// The exact pip release to pin: the framework's own pin if it recorded one, else the newest wheel
// of that major.minor for the CUDA major.
std::string pip_pin(const kb::CompatTables& compat, const Version& expected, unsigned cuda_major) {
  if (expected.size() >= 4) {
    return fmt::format("nvidia-cudnn-cu{}=={}", cuda_major, expected.str());
  }
  for (const kb::CudnnPackageRow* row :
       compat.cudnn_packages_for(expected.major(), cuda_major, "pip")) {
    const auto v = Version::parse(row->version);
    if (v && v->starts_with(Version::parse(expected.prefix(2)).value_or(expected))) {
      return fmt::format("{}=={}", row->name, row->version);
    }
  }
  return "";
}

unsigned cuda_major_of(const facts::Framework& fw) {
  const auto v = fw.cuda_version ? kb::decode_tensorflow_version(*fw.cuda_version) : std::nullopt;
  return v ? v->major() : 0;
}

bool has_nvidia_gpu(const facts::Facts& facts) {
  return (facts.pci && !facts.pci->nvidia_gpus.empty())
         || (facts.driver.nvml.devices && !facts.driver.nvml.devices->empty());
}

} // namespace

// The cuDNN a framework loads against the one it was built with: the same major (the soname
// differs otherwise), a minor not older (PyTorch and TensorFlow refuse an older one), and a build
// for the framework's CUDA major.
void check_cudnn_for_framework(const facts::Facts& facts,
                               const kb::KnowledgeBase& kb,
                               FindingSink& out) {
  const kb::CompatTables& compat = kb.compat();
  const kb::Os os = os_of(facts);
  const auto contexts = loader_contexts(facts, kb);
  for (const facts::PythonEnv& env : facts.python_envs) {
    for (const facts::Framework& fw : env.frameworks) {
      if (!fw.cuda_build.value_or(false)) {
        continue;
      }
      std::string expected_source;
      const auto expected = expected_cudnn(compat, fw, os, expected_source);
      std::string how;
      const facts::CudnnInstall* inst = cudnn_of(facts, *contexts, env, fw, how);
      if (!expected || !inst || !inst->version) {
        continue;
      }
      const Version& found = *inst->version;
      const unsigned fw_cuda = cuda_major_of(fw);
      const unsigned cudnn_cuda = cudnn_cuda_major(*inst);
      FindingDraft d;
      d.subject = fw.location;
      const std::string pin = fw_cuda != 0 ? pip_pin(compat, *expected, fw_cuda) : "";
      d.params = {{"framework", fmt::format("{} {}", fw.name, fw.version.value_or("?"))},
                  {"env", env.prefix},
                  {"expected", expected->str()},
                  {"found", found.str()},
                  {"found_dir", inst->dir},
                  {"found_package", inst->package.value_or("no package record")},
                  {"how", how},
                  {"fw_cuda", fw_cuda != 0 ? std::to_string(fw_cuda) : "?"},
                  {"cudnn_cuda", cudnn_cuda != 0 ? std::to_string(cudnn_cuda) : "?"},
                  {"pin", pin},
                  {"fw_name", fw.name}};
      d.commands = {{"pip", pip_command(env, os)}};
      d.shell = shell_for(os);
      d.evidence.push_back(Evidence{
          expected_source, fmt::format("{} was built with cuDNN {}", fw.name, expected->str())});
      d.evidence.push_back(evidence_of(inst->version, "cuDNN in " + inst->dir));
      if (inst->package) {
        d.evidence.push_back(evidence_of(inst->package, "owned by"));
      }
      d.evidence.push_back(Evidence{"loader", how});
      d.tags.emplace_back(fw.name);
      const PackageHint hint = package_hint(*inst);
      d.tags.insert(d.tags.end(), hint.tags.begin(), hint.tags.end());
      if (hint.tags.empty()) {
        d.tags.emplace_back("no_package");
      }
      if (!pin.empty()) {
        d.tags.emplace_back("have_pin");
      }
      if (found.major() != expected->major()) {
        d.id = ids::k_compat_cudnn_major_mismatch;
      } else if (expected->size() >= 2 && found.minor() < expected->minor()) {
        d.id = ids::k_compat_cudnn_older_than_build;
      } else if (fw_cuda != 0 && cudnn_cuda != 0 && fw_cuda != cudnn_cuda) {
        d.id = ids::k_compat_cudnn_cuda_mismatch;
      } else {
        continue;
      }
      out.add(std::move(d));
    }
  }
}

// The GPU's compute capability against each framework build's code (SASS or PTX) and each cuDNN's
// supported range.
void check_gpu_arch(const facts::Facts& facts, const kb::KnowledgeBase& kb, FindingSink& out) {
  const kb::CompatTables& compat = kb.compat();
  const kb::Os os = os_of(facts);
  const std::vector<GpuCc> gpus = gpu_kinds(facts, compat);
  for (const GpuCc& gpu : gpus) {
    if (!gpu.cc) {
      continue;
    }
    for (const facts::PythonEnv& env : facts.python_envs) {
      for (const facts::Framework& fw : env.frameworks) {
        if (!fw.cuda_build.value_or(false)) {
          continue;
        }
        std::vector<std::string> archs;
        std::string archs_source;
        if (fw.cuda_archs && !fw.cuda_archs->empty()) {
          archs = *fw.cuda_archs;
          archs_source = fw.cuda_archs.source();
        } else if (const auto version = framework_version(fw)) {
          const auto cuda =
              fw.cuda_version ? kb::decode_tensorflow_version(*fw.cuda_version) : std::nullopt;
          for (const kb::FrameworkBuildRow* row :
               compat.framework_builds_for(fw.name, *version, os)) {
            const auto row_cuda = Version::parse(row->cuda);
            if (!row->archs.empty() && row_cuda && cuda && row_cuda->prefix(2) == cuda->prefix(2)) {
              archs = row->archs;
              archs_source = "kb: " + row->source;
              break;
            }
          }
        }
        const auto parsed = parse_build_archs(archs);
        if (parsed.empty() || build_runs_on(parsed, *gpu.cc)) {
          continue;
        }
        // A build of the same release that runs on the GPU (another CUDA variant), else the
        // newest build of the framework in the knowledge base that does.
        const kb::FrameworkBuildRow* fit = nullptr;
        bool same_release = false;
        if (const auto version = framework_version(fw)) {
          for (const kb::FrameworkBuildRow* row :
               compat.framework_builds_for(fw.name, *version, os)) {
            if (row->gpu_supported && !row->install.empty()
                && build_runs_on(parse_build_archs(row->archs), *gpu.cc)) {
              fit = row;
              same_release = true;
            }
          }
        }
        std::optional<Version> fit_version;
        for (const kb::FrameworkBuildRow& row : compat.framework_builds()) {
          if (same_release || row.framework != fw.name || row.os != os || !row.gpu_supported
              || row.install.empty() || !build_runs_on(parse_build_archs(row.archs), *gpu.cc)) {
            continue;
          }
          const auto first = Version::parse_prefix(row.versions);
          if (first && (!fit_version || *first > *fit_version)) {
            fit = &row;
            fit_version = first;
          }
        }
        FindingDraft d;
        d.id = ids::k_compat_gpu_arch_not_in_build;
        d.subject = fw.location;
        d.params = {
            {"gpu", gpu.description},
            {"cc", gpu.cc->str()},
            {"framework", fmt::format("{} {}", fw.name, fw.version.value_or("?"))},
            {"archs", util::join(archs, " ")},
        };
        d.commands = {
            {"install", fit ? install_command(*fit, fw, env, os, same_release) : util::Command()},
            {"pip", pip_command(env, os)}};
        d.shell = shell_for(os);
        d.evidence = gpu.evidence;
        const bool from_kb = archs_source.starts_with("kb: ");
        d.evidence.push_back(Evidence{from_kb ? "kb" : archs_source,
                                      fmt::format("{} {} has code for {}{}",
                                                  fw.name,
                                                  fw.version.value_or("?"),
                                                  util::join(archs, ", "),
                                                  from_kb ? " (its build in the knowledge base: "
                                                                + archs_source.substr(4) + ")"
                                                          : std::string())});
        d.tags.emplace_back(fit ? "have_build" : "no_build");
        if (fit) {
          d.evidence.push_back(Evidence{"kb",
                                        fmt::format("{} {} ({}) has code for {}: {}",
                                                    fit->framework,
                                                    fit->versions,
                                                    fit->variant,
                                                    util::join(fit->archs, ", "),
                                                    fit->source)});
        }
        out.add(std::move(d));
      }
    }
    for (const facts::CudnnInstall& inst : facts.cudnn) {
      const kb::CudnnReleaseRow* rel = inst.version ? compat.cudnn_release(*inst.version) : nullptr;
      if (!rel || !(*gpu.cc < rel->min_cc)) {
        continue;
      }
      // The newest wheel for the same CUDA major whose release still supports the GPU.
      const unsigned cuda_major = cudnn_cuda_major(inst);
      std::string pin;
      std::optional<Version> pinned;
      for (const kb::CudnnPackageRow& p : compat.cudnn_packages()) {
        const auto v = Version::parse(p.version);
        const kb::CudnnReleaseRow* r = v ? compat.cudnn_release(*v) : nullptr;
        if (p.manager == "pip" && p.cuda_major == cuda_major && r && !(*gpu.cc < r->min_cc)
            && v->major() == inst.major && (!pinned || *v > *pinned)) {
          pin = fmt::format("{}=={}", p.name, p.version);
          pinned = v;
        }
      }
      FindingDraft d;
      d.id = ids::k_compat_gpu_below_cudnn_minimum;
      d.subject = inst.dir;
      d.params = {{"gpu", gpu.description},
                  {"cc", gpu.cc->str()},
                  {"version", inst.version->str()},
                  {"dir", inst.dir},
                  {"min_cc", rel->min_cc.str()},
                  {"pin", pin}};
      d.evidence = gpu.evidence;
      d.evidence.push_back(evidence_of(inst.version, "cuDNN in " + inst.dir));
      d.evidence.push_back(
          Evidence{"kb",
                   fmt::format("cuDNN {} supports compute capability {} and newer: {}",
                               rel->versions,
                               rel->min_cc.str(),
                               rel->source)});
      if (!pin.empty()) {
        d.tags.emplace_back("have_pin");
      }
      out.add(std::move(d));
    }
  }
}

// TensorFlow 2.11 and newer has no GPU build for native Windows: it runs on the CPU only.
void check_tensorflow_windows(const facts::Facts& facts,
                              const kb::KnowledgeBase& kb,
                              FindingSink& out) {
  if (os_of(facts) != kb::Os::windows) {
    return;
  }
  const kb::CompatTables& compat = kb.compat();
  for (const facts::PythonEnv& env : facts.python_envs) {
    for (const facts::Framework& fw : env.frameworks) {
      const auto version = framework_version(fw);
      if (fw.name != "tensorflow" || !version) {
        continue;
      }
      const auto rows = compat.framework_builds_for("tensorflow", *version, kb::Os::windows);
      const auto none =
          std::find_if(rows.begin(), rows.end(), [](const auto* r) { return !r->gpu_supported; });
      if (none == rows.end()) {
        continue;
      }
      const bool cuda_packages =
          std::any_of(env.packages.begin(), env.packages.end(), [](const auto& p) {
            return p.name.starts_with("nvidia-");
          });
      if (!has_nvidia_gpu(facts) && !cuda_packages && facts.cuda_toolkits.empty()) {
        continue;
      }
      FindingDraft d;
      d.id = ids::k_compat_tensorflow_windows_no_gpu;
      d.subject = fw.location;
      d.params = {{"version", *fw.version}, {"env", env.prefix}};
      d.commands = {{"pip", pip_command(env, kb::Os::windows)}};
      d.shell = util::Shell::cmd;
      d.evidence.push_back(evidence_of(fw.version, "TensorFlow in " + env.prefix));
      d.evidence.push_back(Evidence{"kb", (*none)->note + " Source: " + (*none)->source});
      if (has_nvidia_gpu(facts)) {
        d.evidence.push_back(
            Evidence{facts.pci ? facts.pci.source() : "nvml", "an NVIDIA GPU is present"});
      }
      out.add(std::move(d));
    }
  }
}

// The libraries of one cuDNN directory must come from one release: cuDNN refuses a mix with
// CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, or fails on undefined symbols.
void check_cudnn_mixed_releases(const facts::Facts& facts,
                                const kb::KnowledgeBase&,
                                FindingSink& out) {
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    std::map<std::string, std::vector<std::string>> by_version; // "9.1.0" -> members
    for (const facts::CudnnLibrary& lib : inst.libraries) {
      if (lib.version) {
        by_version[lib.version->prefix(3)].push_back(lib.member);
      }
    }
    if (by_version.size() < 2) {
      continue;
    }
    std::vector<std::string> parts;
    parts.reserve(by_version.size());
    for (const auto& [version, members] : by_version) {
      parts.push_back(fmt::format("{} from {}", util::join(members, ", "), version));
    }
    const PackageHint hint = package_hint(inst);
    FindingDraft d;
    d.id = ids::k_cudnn_sublibrary_version_mixed;
    d.subject = inst.dir;
    d.params = {{"dir", inst.dir},
                {"versions", util::join(parts, "; ")},
                {"package", hint.package},
                {"package_spec", hint.package_spec}};
    d.tags = hint.tags;
    add_cudnn_library_evidence(inst, d);
    out.add(std::move(d));
  }
}

} // namespace doctor::checks
