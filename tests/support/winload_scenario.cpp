// SPDX-License-Identifier: MIT
// Test-only tool for the Windows loader scenarios (tests/winloader): runs the Windows DLL loader
// model (loader/windows_search.hpp, loader/windows_frameworks.hpp) over a tree of real DLLs that
// mingw-w64 built on this machine, and prints what it decided as JSON.
//
//   winload_scenario DESCRIPTION.json
//
// The description names the Windows drives and the host directories that hold them
// ({"drives": {"C:": "/tmp/x/C"}}), the loader state ("loader": WindowsLoaderConfig's fields),
// and what to run: "requests" (resolve_windows), "frameworks" (simulate_windows_framework, in the
// Python process "python") and "extensions" (simulate_python_extension). Windows paths are mapped
// onto the host tree without regard to case, as NTFS looks names up; PE headers are read with
// collect::read_binary. Exits 0 on success, 2 on a bad description or an ambiguous tree.
#include <doctor/collect/binary_reader.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/windows_frameworks.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/strings.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

namespace {

using doctor::loader::Candidate;
using doctor::loader::PathState;
using doctor::loader::Resolution;
using Json = nlohmann::ordered_json;

// A file of the host tree found for a Windows path.
struct Mapped {
  bool exists = false;
  bool is_dir = false;
  const doctor::platform::SysRoot* root = nullptr;
  std::string inner;   // "/Windows/System32/kernel32.dll": the path inside the drive's root
  std::string windows; // "C:\Windows\System32\kernel32.dll": the same, in the tree's own case
};

// Maps Windows paths onto host directories, one per drive letter. Each component is looked up
// without regard to case; two entries of one directory that differ only in case make the tree
// ambiguous (NTFS would not hold them), which is an error.
class DriveMap {
public:
  void add(const std::string& drive, const std::string& host_dir) {
    if (drive.size() < 2 || drive[1] != ':') {
      throw std::runtime_error("drive must look like \"C:\", not \"" + drive + "\"");
    }
    const std::string letter = doctor::util::to_lower(drive.substr(0, 1));
    m_drives[letter] = {
        std::string(1, static_cast<char>(std::toupper(drive[0]))) + ":",
        std::make_unique<doctor::platform::SysRoot>(
            host_dir, doctor::platform::Environment{}, doctor::platform::OsFamily::windows, false)};
  }

  Mapped map(const std::string& windows_path) const {
    const std::string key = doctor::loader::windows_path_key(windows_path);
    Mapped out;
    if (key.size() < 2 || key[1] != ':') {
      return out; // UNC and relative paths are not part of a scenario tree
    }
    const auto drive = m_drives.find(key.substr(0, 1));
    if (drive == m_drives.end()) {
      return out;
    }
    out.root = drive->second.root.get();
    out.inner = "/";
    out.windows = drive->second.display + "\\";
    out.is_dir = true;
    out.exists = true;
    const std::string rest = key.size() > 3 ? key.substr(3) : std::string();
    for (std::string_view part : doctor::util::split(rest, '\\')) {
      if (part.empty()) {
        continue;
      }
      if (!out.is_dir) {
        return Mapped{};
      }
      auto entries = out.root->list_dir(out.inner);
      if (!entries) {
        return Mapped{};
      }
      const doctor::platform::DirEntry* hit = nullptr;
      for (const doctor::platform::DirEntry& e : *entries) {
        if (doctor::util::to_lower(e.name) != part) {
          continue;
        }
        if (hit != nullptr) {
          throw std::runtime_error("ambiguous tree: " + hit->name + " and " + e.name + " in "
                                   + out.inner);
        }
        hit = &e;
      }
      if (hit == nullptr) {
        return Mapped{};
      }
      out.inner += (out.inner.back() == '/' ? "" : "/") + hit->name;
      out.windows += (out.windows.back() == '\\' ? "" : "\\") + hit->name;
      out.is_dir = hit->kind == doctor::platform::FileKind::directory;
    }
    return out;
  }

private:
  struct Drive {
    std::string display;
    std::unique_ptr<doctor::platform::SysRoot> root;
  };
  std::map<std::string, Drive> m_drives;
};

// The FileProbe of a scenario: existence and real case from the tree, PE headers read once per
// file (the BinaryInfo must outlive every Resolution that points at it).
class TreeProbe final : public doctor::loader::FileProbe {
public:
  explicit TreeProbe(const DriveMap& drives)
      : m_drives(drives) {}

  PathState probe(const std::string& path) override {
    const Mapped m = m_drives.map(path);
    PathState st;
    st.exists = m.exists;
    st.is_dir = m.is_dir;
    if (!m.exists) {
      return st;
    }
    st.real_path = m.windows;
    if (!m.is_dir) {
      auto& slot = m_binaries[m.windows];
      if (!slot) {
        slot = std::make_unique<doctor::facts::BinaryInfo>(
            doctor::collect::read_binary(*m.root, m.inner));
      }
      st.binary = slot.get();
    }
    return st;
  }

  // The names in directory `windows_path`, sorted by name.
  std::vector<std::string> list(const std::string& windows_path) const {
    const Mapped m = m_drives.map(windows_path);
    if (!m.exists || !m.is_dir) {
      throw std::runtime_error("cannot list " + windows_path + ": no such directory in the tree");
    }
    std::vector<std::string> out;
    if (auto entries = m.root->list_dir(m.inner)) {
      for (const doctor::platform::DirEntry& e : *entries) {
        if (e.kind == doctor::platform::FileKind::regular) {
          out.push_back(e.name);
        }
      }
    }
    return out;
  }

private:
  const DriveMap& m_drives;
  std::map<std::string, std::unique_ptr<doctor::facts::BinaryInfo>> m_binaries;
};

template<typename T>
T get_or(const Json& j, const char* key, T fallback) {
  return j.contains(key) && !j[key].is_null() ? j[key].get<T>() : fallback;
}

doctor::loader::WindowsLoaderConfig loader_config(const Json& j) {
  doctor::loader::WindowsLoaderConfig c;
  c.windows_dir = get_or<std::string>(j, "windows_dir", c.windows_dir);
  c.system32 = get_or<std::string>(j, "system32", "");
  c.system16 = get_or<std::string>(j, "system16", "");
  c.known_dlls = get_or<std::vector<std::string>>(j, "known_dlls", {});
  c.safe_dll_search_mode = get_or<bool>(j, "safe_dll_search_mode", true);
  c.process_bits = get_or<unsigned>(j, "process_bits", 64);
  c.process_machine = get_or<std::string>(j, "process_machine", "x64");
  c.application_dir = get_or<std::string>(j, "application_dir", "");
  c.current_dir = get_or<std::string>(j, "current_dir", "");
  c.path = get_or<std::string>(j, "path", "");
  c.user_dirs = get_or<std::vector<std::string>>(j, "user_dirs", {});
  if (j.contains("dll_directory") && !j["dll_directory"].is_null()) {
    c.dll_directory = j["dll_directory"].get<std::string>();
  }
  c.default_dll_directories = get_or<std::uint32_t>(j, "default_dll_directories", 0);
  return c;
}

std::vector<doctor::loader::LoadedModule> loaded_modules(const Json& j) {
  std::vector<doctor::loader::LoadedModule> out;
  for (const Json& m : get_or<Json>(j, "loaded", Json::array())) {
    out.push_back({m.at("name").get<std::string>(), m.at("path").get<std::string>()});
  }
  return out;
}

Json candidate_json(const Candidate& c) {
  Json j;
  j["path"] = c.path;
  j["real_path"] = c.real_path;
  j["via"] = std::string(to_string(c.via));
  j["source"] = c.source;
  if (c.binary != nullptr) {
    j["format"] = c.binary->format;
    j["bits"] = c.binary->bits;
    j["machine"] = c.binary->machine;
    j["file_version"] = c.binary->file_version;
    j["product_version"] = c.binary->product_version;
    j["product_name"] = c.binary->product_name;
    j["imports"] = c.binary->needed;
  }
  return j;
}

Json resolution_json(const Resolution& r) {
  Json j;
  j["name"] = r.name;
  j["requested_by"] = r.requested_by;
  j["chosen"] = r.chosen ? candidate_json(*r.chosen) : Json();
  j["fatal_error"] = r.fatal_error;
  j["unknown"] = r.unknown;
  j["shadowed"] = Json::array();
  for (const Candidate& c : r.shadowed) {
    j["shadowed"].push_back(candidate_json(c));
  }
  j["steps"] = Json::array();
  for (const auto& s : r.steps) {
    j["steps"].push_back({{"via", std::string(to_string(s.via))},
                          {"source", s.source},
                          {"path", s.path},
                          {"outcome", s.outcome},
                          {"found", s.found}});
  }
  return j;
}

// One request: its resolution, and every import of the chosen DLL resolved the way the same load
// operation resolves it (same flags; the DLL's directory as the load directory when the
// operation was started by full path; the DLL itself already in the loaded-module list).
Json run_request(const Json& req,
                 const doctor::loader::WindowsLoaderConfig& config,
                 TreeProbe& probe) {
  doctor::loader::WindowsLoadRequest r;
  r.flags = get_or<std::uint32_t>(req, "flags", 0);
  r.load_dir = get_or<std::string>(req, "load_dir", "");
  r.requested_by = get_or<std::string>(req, "requested_by", "");
  r.loaded = loaded_modules(req);
  const std::string name = req.at("name").get<std::string>();
  if (r.load_dir.empty() && doctor::loader::is_absolute_windows_path(name)) {
    r.load_dir = doctor::loader::windows_parent(name);
  }
  const Resolution res = doctor::loader::resolve_windows(name, r, config, probe);
  Json j = resolution_json(res);
  j["imports"] = Json::array();
  j["missing_imports"] = Json::array();
  if (!res.chosen || res.fatal_error != 0 || res.chosen->binary == nullptr) {
    return j;
  }
  doctor::loader::WindowsLoadRequest dep = r;
  dep.requested_by = res.chosen->path;
  dep.loaded.push_back({doctor::loader::windows_file_name(res.chosen->path), res.chosen->path});
  for (const std::string& import : res.chosen->binary->needed) {
    const Resolution d = doctor::loader::resolve_windows(import, dep, config, probe);
    j["imports"].push_back(
        {{"name", import},
         {"found", d.chosen ? Json(d.chosen->path) : Json()},
         {"via", d.chosen ? Json(std::string(to_string(d.chosen->via))) : Json()},
         {"fatal_error", d.fatal_error}});
    if (!d.chosen || d.fatal_error != 0) {
      j["missing_imports"].push_back(import);
    }
  }
  return j;
}

Json context_json(const doctor::loader::WindowsLoadContext& ctx) {
  Json j;
  j["id"] = ctx.id;
  j["description"] = ctx.description;
  j["import_failed"] = ctx.import_failed;
  j["notes"] = ctx.notes;
  j["loaded"] = Json::array();
  for (const auto& m : ctx.loaded) {
    j["loaded"].push_back({{"name", m.name}, {"path", m.path}});
  }
  j["steps"] = Json::array();
  for (const auto& s : ctx.steps) {
    Json step;
    step["dll"] = s.dll;
    step["flags"] = s.flags;
    step["load_dir"] = s.load_dir;
    step["reason"] = s.reason;
    step["rule"] = s.rule;
    step["error"] = s.error;
    step["notes"] = s.notes;
    step["resolution"] = resolution_json(s.resolution);
    j["steps"].push_back(std::move(step));
  }
  return j;
}

doctor::facts::Fact<std::string> fact_of(const Json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) {
    return doctor::facts::Fact<std::string>::unknown("not given by the scenario");
  }
  return doctor::facts::Fact<std::string>::known(j[key].get<std::string>(), "scenario");
}

doctor::loader::WindowsPythonProcess python_process(const Json& j,
                                                    const doctor::loader::WindowsLoaderConfig& c,
                                                    const TreeProbe& probe) {
  doctor::loader::WindowsPythonProcess p;
  p.exec_prefix = get_or<std::string>(j, "exec_prefix", "");
  p.base_exec_prefix = get_or<std::string>(j, "base_exec_prefix", "");
  p.userbase = get_or<std::string>(j, "userbase", "");
  p.site_packages = get_or<std::string>(j, "site_packages", "");
  p.python_minor = get_or<unsigned>(j, "python_minor", 10);
  p.loader = c;
  p.environment = get_or<std::map<std::string, std::string>>(j, "environment", {});
  p.calls_ort_preload_dlls = get_or<bool>(j, "calls_ort_preload_dlls", false);
  // "list_dirs": directories listed from the tree, as a collector lists them.
  for (const std::string& d : get_or<std::vector<std::string>>(j, "list_dirs", {})) {
    p.listings[d] = probe.list(d);
  }
  return p;
}

Json run(const Json& desc) {
  DriveMap drives;
  for (const auto& [drive, host] : desc.at("drives").items()) {
    drives.add(drive, host.get<std::string>());
  }
  TreeProbe probe(drives);
  const doctor::loader::WindowsLoaderConfig config =
      loader_config(get_or<Json>(desc, "loader", Json::object()));
  Json out;
  out["resolutions"] = Json::array();
  for (const Json& req : get_or<Json>(desc, "requests", Json::array())) {
    out["resolutions"].push_back(run_request(req, config, probe));
  }
  const auto& frameworks = get_or<Json>(desc, "frameworks", Json::array());
  const auto& extensions = get_or<Json>(desc, "extensions", Json::array());
  out["frameworks"] = Json::array();
  out["extensions"] = Json::array();
  if (frameworks.empty() && extensions.empty()) {
    return out;
  }
  auto kb = doctor::kb::KnowledgeBase::load_embedded();
  if (!kb) {
    throw std::runtime_error("knowledge base: " + kb.error().message);
  }
  const auto process = python_process(get_or<Json>(desc, "python", Json::object()), config, probe);
  for (const Json& f : frameworks) {
    doctor::facts::Framework fw;
    fw.name = f.at("name").get<std::string>();
    fw.location = f.at("location").get<std::string>();
    fw.version = fact_of(f, "version");
    fw.cuda_version = fact_of(f, "cuda_version");
    fw.cudnn_version = fact_of(f, "cudnn_version");
    out["frameworks"].push_back(
        context_json(doctor::loader::simulate_windows_framework(fw, process, *kb, probe)));
  }
  for (const Json& e : extensions) {
    out["extensions"].push_back(context_json(
        doctor::loader::simulate_python_extension(e.get<std::string>(), process, *kb, probe)));
  }
  return out;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: winload_scenario DESCRIPTION.json\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    if (!in) {
      std::cerr << "winload_scenario: cannot open " << argv[1] << '\n';
      return 2;
    }
    const Json desc = Json::parse(in);
    std::cout << run(desc).dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
  } catch (const std::exception& e) {
    std::cerr << "winload_scenario: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
