// SPDX-License-Identifier: MIT
// Parsing and validation of the compatibility files; the lookups are in compat.cpp.
#include <doctor/kb/compat.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <set>
#include <tuple>

namespace doctor::kb {

namespace {

using Json = nlohmann::json;

// A validation failure inside one file; caught in parse_files() and turned into an Error.
struct Invalid {
  std::string message;
};

constexpr std::array<std::string_view, 4> k_kinds = {
    "cuda_drivers", "cudnn_releases", "frameworks", "gpus"};

const std::set<std::string, std::less<>> k_frameworks = {
    "torch", "tensorflow", "jax", "paddle", "onnxruntime"};
const std::set<std::string, std::less<>> k_branch_kinds = {"", "LTS", "PB", "NFB"};
const std::set<std::string, std::less<>> k_managers = {"pip", "conda"};

// Rejects fields the row's table does not know: a misspelt optional field would otherwise be
// ignored silently.
void check_fields(const Json& row,
                  std::initializer_list<std::string_view> known,
                  const std::string& where) {
  if (!row.is_object()) {
    throw Invalid{fmt::format("{}: not a JSON object", where)};
  }
  for (const auto& item : row.items()) {
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      throw Invalid{fmt::format("{}: unknown field \"{}\"", where, item.key())};
    }
  }
}

const Json& typed(const Json& row, const char* name, Json::value_t type, const std::string& where) {
  if (!row.is_object() || !row.contains(name)) {
    throw Invalid{fmt::format("{}: missing field \"{}\"", where, name)};
  }
  const Json& value = row.at(name);
  const bool ok =
      value.type() == type
      || (type == Json::value_t::number_unsigned && value.type() == Json::value_t::number_integer
          && value.get<long long>() >= 0);
  if (!ok) {
    throw Invalid{fmt::format("{}: field \"{}\" has the wrong type", where, name)};
  }
  return value;
}

std::string text(const Json& row, const char* name, const std::string& where) {
  std::string s = typed(row, name, Json::value_t::string, where).get<std::string>();
  if (s.empty()) {
    throw Invalid{fmt::format("{}: field \"{}\" is empty", where, name)};
  }
  return s;
}

std::string optional_text(const Json& row, const char* name, const std::string& where) {
  if (!row.contains(name)) {
    return {};
  }
  return typed(row, name, Json::value_t::string, where).get<std::string>();
}

Version version_of(const std::string& s, const char* name, const std::string& where) {
  auto v = Version::parse(s);
  if (!v) {
    throw Invalid{fmt::format("{}: field \"{}\" is not a version (\"{}\")", where, name, s)};
  }
  return std::move(*v);
}

Version version_field(const Json& row, const char* name, const std::string& where) {
  return version_of(text(row, name, where), name, where);
}

std::optional<Version>
optional_version(const Json& row, const char* name, const std::string& where) {
  if (!row.contains(name)) {
    return std::nullopt;
  }
  return version_field(row, name, where);
}

unsigned unsigned_field(const Json& row, const char* name, const std::string& where) {
  const auto n = typed(row, name, Json::value_t::number_unsigned, where).get<std::uint64_t>();
  if (n > 100000) {
    throw Invalid{fmt::format("{}: field \"{}\" is out of range", where, name)};
  }
  return static_cast<unsigned>(n);
}

std::optional<unsigned>
optional_unsigned(const Json& row, const char* name, const std::string& where) {
  if (!row.contains(name)) {
    return std::nullopt;
  }
  return unsigned_field(row, name, where);
}

bool optional_bool(const Json& row, const char* name, bool fallback, const std::string& where) {
  if (!row.contains(name)) {
    return fallback;
  }
  return typed(row, name, Json::value_t::boolean, where).get<bool>();
}

std::vector<std::string> string_list(const Json& row, const char* name, const std::string& where) {
  std::vector<std::string> out;
  if (!row.contains(name)) {
    return out;
  }
  const Json& list = typed(row, name, Json::value_t::array, where);
  out.reserve(list.size());
  for (const Json& v : list) {
    if (!v.is_string() || v.get<std::string>().empty()) {
      throw Invalid{fmt::format("{}: \"{}\" must be non-empty strings", where, name)};
    }
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::string range_field(const Json& row, const char* name, const std::string& where) {
  std::string r = text(row, name, where);
  if (!valid_version_range(r)) {
    throw Invalid{fmt::format(
        "{}: field \"{}\" must be \"A\", \"A-B\", \">=A\" or \"<=B\" (\"{}\")", where, name, r)};
  }
  return r;
}

// A hexadecimal 16-bit id ("2b85", "0x2B85").
std::uint16_t hex16(std::string_view s, const char* name, const std::string& where) {
  if (s.starts_with("0x") || s.starts_with("0X")) {
    s.remove_prefix(2);
  }
  if (s.empty() || s.size() > 4) {
    throw Invalid{fmt::format("{}: field \"{}\" must be a 16-bit hexadecimal id", where, name)};
  }
  unsigned value = 0;
  for (const char c : s) {
    unsigned digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<unsigned>(c - 'A' + 10);
    } else {
      throw Invalid{fmt::format("{}: field \"{}\" must be a 16-bit hexadecimal id", where, name)};
    }
    value = value * 16 + digit;
  }
  return static_cast<std::uint16_t>(value);
}

const Json& table(const Json& doc, const char* name, const std::string& file) {
  return typed(doc, name, Json::value_t::array, file);
}

void check_header(const Json& doc, std::string_view kind, const std::string& file) {
  if (!doc.is_object()) {
    throw Invalid{fmt::format("{}: not a JSON object", file)};
  }
  if (text(doc, "spec", file) != k_spec) {
    throw Invalid{fmt::format("{}: \"spec\" must be \"{}\"", file, k_spec)};
  }
  if (text(doc, "kind", file) != kind) {
    throw Invalid{fmt::format("{}: \"kind\" must be \"{}\"", file, kind)};
  }
}

std::string where_of(const std::string& file, const char* name, std::size_t i) {
  return fmt::format("{}: {}[{}]", file, name, i);
}

} // namespace

// Parses the tables of one file into `out`. Separate from the class so the anonymous helpers stay
// private to this file.
class CompatParser {
public:
  static void cuda_drivers(const Json& doc, const std::string& file, CompatTables& out);
  static void cudnn_releases(const Json& doc, const std::string& file, CompatTables& out);
  static void frameworks(const Json& doc, const std::string& file, CompatTables& out);
  static void gpus(const Json& doc, const std::string& file, CompatTables& out);
};

void CompatParser::cuda_drivers(const Json& doc, const std::string& file, CompatTables& out) {
  check_header(doc, "cuda_drivers", file);
  const Json& toolkits = table(doc, "toolkits", file);
  out.m_cuda_drivers.reserve(toolkits.size());
  for (std::size_t i = 0; i < toolkits.size(); ++i) {
    const Json& row = toolkits[i];
    std::string where = where_of(file, "toolkits", i);
    check_fields(
        row,
        {"cuda", "linux_min", "windows_min", "linux_bundled", "windows_bundled", "note", "source"},
        where);
    CudaDriverRow r;
    r.cuda = version_field(row, "cuda", where);
    where += " (" + r.cuda.str() + ")";
    for (const CudaDriverRow& other : out.m_cuda_drivers) {
      if (other.cuda == r.cuda) {
        throw Invalid{fmt::format("{}: duplicate release", where)};
      }
    }
    r.linux_min = optional_version(row, "linux_min", where);
    r.windows_min = optional_version(row, "windows_min", where);
    r.linux_bundled = optional_version(row, "linux_bundled", where);
    r.windows_bundled = optional_version(row, "windows_bundled", where);
    r.note = optional_text(row, "note", where);
    r.source = text(row, "source", where);
    out.m_cuda_drivers.push_back(std::move(r));
  }

  const Json& minor = table(doc, "minor_compat", file);
  out.m_minor_compat.reserve(minor.size());
  for (std::size_t i = 0; i < minor.size(); ++i) {
    const Json& row = minor[i];
    std::string where = where_of(file, "minor_compat", i);
    check_fields(
        row, {"cuda_major", "first", "last", "linux_min", "windows_min", "note", "source"}, where);
    MinorCompatRow r;
    r.cuda_major = unsigned_field(row, "cuda_major", where);
    where += fmt::format(" (CUDA {})", r.cuda_major);
    r.first = version_field(row, "first", where);
    r.last = version_field(row, "last", where);
    if (r.first.major() != r.cuda_major || r.last.major() != r.cuda_major) {
      throw Invalid{
          fmt::format("{}: \"first\" and \"last\" must be of CUDA {}", where, r.cuda_major)};
    }
    if (r.first.truncated(r.last.size()) > r.last) {
      throw Invalid{fmt::format("{}: \"first\" is after \"last\"", where)};
    }
    r.linux_min = optional_version(row, "linux_min", where);
    r.windows_min = optional_version(row, "windows_min", where);
    r.note = optional_text(row, "note", where);
    r.source = text(row, "source", where);
    out.m_minor_compat.push_back(std::move(r));
  }

  const Json& branches = table(doc, "branches", file);
  out.m_branches.reserve(branches.size());
  for (std::size_t i = 0; i < branches.size(); ++i) {
    const Json& row = branches[i];
    std::string where = where_of(file, "branches", i);
    check_fields(row, {"branch", "kind", "max_cuda", "end_of_life", "note", "source"}, where);
    DriverBranchRow r;
    r.branch = unsigned_field(row, "branch", where);
    where += fmt::format(" (R{})", r.branch);
    for (const DriverBranchRow& other : out.m_branches) {
      if (other.branch == r.branch) {
        throw Invalid{fmt::format("{}: duplicate branch", where)};
      }
    }
    r.kind = optional_text(row, "kind", where);
    if (k_branch_kinds.count(r.kind) == 0) {
      throw Invalid{fmt::format("{}: \"kind\" must be LTS, PB or NFB", where)};
    }
    r.max_cuda = version_field(row, "max_cuda", where);
    r.end_of_life = optional_text(row, "end_of_life", where);
    r.note = optional_text(row, "note", where);
    r.source = text(row, "source", where);
    out.m_branches.push_back(std::move(r));
  }
}

void CompatParser::cudnn_releases(const Json& doc, const std::string& file, CompatTables& out) {
  check_header(doc, "cudnn_releases", file);
  const Json& releases = table(doc, "releases", file);
  out.m_cudnn_releases.reserve(releases.size());
  for (std::size_t i = 0; i < releases.size(); ++i) {
    const Json& row = releases[i];
    std::string where = where_of(file, "releases", i);
    check_fields(row,
                 {"versions",
                  "cuda",
                  "min_cc",
                  "max_cc",
                  "linux_driver_min",
                  "windows_driver_min",
                  "windows_zlibwapi",
                  "note",
                  "source"},
                 where);
    CudnnReleaseRow r;
    r.versions = range_field(row, "versions", where);
    where += " (" + r.versions + ")";
    r.cuda = string_list(row, "cuda", where);
    if (r.cuda.empty()) {
      throw Invalid{fmt::format("{}: field \"cuda\" is empty", where)};
    }
    for (const std::string& c : r.cuda) {
      if (!valid_version_range(c)) {
        throw Invalid{fmt::format("{}: field \"cuda\": \"{}\" is not a version range", where, c)};
      }
    }
    r.min_cc = version_field(row, "min_cc", where);
    r.max_cc = optional_version(row, "max_cc", where);
    if (r.max_cc && *r.max_cc < r.min_cc) {
      throw Invalid{fmt::format("{}: \"max_cc\" is below \"min_cc\"", where)};
    }
    r.linux_driver_min = optional_version(row, "linux_driver_min", where);
    r.windows_driver_min = optional_version(row, "windows_driver_min", where);
    r.windows_zlibwapi = optional_bool(row, "windows_zlibwapi", false, where);
    r.note = optional_text(row, "note", where);
    r.source = text(row, "source", where);
    out.m_cudnn_releases.push_back(std::move(r));
  }

  const Json& packages = table(doc, "packages", file);
  out.m_cudnn_packages.reserve(packages.size());
  for (std::size_t i = 0; i < packages.size(); ++i) {
    const Json& row = packages[i];
    std::string where = where_of(file, "packages", i);
    check_fields(row, {"manager", "name", "cuda_major", "version", "source"}, where);
    CudnnPackageRow r;
    r.manager = text(row, "manager", where);
    if (k_managers.count(r.manager) == 0) {
      throw Invalid{fmt::format("{}: \"manager\" must be pip or conda", where)};
    }
    r.name = text(row, "name", where);
    r.version = text(row, "version", where);
    where += " (" + r.name + " " + r.version + ")";
    version_of(r.version, "version", where);
    r.cuda_major = unsigned_field(row, "cuda_major", where);
    r.source = text(row, "source", where);
    out.m_cudnn_packages.push_back(std::move(r));
  }
}

void CompatParser::frameworks(const Json& doc, const std::string& file, CompatTables& out) {
  check_header(doc, "frameworks", file);
  const Json& builds = table(doc, "builds", file);
  out.m_framework_builds.reserve(builds.size());
  for (std::size_t i = 0; i < builds.size(); ++i) {
    const Json& row = builds[i];
    std::string where = where_of(file, "builds", i);
    check_fields(row,
                 {"framework",
                  "versions",
                  "os",
                  "variant",
                  "cuda",
                  "cudnn",
                  "archs",
                  "gpu_supported",
                  "pip_pins",
                  "install",
                  "note",
                  "source"},
                 where);
    FrameworkBuildRow r;
    r.framework = text(row, "framework", where);
    if (k_frameworks.count(r.framework) == 0) {
      throw Invalid{fmt::format("{}: unknown framework \"{}\"", where, r.framework)};
    }
    r.versions = range_field(row, "versions", where);
    const std::string os = text(row, "os", where);
    if (os != "linux" && os != "windows") {
      throw Invalid{fmt::format("{}: os must be linux or windows", where)};
    }
    r.os = os == "linux" ? Os::linux : Os::windows;
    r.variant = optional_text(row, "variant", where);
    where += fmt::format(
        " ({} {} {}{})", r.framework, r.versions, os, r.variant.empty() ? "" : " " + r.variant);
    r.cuda = optional_text(row, "cuda", where);
    if (!r.cuda.empty()) {
      version_of(r.cuda, "cuda", where);
    }
    r.cudnn = optional_text(row, "cudnn", where);
    if (!r.cudnn.empty()) {
      version_of(r.cudnn, "cudnn", where);
    }
    r.archs = string_list(row, "archs", where);
    r.gpu_supported = optional_bool(row, "gpu_supported", true, where);
    if (r.gpu_supported == r.cuda.empty()) {
      throw Invalid{
          fmt::format("{}: a GPU build needs \"cuda\"; a row with \"gpu_supported\": "
                      "false must not have one",
                      where)};
    }
    r.pip_pins = string_list(row, "pip_pins", where);
    for (const std::string& pin : r.pip_pins) {
      if (pin.find("==") == std::string::npos) {
        throw Invalid{fmt::format("{}: pip pin \"{}\" is not NAME==VERSION", where, pin)};
      }
    }
    r.install = optional_text(row, "install", where);
    r.note = optional_text(row, "note", where);
    r.source = text(row, "source", where);
    out.m_framework_builds.push_back(std::move(r));
  }
}

void CompatParser::gpus(const Json& doc, const std::string& file, CompatTables& out) {
  check_header(doc, "gpus", file);
  const Json& archs = table(doc, "architectures", file);
  out.m_architectures.reserve(archs.size());
  for (std::size_t i = 0; i < archs.size(); ++i) {
    const Json& row = archs[i];
    std::string where = where_of(file, "architectures", i);
    check_fields(row,
                 {"cc",
                  "name",
                  "first_cuda",
                  "removed_in_cuda",
                  "last_branch",
                  "first_branch",
                  "linux_open_modules_only",
                  "note",
                  "source"},
                 where);
    ArchitectureRow r;
    r.cc = version_field(row, "cc", where);
    where += " (" + r.cc.str() + ")";
    for (const ArchitectureRow& other : out.m_architectures) {
      if (other.cc == r.cc) {
        throw Invalid{fmt::format("{}: duplicate compute capability", where)};
      }
    }
    r.name = text(row, "name", where);
    r.first_cuda = version_field(row, "first_cuda", where);
    r.removed_in_cuda = optional_version(row, "removed_in_cuda", where);
    r.last_branch = optional_unsigned(row, "last_branch", where);
    r.first_branch = optional_unsigned(row, "first_branch", where);
    r.linux_open_modules_only = optional_bool(row, "linux_open_modules_only", false, where);
    r.note = optional_text(row, "note", where);
    r.source = text(row, "source", where);
    out.m_architectures.push_back(std::move(r));
  }

  const Json& ids = table(doc, "pci_ids", file);
  out.m_gpu_models.reserve(ids.size());
  std::set<std::tuple<std::uint16_t, int, int>> seen;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const Json& row = ids[i];
    std::string where = where_of(file, "pci_ids", i);
    check_fields(
        row, {"id", "subsystem", "chip", "name", "pci_ids_name", "cc", "note", "source"}, where);
    GpuModelRow r;
    const std::string id = text(row, "id", where);
    r.device_id = hex16(id, "id", where);
    where += " (" + id + ")";
    const std::string subsystem = optional_text(row, "subsystem", where);
    if (!subsystem.empty()) {
      const auto colon = subsystem.find(':');
      if (colon == std::string::npos) {
        throw Invalid{fmt::format("{}: \"subsystem\" must be VVVV:DDDD", where)};
      }
      r.subsystem_vendor = hex16(subsystem.substr(0, colon), "subsystem", where);
      r.subsystem_device = hex16(subsystem.substr(colon + 1), "subsystem", where);
    }
    const auto key = std::make_tuple(r.device_id,
                                     r.subsystem_vendor ? int{*r.subsystem_vendor} : -1,
                                     r.subsystem_device ? int{*r.subsystem_device} : -1);
    if (!seen.insert(key).second) {
      throw Invalid{fmt::format("{}: duplicate device id", where)};
    }
    r.chip = text(row, "chip", where);
    r.name = text(row, "name", where);
    r.pci_ids_name = optional_text(row, "pci_ids_name", where);
    r.cc = version_field(row, "cc", where);
    r.note = optional_text(row, "note", where);
    r.source = text(row, "source", where);
    out.m_gpu_models.push_back(std::move(r));
  }
}

Expected<CompatTables>
CompatTables::parse_files(const std::vector<std::pair<std::string, std::string>>& files) {
  CompatTables out;
  std::vector<std::pair<std::string, std::string>> seen; // {kind, file}
  try {
    for (const auto& [name, contents] : files) {
      Json doc;
      try {
        doc = Json::parse(contents);
      } catch (const Json::parse_error& e) {
        throw Invalid{fmt::format("{}: not JSON ({})", name, e.what())};
      }
      if (!doc.is_object() || !doc.contains("kind") || !doc["kind"].is_string()) {
        throw Invalid{fmt::format("{}: missing field \"kind\"", name)};
      }
      const std::string kind = doc["kind"].get<std::string>();
      for (const auto& [k, f] : seen) {
        if (k == kind) {
          throw Invalid{fmt::format("{}: a second \"{}\" file (the first is {})", name, kind, f)};
        }
      }
      seen.emplace_back(kind, name);
      if (kind == "cuda_drivers") {
        CompatParser::cuda_drivers(doc, name, out);
      } else if (kind == "cudnn_releases") {
        CompatParser::cudnn_releases(doc, name, out);
      } else if (kind == "frameworks") {
        CompatParser::frameworks(doc, name, out);
      } else if (kind == "gpus") {
        CompatParser::gpus(doc, name, out);
      } else {
        throw Invalid{fmt::format("{}: unknown kind \"{}\"", name, kind)};
      }
    }
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  } catch (const Json::exception& e) {
    return make_error(ErrorCode::parse, e.what());
  }
  return out;
}

Expected<CompatTables> CompatTables::parse(std::string_view cuda_drivers,
                                           std::string_view cudnn_releases,
                                           std::string_view frameworks,
                                           std::string_view gpus) {
  std::vector<std::pair<std::string, std::string>> files;
  const std::array<std::pair<const char*, std::string_view>, 4> named = {{
      {"cuda_drivers.json", cuda_drivers},
      {"cudnn_releases.json", cudnn_releases},
      {"frameworks.json", frameworks},
      {"gpus.json", gpus},
  }};
  files.reserve(named.size());
  for (const auto& [name, contents] : named) {
    if (!contents.empty()) {
      files.emplace_back(name, std::string(contents));
    }
  }
  return parse_files(files);
}

bool CompatTables::is_compat_kind(std::string_view kind) {
  return std::find(k_kinds.begin(), k_kinds.end(), kind) != k_kinds.end();
}

} // namespace doctor::kb
