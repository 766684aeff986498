// SPDX-License-Identifier: MIT
// Parsing and validation of the compatibility files; the lookups are in compat.cpp.
#include <doctor/kb/compat.hpp>
#include <doctor/kb/json_rows.hpp>
#include <doctor/kb/kb_docs.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <tuple>

namespace doctor::kb {

namespace {

constexpr std::array<std::string_view, 4> k_kinds = {
    "cuda_drivers", "cudnn_releases", "frameworks", "gpus"};

// The allowed values, each set built on first use (not at every start of the program).
const std::set<std::string, std::less<>>& frameworks_set() {
  static const std::set<std::string, std::less<>> k_set = {
      "torch", "tensorflow", "jax", "paddle", "onnxruntime"};
  return k_set;
}
const std::set<std::string, std::less<>>& branch_kinds_set() {
  static const std::set<std::string, std::less<>> k_set = {"", "LTS", "PB", "NFB"};
  return k_set;
}
const std::set<std::string, std::less<>>& managers_set() {
  static const std::set<std::string, std::less<>> k_set = {"pip", "conda"};
  return k_set;
}

// Branch numbers, CUDA majors: anything larger is a typo.
constexpr std::uint64_t k_max_number = 100000;

Version version_of(const JsonRow& row, const std::string& s, const char* name) {
  auto v = Version::parse(s);
  if (!v) {
    row.fail(fmt::format("field \"{}\" is not a version (\"{}\")", name, s));
  }
  return std::move(*v);
}

Version version_field(const JsonRow& row, const char* name) {
  return version_of(row, row.text(name), name);
}

std::optional<Version> optional_version(const JsonRow& row, const char* name) {
  if (!row.has(name)) {
    return std::nullopt;
  }
  return version_field(row, name);
}

unsigned unsigned_field(const JsonRow& row, const char* name) {
  return static_cast<unsigned>(row.number(name, k_max_number));
}

std::optional<unsigned> optional_unsigned(const JsonRow& row, const char* name) {
  if (!row.has(name)) {
    return std::nullopt;
  }
  return unsigned_field(row, name);
}

std::string range_field(const JsonRow& row, const char* name) {
  std::string r = row.text(name);
  if (!valid_version_range(r)) {
    row.fail(
        fmt::format("field \"{}\" must be \"A\", \"A-B\", \">=A\" or \"<=B\" (\"{}\")", name, r));
  }
  return r;
}

// A hexadecimal 16-bit id ("2b85", "0x2B85").
std::uint16_t hex16(std::string_view s, const char* name, const JsonRow& row) {
  if (s.starts_with("0x") || s.starts_with("0X")) {
    s.remove_prefix(2);
  }
  const std::string bad = fmt::format("field \"{}\" must be a 16-bit hexadecimal id", name);
  if (s.empty() || s.size() > 4) {
    row.fail(bad);
  }
  unsigned value = 0;
  for (const char c : s) {
    const int digit = util::hex_digit(c);
    if (digit < 0) {
      row.fail(bad);
    }
    value = value * 16 + static_cast<unsigned>(digit);
  }
  return static_cast<std::uint16_t>(value);
}

} // namespace

// Parses the tables of one file into `out`. Separate from the class so the anonymous helpers stay
// private to this file.
class CompatParser {
public:
  static void cuda_drivers(JsonView doc, const std::string& file, CompatTables& out);
  static void cudnn_releases(JsonView doc, const std::string& file, CompatTables& out);
  static void frameworks(JsonView doc, const std::string& file, CompatTables& out);
  static void gpus(JsonView doc, const std::string& file, CompatTables& out);
  static Expected<CompatTables> parse_docs(const std::vector<KbDoc>& docs);
};

void CompatParser::cuda_drivers(JsonView doc, const std::string& file, CompatTables& out) {
  const JsonRow top = file_header(doc, "cuda_drivers", file);
  const JsonRows toolkits = top.rows("toolkits");
  out.m_cuda_drivers.reserve(toolkits.size());
  for (std::size_t i = 0; i < toolkits.size(); ++i) {
    JsonRow row = toolkits[i];
    row.only(
        {"cuda", "linux_min", "windows_min", "linux_bundled", "windows_bundled", "note", "source"});
    CudaDriverRow r;
    r.cuda = version_field(row, "cuda");
    row.name(r.cuda.str());
    for (const CudaDriverRow& other : out.m_cuda_drivers) {
      if (other.cuda == r.cuda) {
        row.fail("duplicate release");
      }
    }
    r.linux_min = optional_version(row, "linux_min");
    r.windows_min = optional_version(row, "windows_min");
    r.linux_bundled = optional_version(row, "linux_bundled");
    r.windows_bundled = optional_version(row, "windows_bundled");
    r.note = row.optional_text("note");
    r.source = row.text("source");
    out.m_cuda_drivers.push_back(std::move(r));
  }

  const JsonRows minor = top.rows("minor_compat");
  out.m_minor_compat.reserve(minor.size());
  for (std::size_t i = 0; i < minor.size(); ++i) {
    JsonRow row = minor[i];
    row.only({"cuda_major", "first", "last", "linux_min", "windows_min", "note", "source"});
    MinorCompatRow r;
    r.cuda_major = unsigned_field(row, "cuda_major");
    row.name(fmt::format("CUDA {}", r.cuda_major));
    r.first = version_field(row, "first");
    r.last = version_field(row, "last");
    if (r.first.major() != r.cuda_major || r.last.major() != r.cuda_major) {
      row.fail(fmt::format("\"first\" and \"last\" must be of CUDA {}", r.cuda_major));
    }
    if (r.first.truncated(r.last.size()) > r.last) {
      row.fail("\"first\" is after \"last\"");
    }
    r.linux_min = optional_version(row, "linux_min");
    r.windows_min = optional_version(row, "windows_min");
    r.note = row.optional_text("note");
    r.source = row.text("source");
    out.m_minor_compat.push_back(std::move(r));
  }

  const JsonRows branches = top.rows("branches");
  out.m_branches.reserve(branches.size());
  for (std::size_t i = 0; i < branches.size(); ++i) {
    JsonRow row = branches[i];
    row.only({"branch", "kind", "max_cuda", "end_of_life", "note", "source"});
    DriverBranchRow r;
    r.branch = unsigned_field(row, "branch");
    row.name(fmt::format("R{}", r.branch));
    for (const DriverBranchRow& other : out.m_branches) {
      if (other.branch == r.branch) {
        row.fail("duplicate branch");
      }
    }
    r.kind = row.optional_text("kind");
    if (branch_kinds_set().count(r.kind) == 0) {
      row.fail("\"kind\" must be LTS, PB or NFB");
    }
    r.max_cuda = version_field(row, "max_cuda");
    r.end_of_life = row.optional_text("end_of_life");
    r.note = row.optional_text("note");
    r.source = row.text("source");
    out.m_branches.push_back(std::move(r));
  }
}

void CompatParser::cudnn_releases(JsonView doc, const std::string& file, CompatTables& out) {
  const JsonRow top = file_header(doc, "cudnn_releases", file);
  const JsonRows releases = top.rows("releases");
  out.m_cudnn_releases.reserve(releases.size());
  for (std::size_t i = 0; i < releases.size(); ++i) {
    JsonRow row = releases[i];
    row.only({"versions",
              "cuda",
              "min_cc",
              "max_cc",
              "linux_driver_min",
              "windows_driver_min",
              "windows_zlibwapi",
              "note",
              "source"});
    CudnnReleaseRow r;
    r.versions = range_field(row, "versions");
    row.name(r.versions);
    r.cuda = row.texts("cuda");
    for (const std::string& c : r.cuda) {
      if (!valid_version_range(c)) {
        row.fail(fmt::format("field \"cuda\": \"{}\" is not a version range", c));
      }
    }
    r.min_cc = version_field(row, "min_cc");
    r.max_cc = optional_version(row, "max_cc");
    if (r.max_cc && *r.max_cc < r.min_cc) {
      row.fail("\"max_cc\" is below \"min_cc\"");
    }
    r.linux_driver_min = optional_version(row, "linux_driver_min");
    r.windows_driver_min = optional_version(row, "windows_driver_min");
    r.windows_zlibwapi = row.optional_flag("windows_zlibwapi", false);
    r.note = row.optional_text("note");
    r.source = row.text("source");
    out.m_cudnn_releases.push_back(std::move(r));
  }

  const JsonRows packages = top.rows("packages");
  out.m_cudnn_packages.reserve(packages.size());
  for (std::size_t i = 0; i < packages.size(); ++i) {
    JsonRow row = packages[i];
    row.only({"manager", "name", "cuda_major", "version", "source"});
    CudnnPackageRow r;
    r.manager = row.text("manager");
    if (managers_set().count(r.manager) == 0) {
      row.fail("\"manager\" must be pip or conda");
    }
    r.name = row.text("name");
    r.version = row.text("version");
    row.name(r.name + " " + r.version);
    version_of(row, r.version, "version");
    r.cuda_major = unsigned_field(row, "cuda_major");
    r.source = row.text("source");
    out.m_cudnn_packages.push_back(std::move(r));
  }
}

void CompatParser::frameworks(JsonView doc, const std::string& file, CompatTables& out) {
  const JsonRow top = file_header(doc, "frameworks", file);
  const JsonRows builds = top.rows("builds");
  out.m_framework_builds.reserve(builds.size());
  for (std::size_t i = 0; i < builds.size(); ++i) {
    JsonRow row = builds[i];
    row.only({"framework",
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
              "source"});
    FrameworkBuildRow r;
    r.framework = row.text("framework");
    if (frameworks_set().count(r.framework) == 0) {
      row.fail(fmt::format("unknown framework \"{}\"", r.framework));
    }
    r.versions = range_field(row, "versions");
    const std::string os = row.text("os");
    if (os != "linux" && os != "windows") {
      row.fail("os must be linux or windows");
    }
    r.os = os == "linux" ? Os::linux : Os::windows;
    r.variant = row.optional_text("variant");
    row.name(fmt::format(
        "{} {} {}{}", r.framework, r.versions, os, r.variant.empty() ? "" : " " + r.variant));
    r.cuda = row.optional_text("cuda");
    if (!r.cuda.empty()) {
      version_of(row, r.cuda, "cuda");
    }
    r.cudnn = row.optional_text("cudnn");
    if (!r.cudnn.empty()) {
      version_of(row, r.cudnn, "cudnn");
    }
    r.archs = row.optional_texts("archs");
    r.gpu_supported = row.optional_flag("gpu_supported", true);
    if (r.gpu_supported == r.cuda.empty()) {
      row.fail("a GPU build needs \"cuda\"; a row with \"gpu_supported\": false must not have one");
    }
    r.pip_pins = row.optional_texts("pip_pins");
    for (const std::string& pin : r.pip_pins) {
      if (pin.find("==") == std::string::npos) {
        row.fail(fmt::format("pip pin \"{}\" is not NAME==VERSION", pin));
      }
    }
    r.install = row.optional_text("install");
    r.note = row.optional_text("note");
    r.source = row.text("source");
    out.m_framework_builds.push_back(std::move(r));
  }
}

void CompatParser::gpus(JsonView doc, const std::string& file, CompatTables& out) {
  const JsonRow top = file_header(doc, "gpus", file);
  const JsonRows archs = top.rows("architectures");
  out.m_architectures.reserve(archs.size());
  for (std::size_t i = 0; i < archs.size(); ++i) {
    JsonRow row = archs[i];
    row.only({"cc",
              "name",
              "first_cuda",
              "removed_in_cuda",
              "last_branch",
              "first_branch",
              "linux_open_modules_only",
              "note",
              "source"});
    ArchitectureRow r;
    r.cc = version_field(row, "cc");
    row.name(r.cc.str());
    for (const ArchitectureRow& other : out.m_architectures) {
      if (other.cc == r.cc) {
        row.fail("duplicate compute capability");
      }
    }
    r.name = row.text("name");
    r.first_cuda = version_field(row, "first_cuda");
    r.removed_in_cuda = optional_version(row, "removed_in_cuda");
    r.last_branch = optional_unsigned(row, "last_branch");
    r.first_branch = optional_unsigned(row, "first_branch");
    r.linux_open_modules_only = row.optional_flag("linux_open_modules_only", false);
    r.note = row.optional_text("note");
    r.source = row.text("source");
    out.m_architectures.push_back(std::move(r));
  }

  const JsonRows ids = top.rows("pci_ids");
  out.m_gpu_models.reserve(ids.size());
  std::set<std::tuple<std::uint16_t, int, int>> seen;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    JsonRow row = ids[i];
    row.only({"id", "subsystem", "chip", "name", "pci_ids_name", "cc", "note", "source"});
    GpuModelRow r;
    const std::string id = row.text("id");
    r.device_id = hex16(id, "id", row);
    row.name(id);
    const std::string subsystem = row.optional_text("subsystem");
    if (!subsystem.empty()) {
      const auto colon = subsystem.find(':');
      if (colon == std::string::npos) {
        row.fail("\"subsystem\" must be VVVV:DDDD");
      }
      r.subsystem_vendor = hex16(subsystem.substr(0, colon), "subsystem", row);
      r.subsystem_device = hex16(subsystem.substr(colon + 1), "subsystem", row);
    }
    const auto key = std::make_tuple(r.device_id,
                                     r.subsystem_vendor ? int{*r.subsystem_vendor} : -1,
                                     r.subsystem_device ? int{*r.subsystem_device} : -1);
    if (!seen.insert(key).second) {
      row.fail("duplicate device id");
    }
    r.chip = row.text("chip");
    r.name = row.text("name");
    r.pci_ids_name = row.optional_text("pci_ids_name");
    r.cc = version_field(row, "cc");
    r.note = row.optional_text("note");
    r.source = row.text("source");
    out.m_gpu_models.push_back(std::move(r));
  }
}

Expected<CompatTables> CompatParser::parse_docs(const std::vector<KbDoc>& docs) {
  CompatTables out;
  std::vector<std::pair<std::string, std::string>> seen; // {kind, file}
  try {
    for (const KbDoc& d : docs) {
      const std::string& name = d.name;
      const std::string kind = file_kind(d.root, name);
      for (const auto& [k, f] : seen) {
        if (k == kind) {
          throw Invalid{fmt::format("{}: a second \"{}\" file (the first is {})", name, kind, f)};
        }
      }
      seen.emplace_back(kind, name);
      if (kind == "cuda_drivers") {
        cuda_drivers(d.root, name, out);
      } else if (kind == "cudnn_releases") {
        cudnn_releases(d.root, name, out);
      } else if (kind == "frameworks") {
        frameworks(d.root, name, out);
      } else if (kind == "gpus") {
        gpus(d.root, name, out);
      } else {
        throw Invalid{fmt::format("{}: unknown kind \"{}\"", name, kind)};
      }
    }
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  }
  return out;
}

Expected<CompatTables> parse_compat_docs(const std::vector<KbDoc>& docs) {
  return CompatParser::parse_docs(docs);
}

Expected<CompatTables>
CompatTables::parse_files(const std::vector<std::pair<std::string, std::string>>& files) {
  const auto parsed = parse_texts(files);
  if (!parsed) {
    return tl::unexpected(parsed.error());
  }
  return parse_compat_docs(parsed->docs);
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
