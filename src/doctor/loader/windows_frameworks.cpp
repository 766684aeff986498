// SPDX-License-Identifier: MIT
#include <doctor/loader/windows_frameworks.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace doctor::loader {

namespace {

constexpr std::uint32_t k_python_flags =
    k_load_library_search_default_dirs | k_load_library_search_dll_load_dir; // 0x1100

WindowsLoadCall make_call(WindowsLoadCall::Kind kind,
                          std::string target,
                          std::uint32_t flags,
                          std::string reason,
                          std::string rule,
                          int group = -1) {
  WindowsLoadCall c;
  c.kind = kind;
  c.target = std::move(target);
  c.flags = flags;
  c.reason = std::move(reason);
  c.rule = std::move(rule);
  c.group = group;
  return c;
}

std::string env_value(const WindowsPythonProcess& p, std::string_view name) {
  const std::string want = util::to_lower(name);
  for (const auto& [k, v] : p.environment) {
    if (util::to_lower(k) == want) {
      return v;
    }
  }
  return {};
}

std::optional<Version> version_of(const facts::Fact<std::string>& f) {
  return f ? Version::parse_prefix(*f) : std::nullopt;
}

bool is_dir(FileProbe& probe, const std::string& path) {
  const PathState st = probe.probe(windows_path_key(path));
  return st.known && st.exists && st.is_dir;
}

bool is_file(FileProbe& probe, const std::string& path) {
  const PathState st = probe.probe(windows_path_key(path));
  return st.known && st.exists && !st.is_dir;
}

// The listing of `dir` the collector made, if any.
const std::vector<std::string>* listing(const WindowsPythonProcess& p, const std::string& dir) {
  const std::string key = windows_path_key(dir);
  for (const auto& [d, names] : p.listings) {
    if (windows_path_key(d) == key) {
      return &names;
    }
  }
  return nullptr;
}

// Whether `dir` holds a file glob.glob(dir\<prefix>*.dll) would find: from the listing, else by
// probing the names the CUDA version makes likely.
bool has_dll_like(const WindowsPythonProcess& p,
                  FileProbe& probe,
                  const std::string& dir,
                  std::string_view prefix,
                  const std::vector<std::string>& likely) {
  if (const auto* names = listing(p, dir)) {
    return std::any_of(names->begin(), names->end(), [&](const std::string& n) {
      const std::string l = util::to_lower(n);
      return l.starts_with(util::to_lower(prefix)) && l.ends_with(".dll");
    });
  }
  return std::any_of(likely.begin(), likely.end(), [&](const std::string& n) {
    return is_file(probe, windows_join(dir, n));
  });
}

std::string program_files(const WindowsPythonProcess& p) {
  const std::string v = env_value(p, "ProgramFiles");
  return v.empty() ? "C:\\Program Files" : v;
}

// The CUDA toolkit's default bin directory for `cuda` ("11.8" -> ...\CUDA\v11.8\bin).
std::string default_cuda_bin(const WindowsPythonProcess& p, const Version& cuda) {
  return windows_join(
      windows_join(program_files(p), "NVIDIA GPU Computing Toolkit\\CUDA\\v" + cuda.prefix(2)),
      "bin");
}

void plan_torch(const facts::Framework& fw,
                const WindowsPythonProcess& p,
                const kb::KnowledgeBase& kb,
                FileProbe& probe,
                WindowsLoadPlan& plan) {
  const auto v = version_of(fw.version);
  if (!v || *v < *Version::parse("1.5.1")) {
    plan.notes.push_back(
        "torch before 1.5.1 (or of unknown version) is not modelled: it put its "
        "directories on PATH instead of preloading torch\\lib");
    return;
  }
  const auto cuda = version_of(fw.cuda_version);
  const std::string th = windows_join(fw.location, "lib");
  const std::string exec = p.exec_prefix;
  const std::string base = p.base_exec_prefix.empty() ? exec : p.base_exec_prefix;
  std::vector<std::string> wanted{th, windows_join(exec, "Library\\bin")};
  if (windows_path_key(base) != windows_path_key(exec)) {
    wanted.push_back(windows_join(base, "Library\\bin"));
  }
  if (*v >= *Version::parse("2.3") && !p.userbase.empty()) {
    wanted.push_back(windows_join(p.userbase, "Library\\bin"));
  }
  std::vector<std::string> dll_paths;
  for (const std::string& d : wanted) {
    if (is_dir(probe, d)) {
      dll_paths.push_back(d);
    }
  }
  std::vector<std::string> extra;
  const bool has_nvtx = std::any_of(dll_paths.begin(), dll_paths.end(), [&](const auto& d) {
    return is_file(probe, windows_join(d, "nvToolsExt64_1.dll"));
  });
  if (!has_nvtx) {
    std::string nvtx = env_value(p, "NVTOOLSEXT_PATH");
    if (nvtx.empty()) {
      nvtx = windows_join(program_files(p), "NVIDIA Corporation\\NvToolsExt");
    }
    extra.push_back(windows_join(nvtx, "bin\\x64"));
  }
  if (cuda) {
    const std::vector<std::string> likely{
        fmt::format("cudart64_{}{}.dll", cuda->major(), cuda->minor()),
        fmt::format("cudart64_{}0.dll", cuda->major()),
        fmt::format("cudart64_{}.dll", cuda->major())};
    const bool has_cudart = std::any_of(dll_paths.begin(), dll_paths.end(), [&](const auto& d) {
      return has_dll_like(p, probe, d, "cudart64", likely);
    });
    if (!has_cudart) {
      std::string root =
          env_value(p, fmt::format("CUDA_PATH_V{}_{}", cuda->major(), cuda->minor()));
      extra.push_back(root.empty() ? default_cuda_bin(p, *cuda) : windows_join(root, "bin"));
    }
  }
  for (const std::string& d : extra) {
    if (is_dir(probe, d)) {
      dll_paths.push_back(d);
    }
  }
  for (const std::string& d : dll_paths) {
    plan.calls.push_back(make_call(WindowsLoadCall::Kind::add_dll_directory,
                                   d,
                                   0,
                                   "os.add_dll_directory by torch\\__init__.py",
                                   "torch.dll_directories"));
  }
  std::vector<std::string> dlls;
  if (const auto* names = listing(p, th)) {
    dlls = *names;
  } else {
    // Without a listing, look for the GPU DLLs torch bundles.
    std::vector<std::string> known{"zlibwapi.dll"};
    if (const auto cudnn = version_of(fw.cudnn_version)) {
      for (const kb::CudnnLibrarySet* s : kb.cudnn_sets(cudnn->major(), "windows")) {
        known.insert(known.end(), s->members.begin(), s->members.end());
      }
    }
    if (cuda) {
      for (const char* pattern : {"cudart64_{cuda_major}{cuda_minor}.dll",
                                  "cudart64_{cuda_major}0.dll",
                                  "cudart64_{cuda_major}.dll",
                                  "cublas64_{cuda_major}.dll",
                                  "cublasLt64_{cuda_major}.dll",
                                  "nvrtc64_{nvrtc_tag}_0.dll"}) {
        known.push_back(expand_dll_name(pattern, *cuda, 0));
      }
    }
    for (const std::string& n : known) {
      if (is_file(probe, windows_join(th, n))) {
        dlls.push_back(n);
      }
    }
    plan.notes.push_back(
        fmt::format("{} was not listed: only {} known GPU DLL names were looked "
                    "for there",
                    th,
                    known.size()));
  }
  // glob.glob returns NTFS directory order: by name, without regard to case.
  std::sort(dlls.begin(), dlls.end(), [](const std::string& a, const std::string& b) {
    return util::to_lower(a) < util::to_lower(b);
  });
  dlls.erase(std::unique(dlls.begin(), dlls.end()), dlls.end());
  const std::string prefix = util::join(dll_paths, ";");
  for (const std::string& d : dlls) {
    WindowsLoadCall c = make_call(WindowsLoadCall::Kind::load,
                                  windows_join(th, d),
                                  k_python_flags,
                                  "preloaded by torch\\__init__.py (LoadLibraryExW 0x1100)",
                                  "torch.preload");
    c.retry_path_prefix = prefix;
    c.fatal_on_error = true;
    plan.calls.push_back(std::move(c));
  }
}

void plan_tensorflow(const facts::Framework& fw,
                     const kb::KnowledgeBase& kb,
                     WindowsLoadPlan& plan) {
  const auto v = version_of(fw.version);
  if (!v) {
    plan.notes.push_back("TensorFlow's version is not known: its DLL names depend on it");
    return;
  }
  if (*v >= *Version::parse("2.11")) {
    plan.notes.push_back(
        "TensorFlow 2.11 and later have no native Windows GPU build: it loads no "
        "CUDA DLLs (use WSL2 or TensorFlow 2.10)");
    return;
  }
  const auto rules = kb.windows_rules("tensorflow", "loads", v);
  if (rules.empty()) {
    plan.notes.push_back(
        fmt::format("no DLL list for TensorFlow {} in windows_loading.json", v->str()));
  }
  for (const kb::WindowsLoadingRule* r : rules) {
    for (const std::string& d : r->dlls) {
      plan.calls.push_back(make_call(WindowsLoadCall::Kind::load,
                                     d,
                                     r->flags,
                                     "loaded by TensorFlow's dso_loader (LoadLibraryExW, "
                                     "LOAD_WITH_ALTERED_SEARCH_PATH, bare name)",
                                     r->id));
    }
  }
}

void plan_paddle(const facts::Framework& fw,
                 const WindowsPythonProcess& p,
                 const kb::KnowledgeBase& kb,
                 FileProbe& probe,
                 WindowsLoadPlan& plan) {
  std::string core_dir = windows_join(fw.location, "base");
  if (!is_dir(probe, core_dir)) {
    core_dir = windows_join(fw.location, "fluid");
  }
  const std::string libs = windows_join(fw.location, "libs");
  plan.calls.push_back(make_call(WindowsLoadCall::Kind::prepend_path,
                                 core_dir + ";" + libs,
                                 0,
                                 "PATH changed by paddle's core.py",
                                 "paddle.path_and_dll_directory"));
  if (p.python_minor >= 8) {
    plan.calls.push_back(make_call(WindowsLoadCall::Kind::add_dll_directory,
                                   libs,
                                   0,
                                   "os.add_dll_directory by paddle's core.py",
                                   "paddle.path_and_dll_directory"));
  }
  const auto cuda = version_of(fw.cuda_version);
  const auto cudnn = version_of(fw.cudnn_version);
  if (!cuda || !cudnn) {
    plan.notes.push_back(
        "Paddle's CUDA or cuDNN version is not known: its DLL names depend on them");
    return;
  }
  int group = 0;
  for (const kb::WindowsLoadingRule* r :
       kb.windows_rules("paddle", "loads", version_of(fw.version))) {
    for (const std::string& entry : r->dlls) {
      const bool is_cudnn = entry.starts_with("cudnn");
      const std::string flag_dir = env_value(p, is_cudnn ? "FLAGS_cudnn_dir" : "FLAGS_cuda_dir");
      for (std::string_view alt : util::split(entry, ';')) {
        const std::string name = expand_dll_name(alt, *cuda, cudnn->major());
        const std::string why = fmt::format("loaded by Paddle's dynamic_loader ({})", entry);
        if (!flag_dir.empty()) {
          plan.calls.push_back(
              make_call(WindowsLoadCall::Kind::load,
                        windows_join(flag_dir, name),
                        0,
                        why + " from FLAGS_" + (is_cudnn ? "cudnn" : "cuda") + "_dir",
                        r->id,
                        group));
        }
        plan.calls.push_back(make_call(WindowsLoadCall::Kind::load, name, 0, why, r->id, group));
        plan.calls.push_back(
            make_call(WindowsLoadCall::Kind::load,
                      windows_join(default_cuda_bin(p, *cuda), name),
                      0,
                      why
                          + " from the CUDA directory compiled in (assumed the default "
                            "install location)",
                      r->id,
                      group));
      }
      ++group;
    }
  }
}

// The nvidia-* wheel directory a preload_dlls DLL comes from.
std::string nvidia_package_of(std::string_view dll) {
  const std::string l = util::to_lower(dll);
  if (l.starts_with("cudnn")) {
    return "cudnn";
  }
  if (l.starts_with("cublas")) {
    return "cublas";
  }
  if (l.starts_with("cufft")) {
    return "cufft";
  }
  return "cuda_runtime";
}

void plan_onnxruntime(const facts::Framework& fw,
                      const WindowsPythonProcess& p,
                      const kb::KnowledgeBase& kb,
                      WindowsLoadPlan& plan) {
  const auto v = version_of(fw.version);
  int group = 0;
  if (p.calls_ort_preload_dlls) {
    for (const kb::WindowsLoadingRule* r : kb.windows_rules("onnxruntime", "loads", v)) {
      for (const std::string& d : r->dlls) {
        const std::string dir = windows_join(
            windows_join(windows_join(p.site_packages, "nvidia"), nvidia_package_of(d)), "bin");
        plan.calls.push_back(make_call(WindowsLoadCall::Kind::load,
                                       windows_join(dir, d),
                                       k_python_flags,
                                       "onnxruntime.preload_dlls: ctypes.CDLL with the wheel path",
                                       r->id,
                                       group));
        plan.calls.push_back(make_call(WindowsLoadCall::Kind::load,
                                       d,
                                       k_load_library_search_default_dirs,
                                       "onnxruntime.preload_dlls: ctypes.CDLL by name",
                                       r->id,
                                       group));
        ++group;
      }
    }
    plan.notes.push_back(
        "onnxruntime.preload_dlls() takes torch\\lib instead when a CUDA 12 "
        "torch is installed; that case is not modelled");
  }
  const std::string capi = windows_join(fw.location, "capi");
  for (const char* dll : {"onnxruntime_providers_shared.dll", "onnxruntime_providers_cuda.dll"}) {
    plan.calls.push_back(make_call(WindowsLoadCall::Kind::load,
                                   windows_join(capi, dll),
                                   k_load_with_altered_search_path,
                                   "loaded by ONNX Runtime for the CUDA execution provider "
                                   "(LoadLibraryExW, LOAD_WITH_ALTERED_SEARCH_PATH)",
                                   "onnxruntime.provider_library"));
  }
}

// Whether a rule for the cuDNN versions `range` may hold for some release of `major` ("8.3-8.9"
// and ">=9.21" may, for 8 and 9).
bool may_apply_to_major(std::string_view range, unsigned major) {
  if (range.empty()) {
    return true;
  }
  const auto major_of = [](std::string_view v) {
    return Version::parse_prefix(v).value_or(Version{}).major();
  };
  if (range.starts_with(">=")) {
    return major_of(range.substr(2)) <= major;
  }
  if (range.starts_with("<=")) {
    return major_of(range.substr(2)) >= major;
  }
  const auto dash = range.find('-');
  if (dash == std::string_view::npos) {
    return major_of(range) == major;
  }
  return major_of(range.substr(0, dash)) <= major && major <= major_of(range.substr(dash + 1));
}

// The Visual C++ runtime DLLs a DLL built with MSVC imports (the VC++ 2015-2022 Redistributable:
// msvcp140*.dll, vcruntime140*.dll, concrt140.dll, vcomp140.dll).
bool is_vc_runtime(std::string_view dll) {
  const std::string n = util::to_lower(windows_file_name(dll));
  return n.ends_with(".dll")
         && (n.starts_with("msvcp140") || n.starts_with("vcruntime140") || n == "concrt140.dll"
             || n == "vcomp140.dll");
}

// The cuDNN version a loaded cuDNN DLL's version resource names (FileVersion, else
// ProductVersion: "8.9.4.19"), if its headers were read and it has one.
std::optional<Version> pe_version(const facts::BinaryInfo* binary) {
  if (binary == nullptr || binary->format != "pe") {
    return std::nullopt;
  }
  for (const std::string* v : {&binary->file_version, &binary->product_version}) {
    if (auto parsed = Version::parse_prefix(*v); parsed && !parsed->empty()) {
      return parsed;
    }
  }
  return std::nullopt;
}

// Runs a plan and cuDNN's run-time loads, keeping the process state.
class Simulator {
public:
  Simulator(const WindowsPythonProcess& process,
            const kb::KnowledgeBase& kb,
            FileProbe& probe,
            std::optional<Version> framework_version,
            std::optional<Version> cuda,
            std::optional<Version> cudnn)
      : m_kb(kb)
      , m_probe(probe)
      , m_config(process.loader)
      , m_framework_version(std::move(framework_version))
      , m_cuda(std::move(cuda))
      , m_cudnn(std::move(cudnn)) {}

  void run_plan(const WindowsLoadPlan& plan, WindowsLoadContext& ctx);
  const std::vector<LoadedModule>& loaded_modules() const { return m_loaded; }
  void note_cudnn_version_mix(WindowsLoadContext& ctx) const;
  void cudnn_run_time(WindowsLoadContext& ctx);
  unsigned load(WindowsLoadContext& ctx,
                const std::string& dll,
                std::uint32_t flags,
                const std::string& requested_by,
                const std::string& reason,
                const std::string& rule);

private:
  unsigned resolve_in_operation(WindowsLoadContext& ctx,
                                const std::string& name,
                                std::uint32_t flags,
                                const std::string& load_dir,
                                const std::string& requested_by,
                                const std::string& reason,
                                const std::string& rule,
                                int depth,
                                std::vector<LoadedModule>& pending);
  std::vector<std::string> imports_of(const Candidate& c) const;
  const LoadedModule* loaded(std::string_view name) const;
  void annotate(WindowsLoadStep& step) const;

  const kb::KnowledgeBase& m_kb;
  FileProbe& m_probe;
  WindowsLoaderConfig m_config;
  std::vector<LoadedModule> m_loaded;
  std::optional<Version> m_framework_version;
  std::optional<Version> m_cuda;
  std::optional<Version> m_cudnn;
};

const LoadedModule* Simulator::loaded(std::string_view name) const {
  const std::string key = util::to_lower(name);
  for (const LoadedModule& m : m_loaded) {
    if (util::to_lower(windows_file_name(m.name)) == key) {
      return &m;
    }
  }
  return nullptr;
}

// The imports of a found DLL that are followed: its PE import table when read, else the
// windows_loading.json "imports" rows for its name. GPU DLLs and the Visual C++ runtime are
// followed: a missing static import fails the whole LoadLibrary with error 126 (LoadLibraryExW
// reference, Return value), and MSVCP140.dll missing on a machine without the VC++
// Redistributable is a common cause of it. System DLLs (KERNEL32, API sets) are not: they are
// always there, and API sets are not modelled.
std::vector<std::string> Simulator::imports_of(const Candidate& c) const {
  std::vector<std::string> out;
  const std::string file = util::to_lower(windows_file_name(c.path));
  if (c.binary != nullptr && c.binary->format == "pe") {
    for (const std::string& n : c.binary->needed) {
      if (windows_role_of(n) != LibraryRole::other || is_vc_runtime(n)) {
        out.push_back(n);
      }
    }
    return out;
  }
  for (const kb::WindowsLoadingRule& r : m_kb.windows_loading()) {
    if (r.action != "imports" || util::to_lower(r.caller) != file) {
      continue;
    }
    const std::optional<Version>& v = r.subject == "cudnn" ? m_cudnn : m_framework_version;
    if (!v || r.applies_to(*v)) {
      out.insert(out.end(), r.dlls.begin(), r.dlls.end());
    }
  }
  return out;
}

// A DLL and its imports are one load operation: Windows keeps the operation's search mode for
// every import, and if one import is missing the whole LoadLibrary fails (126) and nothing it
// mapped stays loaded, so the modules found are committed only on success.
unsigned Simulator::resolve_in_operation(WindowsLoadContext& ctx,
                                         const std::string& name,
                                         std::uint32_t flags,
                                         const std::string& load_dir,
                                         const std::string& requested_by,
                                         const std::string& reason,
                                         const std::string& rule,
                                         int depth,
                                         std::vector<LoadedModule>& pending) {
  WindowsLoadRequest request{flags, load_dir, requested_by, m_loaded};
  request.loaded.insert(request.loaded.end(), pending.begin(), pending.end());
  WindowsLoadStep step;
  step.resolution = resolve_windows(name, request, m_config, m_probe);
  step.dll = name;
  step.flags = flags;
  step.load_dir = load_dir;
  step.role = windows_role_of(windows_file_name(name));
  step.reason = reason;
  step.rule = rule;
  const std::optional<Candidate> chosen = step.resolution.chosen;
  step.error = !chosen ? k_error_mod_not_found : step.resolution.fatal_error;
  annotate(step);
  const std::size_t index = ctx.steps.size();
  ctx.steps.push_back(std::move(step));
  if (!chosen || ctx.steps[index].error != 0 || chosen->via == FoundVia::loaded_module) {
    return ctx.steps[index].error;
  }
  pending.push_back({windows_file_name(chosen->path), chosen->path});
  if (depth >= 4) {
    return 0;
  }
  for (const std::string& dep : imports_of(*chosen)) {
    const unsigned e = resolve_in_operation(ctx,
                                            dep,
                                            flags,
                                            load_dir,
                                            chosen->path,
                                            "import of " + chosen->path,
                                            "",
                                            depth + 1,
                                            pending);
    if (e != 0) {
      ctx.steps[index].error = e;
      ctx.steps[index].notes.push_back(fmt::format(
          "the load fails with error {}: its import {} {}",
          e,
          dep,
          e == k_error_bad_exe_format ? "is a DLL of another architecture" : "was not found"));
      return e;
    }
  }
  return 0;
}

unsigned Simulator::load(WindowsLoadContext& ctx,
                         const std::string& dll,
                         std::uint32_t flags,
                         const std::string& requested_by,
                         const std::string& reason,
                         const std::string& rule) {
  const std::string load_dir = is_absolute_windows_path(dll) ? windows_parent(dll) : std::string();
  std::vector<LoadedModule> pending;
  const unsigned e =
      resolve_in_operation(ctx, dll, flags, load_dir, requested_by, reason, rule, 0, pending);
  if (e == 0) {
    m_loaded.insert(m_loaded.end(), pending.begin(), pending.end());
  }
  return e;
}

void Simulator::run_plan(const WindowsLoadPlan& plan, WindowsLoadContext& ctx) {
  std::set<int> satisfied;
  bool path_patched = false;
  for (const WindowsLoadCall& c : plan.calls) {
    if (c.kind == WindowsLoadCall::Kind::add_dll_directory) {
      m_config.user_dirs.push_back(c.target);
      continue;
    }
    if (c.kind == WindowsLoadCall::Kind::prepend_path) {
      m_config.path = c.target + (m_config.path.empty() ? "" : ";" + m_config.path);
      continue;
    }
    if (c.group >= 0 && satisfied.count(c.group) != 0) {
      continue;
    }
    unsigned e = load(ctx, c.target, c.flags, "", c.reason, c.rule);
    if (e == k_error_mod_not_found && !c.retry_path_prefix.empty()) {
      if (!path_patched) {
        m_config.path = c.retry_path_prefix + ";" + m_config.path;
        path_patched = true;
      }
      e = load(ctx,
               c.target,
               0,
               "",
               "retried by torch\\__init__.py with LoadLibraryW after putting its DLL "
               "directories on PATH",
               c.rule);
    }
    if (e == 0 && c.group >= 0) {
      satisfied.insert(c.group);
    }
    if (e != 0 && c.fatal_on_error) {
      ctx.import_failed = true;
      ctx.notes.push_back(
          fmt::format("the import fails: error {} loading \"{}\" or one of its "
                      "dependencies",
                      e,
                      c.target));
      return;
    }
  }
}

// cuDNN opens its sub-DLLs and helpers itself, by bare name, at run time: those LoadLibrary calls
// use the process default order (the standard order, PATH included, unless the process called
// SetDefaultDllDirectories), not the flags the framework loaded cuDNN with.
void Simulator::cudnn_run_time(WindowsLoadContext& ctx) {
  std::string dispatcher;
  for (const LoadedModule& m : m_loaded) {
    if (windows_role_of(m.name) == LibraryRole::cudnn_dispatcher) {
      dispatcher = m.path;
      break;
    }
  }
  if (dispatcher.empty()) {
    return;
  }
  // "cudnn64_8.dll" -> 8
  const std::string file = util::to_lower(windows_file_name(dispatcher));
  const auto major = Version::parse_prefix(file.substr(file.find('_') + 1)).value_or(Version{});
  // What runs is the cuDNN that was loaded, not the one the framework was built with (TensorFlow
  // 2.10 was built with 8.1 and loads whatever cuDNN 8 is on PATH): a loaded DLL's version
  // resource decides which of its run-time loads apply, the framework's cuDNN version only when
  // the DLL has none.
  const auto loaded_version = [&](const std::string& path) -> std::optional<Version> {
    auto v = pe_version(m_probe.probe(windows_path_key(path)).binary);
    return v && v->major() == major.major() ? v : std::nullopt;
  };
  std::optional<Version> fallback = loaded_version(dispatcher);
  if (!fallback && m_cudnn && m_cudnn->major() == major.major()) {
    fallback = m_cudnn;
  }
  if (!fallback) {
    ctx.notes.push_back(
        fmt::format("the exact version of {} is not known: run-time loads that "
                    "only some cuDNN {} releases make are included and marked",
                    dispatcher,
                    major.major()));
  }
  const Version cuda = m_cuda.value_or(Version{});
  for (const kb::WindowsLoadingRule* r : m_kb.windows_rules("cudnn", "loads", std::nullopt)) {
    const LoadedModule* caller = loaded(r->caller);
    if (caller == nullptr) {
      continue; // the calling DLL itself never loaded
    }
    const std::string caller_path = caller->path;
    std::optional<Version> version = loaded_version(caller_path);
    if (!version) {
      version = fallback;
    }
    const bool certain =
        version ? r->applies_to(*version) : r->versions.empty() || r->versions == major.str();
    if (!certain && (version || !may_apply_to_major(r->versions, major.major()))) {
      continue;
    }
    for (const std::string& entry : r->dlls) {
      for (std::string_view alt : util::split(entry, ';')) {
        const std::string name = expand_dll_name(alt, cuda, major.major());
        if (name.empty()) {
          ctx.notes.push_back(
              fmt::format("{} asks for {}, but the CUDA version is not known", r->caller, alt));
          continue;
        }
        const std::size_t first = ctx.steps.size();
        const unsigned e =
            load(ctx, name, r->flags, caller_path, "opened at run time by " + caller_path, r->id);
        if (!certain && first < ctx.steps.size()) {
          ctx.steps[first].notes.push_back(fmt::format(
              "asked for only by cuDNN {}; this cuDNN's exact version is not known", r->versions));
        }
        if (e == 0) {
          break;
        }
      }
    }
  }
}

// cuDNN 8's sub-libraries check that the DLLs they depend on come from the same release
// (cudnnOpsInferVersionCheck and its siblings return CUDNN_STATUS_VERSION_MISMATCH otherwise,
// cuDNN 8 API reference); yet each DLL is searched for on its own, so PATH can mix two
// releases. Every cuDNN DLL found whose version
// resource differs from the loaded dispatcher's is marked.
void Simulator::note_cudnn_version_mix(WindowsLoadContext& ctx) const {
  const LoadedModule* dispatcher = nullptr;
  for (const LoadedModule& m : m_loaded) {
    if (windows_role_of(m.name) == LibraryRole::cudnn_dispatcher) {
      dispatcher = &m;
      break;
    }
  }
  if (dispatcher == nullptr) {
    return;
  }
  const auto want = pe_version(m_probe.probe(windows_path_key(dispatcher->path)).binary);
  if (!want) {
    return;
  }
  for (WindowsLoadStep& step : ctx.steps) {
    const auto& chosen = step.resolution.chosen;
    if (!chosen || chosen->via == FoundVia::loaded_module
        || step.role != LibraryRole::cudnn_sublibrary) {
      continue;
    }
    const auto have = pe_version(chosen->binary);
    if (have && have->major() == want->major() && *have != *want) {
      step.notes.push_back(
          fmt::format("{} is cuDNN {}, but {} is cuDNN {}: the cuDNN DLLs come "
                      "from two releases, and cuDNN fails its version check "
                      "(CUDNN_STATUS_VERSION_MISMATCH)",
                      chosen->path,
                      have->str(),
                      dispatcher->path,
                      want->str()));
    }
  }
}

// Notes a report needs: copies placed by hand in a Windows system directory (no CUDA or cuDNN
// installer puts them there, and they come before every PATH directory for every program), and
// the copies the winner shadows.
void Simulator::annotate(WindowsLoadStep& step) const {
  const Resolution& r = step.resolution;
  if (!r.chosen) {
    return;
  }
  const FoundVia via = r.chosen->via;
  const bool system_dir =
      via == FoundVia::system32 || via == FoundVia::system16 || via == FoundVia::windows_dir;
  if (system_dir && step.role != LibraryRole::driver && step.role != LibraryRole::other) {
    step.notes.push_back(fmt::format(
        "{} is in a Windows system directory, where no CUDA or cuDNN installer puts it: it was "
        "copied there by hand, and it comes before every PATH directory for every program on "
        "this machine",
        r.chosen->path));
  }
  if (r.fatal_error != 0) {
    step.notes.push_back(fmt::format(
        "{} is found first but cannot be loaded into this process: LoadLibrary fails with error "
        "{} and Windows does not look further{}",
        r.chosen->path,
        r.fatal_error,
        r.shadowed.empty() ? std::string()
                           : fmt::format(" (a loadable copy is at {})", r.shadowed.front().path)));
    return;
  }
  if (!r.shadowed.empty()) {
    std::vector<std::string> paths;
    for (const Candidate& c : r.shadowed) {
      paths.push_back(c.path);
    }
    step.notes.push_back(fmt::format("{} shadows {}", r.chosen->path, util::join(paths, ", ")));
  }
}

} // namespace

LibraryRole windows_role_of(std::string_view dll) {
  const std::string n = util::to_lower(windows_file_name(dll));
  if (n.starts_with("cudnn64_")) {
    return LibraryRole::cudnn_dispatcher;
  }
  if (n.starts_with("cudnn_")) {
    return LibraryRole::cudnn_sublibrary;
  }
  if (n.starts_with("cudart64")) {
    return LibraryRole::cuda_runtime;
  }
  if (n == "nvcuda.dll" || n == "nvml.dll") {
    return LibraryRole::driver;
  }
  if (n == "zlibwapi.dll") {
    return LibraryRole::zlib;
  }
  // The CUDA math and helper libraries, by file-name prefix.
  for (std::string_view p : util::split("cublas cufft curand cusolver cusparse nvrtc nvjitlink "
                                        "nccl nvtoolsext cupti",
                                        ' ')) {
    if (n.starts_with(p)) {
      return LibraryRole::cuda_library;
    }
  }
  return LibraryRole::other;
}

std::string expand_dll_name(std::string_view pattern, const Version& cuda, unsigned cudnn_major) {
  const bool needs_cuda = pattern.find("{cuda_") != std::string_view::npos
                          || pattern.find("{nvrtc_tag}") != std::string_view::npos;
  if (needs_cuda && cuda.empty()) {
    return {};
  }
  // nvrtc64_<tag>_0.dll: 112 for every CUDA 11.2+ (minor-version compatible), <major>0 from 12.
  const unsigned tag = cuda.major() >= 12   ? cuda.major() * 10
                       : cuda.major() == 11 ? 110 + std::min(cuda.minor(), 2U)
                                            : cuda.major() * 10 + cuda.minor();
  std::string out = util::replace_all(pattern, "{cuda_major}", std::to_string(cuda.major()));
  out = util::replace_all(out, "{cuda_minor}", std::to_string(cuda.minor()));
  out = util::replace_all(out, "{nvrtc_tag}", std::to_string(tag));
  return util::replace_all(out, "{cudnn_major}", std::to_string(cudnn_major));
}

WindowsLoadPlan plan_windows_framework(const facts::Framework& framework,
                                       const WindowsPythonProcess& process,
                                       const kb::KnowledgeBase& kb,
                                       FileProbe& probe) {
  WindowsLoadPlan plan;
  if (framework.name == "torch") {
    plan_torch(framework, process, kb, probe, plan);
  } else if (framework.name == "tensorflow") {
    plan_tensorflow(framework, kb, plan);
  } else if (framework.name == "paddle") {
    plan_paddle(framework, process, kb, probe, plan);
  } else if (framework.name == "onnxruntime") {
    plan_onnxruntime(framework, process, kb, plan);
  } else {
    plan.notes.push_back("how " + framework.name + " loads its DLLs on Windows is not modelled");
  }
  return plan;
}

WindowsLoadContext simulate_windows_program(const std::vector<std::string>& dlls,
                                            const WindowsPythonProcess& process,
                                            const kb::KnowledgeBase& kb,
                                            FileProbe& probe) {
  WindowsLoadContext ctx;
  ctx.id = "program";
  ctx.description = "a program that calls LoadLibrary by name (the standard search order, PATH)";
  WindowsLoadPlan plan;
  for (const std::string& dll : dlls) {
    WindowsLoadCall call;
    call.kind = WindowsLoadCall::Kind::load;
    call.target = dll;
    call.reason = "LoadLibraryW by name";
    plan.calls.push_back(std::move(call));
  }
  Simulator sim(process, kb, probe, std::nullopt, std::nullopt, std::nullopt);
  sim.run_plan(plan, ctx);
  sim.cudnn_run_time(ctx);
  sim.note_cudnn_version_mix(ctx);
  ctx.loaded = sim.loaded_modules();
  return ctx;
}

WindowsLoadContext simulate_windows_framework(const facts::Framework& framework,
                                              const WindowsPythonProcess& process,
                                              const kb::KnowledgeBase& kb,
                                              FileProbe& probe) {
  WindowsLoadContext ctx;
  ctx.id = framework.name + ":" + process.exec_prefix;
  ctx.description = fmt::format("{} {} in {}",
                                framework.name,
                                framework.version.value_or("(version unknown)"),
                                process.exec_prefix);
  const WindowsLoadPlan plan = plan_windows_framework(framework, process, kb, probe);
  ctx.notes = plan.notes;
  Simulator sim(process,
                kb,
                probe,
                version_of(framework.version),
                version_of(framework.cuda_version),
                version_of(framework.cudnn_version));
  sim.run_plan(plan, ctx);
  if (!ctx.import_failed) {
    sim.cudnn_run_time(ctx);
  }
  sim.note_cudnn_version_mix(ctx);
  ctx.loaded = sim.loaded_modules();
  return ctx;
}

WindowsLoadContext simulate_python_extension(std::string_view pyd_path,
                                             const WindowsPythonProcess& process,
                                             const kb::KnowledgeBase& kb,
                                             FileProbe& probe) {
  WindowsLoadContext ctx;
  ctx.id = "extension:" + std::string(pyd_path);
  ctx.description = "Python import of " + std::string(pyd_path);
  Simulator sim(process, kb, probe, std::nullopt, std::nullopt, std::nullopt);
  const WindowsLoadRequest req = python_extension_request(pyd_path, process.python_minor);
  sim.load(ctx, std::string(pyd_path), req.flags, "", req.requested_by, "python.extension_modules");
  ctx.loaded = sim.loaded_modules();
  return ctx;
}

} // namespace doctor::loader
