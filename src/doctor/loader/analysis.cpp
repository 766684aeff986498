// SPDX-License-Identifier: MIT
#include <doctor/loader/analysis.hpp>
#include <doctor/util/paths.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace doctor::loader {

namespace {

bool starts(std::string_view s, std::string_view p) {
  return s.starts_with(p);
}

// The dispatcher's major from its soname ("libcudnn.so.9" -> 9); 0 if none.
unsigned soname_major(std::string_view soname) {
  const auto so = soname.find(".so.");
  if (so == std::string_view::npos) {
    return 0;
  }
  const auto v = Version::parse_prefix(soname.substr(so + 4));
  return v ? v->major() : 0;
}

// The cuDNN installation a resolved file belongs to (for its version), if the facts know it.
const facts::CudnnInstall* install_of(const facts::Facts& facts, const std::string& real_path) {
  const std::string dir = util::parent_path(real_path);
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    if (inst.dir == dir) {
      return &inst;
    }
  }
  return nullptr;
}

class Walker {
public:
  Walker(const facts::Facts& facts, const kb::KnowledgeBase& kb, FileProbe& probe)
      : m_facts(facts)
      , m_kb(kb)
      , m_probe(probe)
      , m_config(linux_config_from(facts)) {}

  // Asks for `name` on behalf of `chain`, records the step, and follows what it loads: a cuDNN
  // dispatcher opens its sub-libraries, the CUDA runtime opens the driver, and a cuDNN
  // sub-library's own DT_NEEDED GPU dependencies (and libz) are resolved from it.
  void ask(LoadContext& ctx,
           const std::string& name,
           const std::vector<LoaderObject>& chain,
           std::string reason,
           int depth = 0) {
    if (depth > 3
        || !m_asked.insert(ctx.id + "|" + (chain.empty() ? "" : chain.front().path) + "|" + name)
                .second) {
      return;
    }
    LoadStep step;
    step.role = role_of(name);
    step.reason = std::move(reason);
    step.resolution = resolve_linux(name, chain, m_config, m_probe);
    const std::optional<Candidate> chosen = step.resolution.chosen;
    ctx.steps.push_back(std::move(step));
    if (!chosen) {
      return;
    }
    std::vector<LoaderObject> next = chain;
    next.insert(next.begin(), LoaderObject{chosen->path, chosen->binary});
    const LibraryRole role = role_of(name);
    if (role == LibraryRole::cudnn_dispatcher) {
      const unsigned major = soname_major(name);
      const facts::CudnnInstall* inst = install_of(m_facts, chosen->real_path);
      const facts::Fact<Version> version =
          inst != nullptr ? inst->version
                          : facts::Fact<Version>::unknown("not an installation the facts know");
      for (const std::string& member : cudnn_members(m_facts, m_kb, major, version)) {
        if (member != name) {
          ask(ctx, member, next, fmt::format("opened at run time by {}", chosen->path), depth + 1);
        }
      }
    } else if (role == LibraryRole::cuda_runtime) {
      ask(ctx,
          "libcuda.so.1",
          next,
          fmt::format("opened at run time by {}", chosen->path),
          depth + 1);
    }
    if (role == LibraryRole::cudnn_sublibrary && chosen->binary != nullptr) {
      for (const std::string& dep : chosen->binary->needed) {
        const LibraryRole r = role_of(dep);
        if (r != LibraryRole::other && r != LibraryRole::cudnn_sublibrary) {
          ask(ctx, dep, next, fmt::format("DT_NEEDED of {}", chosen->path), depth + 1);
        }
      }
    }
  }

  // A framework library and the GPU libraries it needs (DT_NEEDED), with `extra` names it opens
  // at run time by soname.
  void framework(LoadContext& ctx,
                 const std::string& start_path,
                 const std::string& python,
                 const std::vector<std::string>& extra) {
    const PathState st = m_probe.probe(start_path);
    if (!st.exists || st.binary == nullptr) {
      return;
    }
    std::vector<LoaderObject> chain{{start_path, st.binary}};
    if (!python.empty()) {
      // The executable's $ORIGIN is the directory of its real file, links resolved: glibc's
      // _dl_get_origin (sysdeps/unix/sysv/linux/dl-origin.c) reads /proc/self/exe, unlike a
      // library's, which is the directory of the path it was opened by (_dl_new_object). A
      // venv's bin/python3 is a link to the base interpreter.
      const PathState py = m_probe.probe(python);
      if (py.exists) {
        chain.push_back(LoaderObject{python, py.binary, py.real_path});
      }
    }
    for (const std::string& dep : st.binary->needed) {
      if (role_of(dep) != LibraryRole::other) {
        ask(ctx, dep, chain, fmt::format("DT_NEEDED of {}", start_path));
      }
    }
    for (const std::string& name : extra) {
      ask(ctx, name, chain, fmt::format("opened at run time by {}", start_path));
    }
  }

private:
  const facts::Facts& m_facts;
  const kb::KnowledgeBase& m_kb;
  FileProbe& m_probe;
  LinuxLoaderConfig m_config;
  std::set<std::string> m_asked;
};

// The sonames TensorFlow's dso_loader opens, from the versions build_info.py records: CUDA 11
// runtimes are "libcudart.so.11.0", later ones use the major only (cuda_configure.bzl).
std::vector<std::string> tensorflow_sonames(const facts::Framework& tf) {
  std::vector<std::string> out;
  if (!tf.cuda_version || !tf.cuda_build.value_or(false)) {
    return out;
  }
  const auto cuda = Version::parse_prefix(*tf.cuda_version);
  if (!cuda) {
    return out;
  }
  out.push_back(cuda->major() == 11 ? "libcudart.so.11.0"
                                    : fmt::format("libcudart.so.{}", cuda->major()));
  out.push_back(fmt::format("libcublas.so.{}", cuda->major()));
  out.push_back(fmt::format("libcublasLt.so.{}", cuda->major()));
  if (tf.cudnn_version) {
    if (const auto cudnn = Version::parse_prefix(*tf.cudnn_version)) {
      out.push_back(fmt::format("libcudnn.so.{}", cudnn->major()));
    }
  }
  return out;
}

} // namespace

LibraryRole role_of(std::string_view n) {
  if (starts(n, "libcudnn.so")) {
    return LibraryRole::cudnn_dispatcher;
  }
  if (starts(n, "libcudnn_")) {
    return LibraryRole::cudnn_sublibrary;
  }
  if (starts(n, "libcudart.so")) {
    return LibraryRole::cuda_runtime;
  }
  for (const char* p : {"libcublas",
                        "libnvrtc",
                        "libcufft",
                        "libcurand",
                        "libcusolver",
                        "libcusparse",
                        "libnccl",
                        "libnvJitLink",
                        "libcufile",
                        "libnvToolsExt",
                        "libcupti",
                        "libnvshmem"}) {
    if (starts(n, p)) {
      return LibraryRole::cuda_library;
    }
  }
  if (starts(n, "libcuda.so") || starts(n, "libnvidia-ml.so")) {
    return LibraryRole::driver;
  }
  if (starts(n, "libz.so")) {
    return LibraryRole::zlib;
  }
  return LibraryRole::other;
}

std::vector<std::string> cudnn_members(const facts::Facts& facts,
                                       const kb::KnowledgeBase& kb,
                                       unsigned major,
                                       const facts::Fact<Version>& version) {
  std::set<std::string> out;
  const auto sets = kb.cudnn_sets(major, "linux");
  if (!sets.empty()) {
    const kb::CudnnLibrarySet& full = *sets.front();
    out.insert(full.members.begin(), full.members.end());
    for (const auto& [member, since] : full.optional_members) {
      const auto first = Version::parse(since);
      if (version && first && *version >= *first) {
        out.insert(member);
      }
    }
  }
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    if (inst.major == major) {
      for (const facts::CudnnLibrary& lib : inst.libraries) {
        out.insert(lib.member);
      }
    }
  }
  return {out.begin(), out.end()};
}

std::vector<LoadContext>
analyse_linux(const facts::Facts& facts, const kb::KnowledgeBase& kb, FileProbe& probe) {
  std::vector<LoadContext> out;
  Walker walker(facts, kb, probe);
  for (const facts::PythonEnv& env : facts.python_envs) {
    if (!env.site_packages) {
      continue;
    }
    const std::string python = util::join_path(env.prefix, "bin/python3");
    for (const facts::Framework& fw : env.frameworks) {
      // The nvidia-cudnn wheel beside the framework: in its site-packages, which is the user's
      // (PEP 370) for a framework installed with pip --user.
      const std::string site =
          fw.location.empty() ? *env.site_packages : util::parent_path(fw.location);
      const std::string shipped = util::join_path(site, "nvidia/cudnn/lib");
      LoadContext ctx;
      ctx.subject = env.prefix;
      ctx.shipped_cudnn_dir = probe.probe(shipped).is_dir ? shipped : std::string();
      ctx.description = fmt::format("{} {} in {}", fw.name, fw.version.value_or("?"), env.prefix);
      if (fw.name == "torch" && fw.cuda_build.value_or(false)) {
        ctx.id = "torch:" + env.prefix;
        walker.framework(ctx, util::join_path(fw.location, "lib/libtorch_cuda.so"), python, {});
      } else if (fw.name == "tensorflow" && fw.cuda_build.value_or(false)) {
        ctx.id = "tensorflow:" + env.prefix;
        walker.framework(ctx,
                         util::join_path(fw.location, "libtensorflow_framework.so.2"),
                         python,
                         tensorflow_sonames(fw));
      }
      if (!ctx.steps.empty()) {
        out.push_back(std::move(ctx));
      }
    }
  }

  // A program without RPATH or RUNPATH (one built against a toolkit, ctypes, a C++ application):
  // what LD_LIBRARY_PATH, the cache and the default directories give it.
  LoadContext program;
  program.id = "program";
  program.subject = "a program without RPATH/RUNPATH";
  program.description =
      "a program without RPATH or RUNPATH (LD_LIBRARY_PATH, ld.so.cache, default directories)";
  std::set<unsigned> majors;
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    majors.insert(inst.major);
  }
  for (unsigned major : majors) {
    walker.ask(program, fmt::format("libcudnn.so.{}", major), {}, "dlopen by name");
  }
  walker.ask(program, "libcuda.so.1", {}, "dlopen by name (the CUDA runtime does this)");
  walker.ask(program,
             "libcuda.so",
             {},
             "dlopen of the unversioned name (numba and some JIT loaders do this)");
  out.push_back(std::move(program));

  // Each cuDNN installation's dispatcher opening its own sub-libraries.
  for (const facts::CudnnInstall& inst : facts.cudnn) {
    const std::string dispatcher =
        util::join_path(inst.dir, fmt::format("libcudnn.so.{}", inst.major));
    const PathState st = probe.probe(dispatcher);
    if (!st.exists) {
      continue;
    }
    LoadContext ctx;
    ctx.id = "cudnn:" + inst.dir;
    ctx.subject = inst.dir;
    ctx.description = fmt::format("a program using the cuDNN in {}", inst.dir);
    const std::vector<LoaderObject> chain{{dispatcher, st.binary}};
    for (const std::string& member : cudnn_members(facts, kb, inst.major, inst.version)) {
      if (role_of(member) == LibraryRole::cudnn_sublibrary) {
        walker.ask(ctx, member, chain, fmt::format("opened at run time by {}", dispatcher));
      }
    }
    if (!ctx.steps.empty()) {
      out.push_back(std::move(ctx));
    }
  }
  return out;
}

} // namespace doctor::loader
