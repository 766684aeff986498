// SPDX-License-Identifier: MIT
#include <doctor/model/facts_json.hpp>
#include <doctor/model/facts_values.hpp>
#include <doctor/util/json.hpp>
#include <doctor/util/json_bytes.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <concepts>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <utility>

namespace doctor {

// Versions are written as their original text ("535.261.03" keeps its leading zero).
void to_json(nlohmann::ordered_json& j, const Version& v) {
  j = v.str();
}

namespace facts {

template<typename T>
void to_json(nlohmann::ordered_json& j, const Fact<T>& f) {
  j = nlohmann::ordered_json::object();
  if (f.has_value()) {
    j["value"] = f.value();
    j["source"] = f.source();
  } else {
    j["unknown"] = f.reason();
  }
}

namespace {

using Json = nlohmann::ordered_json;

// Reads facts out of a bounded document, keeping the path of the value being read for the
// message of the first error. Strings are moved out of the document, so that the facts take the
// memory the document gives up.
class Reader {
public:
  // Reads member `name` of object `j` into `out`; a missing member leaves `out` as it is (the
  // structure's default).
  template<typename T>
  bool member(Json& j, const char* name, T& out);

  // Reads `value`, the member `key` of an object whose keys are data (the environment).
  template<typename T>
  bool entry(Json& value, std::string_view key, T& out);

  // Reads item `index` of an array.
  template<typename T>
  bool item(Json& j, std::size_t index, T& out);

  // Fails unless `j` is an object.
  bool object(const Json& j) { return j.is_object() || expected("an object", j); }

  bool expected(std::string_view what, const Json& j) {
    return fail(fmt::format("expected {}, found {}", what, kind_of(j)));
  }

  bool fail(std::string_view what) {
    if (!m_error) {
      m_error = m_path.empty() ? std::string(what) : fmt::format("{}: {}", m_path, what);
    }
    return false;
  }

  const std::optional<std::string>& error() const { return m_error; }

private:
  template<typename T>
  bool at(std::size_t mark, Json& j, T& out);

  static std::string_view kind_of(const Json& j) {
    switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    default:
      return "a number";
    }
  }

  std::string m_path;
  std::optional<std::string> m_error;
};

// The readers of each type, declared before the templates that call them.
bool read(Reader& r, Json& j, std::string& out);
bool read(Reader& r, Json& j, bool& out);
bool read(Reader& r, Json& j, Version& out);
template<typename V>
bool read(Reader& r, Json& j, std::map<std::string, V>& out);
template<typename I>
requires(std::integral<I> && !std::same_as<I, bool>) bool read(Reader& r, Json& j, I& out);
template<typename T>
bool read(Reader& r, Json& j, Fact<T>& out);
template<typename T>
bool read(Reader& r, Json& j, std::vector<T>& out);
template<typename T>
bool read(Reader& r, Json& j, std::optional<T>& out);

// Reads `j` with the path extended past `mark`, then cuts the path back.
template<typename T>
bool Reader::at(std::size_t mark, Json& j, T& out) {
  const bool ok = read(*this, j, out);
  m_path.resize(mark);
  return ok;
}

template<typename T>
bool Reader::member(Json& j, const char* name, T& out) {
  auto it = j.find(name);
  if (it == j.end()) {
    return true;
  }
  const std::size_t mark = m_path.size();
  append_path_key(m_path, name);
  return at(mark, *it, out);
}

template<typename T>
bool Reader::entry(Json& value, std::string_view key, T& out) {
  const std::size_t mark = m_path.size();
  append_path_key(m_path, key);
  return at(mark, value, out);
}

template<typename T>
bool Reader::item(Json& j, std::size_t index, T& out) {
  const std::size_t mark = m_path.size();
  m_path += fmt::format("[{}]", index);
  return at(mark, j, out);
}

bool read(Reader& r, Json& j, std::string& out) {
  if (!j.is_string()) {
    return r.expected("a string", j);
  }
  out = std::move(j.get_ref<std::string&>());
  return true;
}

bool read(Reader& r, Json& j, bool& out) {
  if (!j.is_boolean()) {
    return r.expected("true or false", j);
  }
  out = j.get<bool>();
  return true;
}

bool read(Reader& r, Json& j, Version& out) {
  if (!j.is_string()) {
    return r.expected("a version string", j);
  }
  const std::string& text = j.get_ref<const std::string&>();
  auto parsed = Version::parse(text);
  if (!parsed) {
    return r.fail(fmt::format("not a version: {}", util::sanitize(text, 80)));
  }
  out = std::move(*parsed);
  return true;
}

template<typename V>
bool read(Reader& r, Json& j, std::map<std::string, V>& out) {
  if (!r.object(j)) {
    return false;
  }
  for (auto& [name, value] : j.get_ref<Json::object_t&>()) {
    V v{};
    if (!r.entry(value, name, v)) {
      return false;
    }
    out[name] = std::move(v);
  }
  return true;
}

// Stores `v` in `out` if the field's type holds it: a value outside it is an error, never
// wrapped or cut.
template<typename I, typename V>
bool store_integer(Reader& r, V v, I& out) {
  if (!std::in_range<I>(v)) {
    return r.fail(fmt::format("{} is out of range ({} to {})",
                              v,
                              std::numeric_limits<I>::min(),
                              std::numeric_limits<I>::max()));
  }
  out = static_cast<I>(v);
  return true;
}

template<typename I>
requires(std::integral<I> && !std::same_as<I, bool>) bool read(Reader& r, Json& j, I& out) {
  if (j.is_number_unsigned()) {
    return store_integer(r, j.get<std::uint64_t>(), out);
  }
  if (j.is_number_integer()) {
    return store_integer(r, j.get<std::int64_t>(), out);
  }
  return r.expected("an integer", j);
}

template<typename T>
bool read(Reader& r, Json& j, Fact<T>& out) {
  if (!r.object(j)) {
    return false;
  }
  if (j.contains("value")) {
    T value{};
    std::string source;
    if (!r.member(j, "value", value) || !r.member(j, "source", source)) {
      return false;
    }
    out = Fact<T>::known(std::move(value), std::move(source));
    return true;
  }
  if (j.contains("unknown")) {
    std::string reason;
    if (!r.member(j, "unknown", reason)) {
      return false;
    }
    out = Fact<T>::unknown(std::move(reason));
    return true;
  }
  return r.fail("a fact needs \"value\" or \"unknown\"");
}

template<typename T>
bool read(Reader& r, Json& j, std::vector<T>& out) {
  if (!j.is_array()) {
    return r.expected("an array", j);
  }
  auto& items = j.get_ref<Json::array_t&>();
  out.clear();
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    T value{};
    if (!r.item(items[i], i, value)) {
      return false;
    }
    out.push_back(std::move(value));
  }
  return true;
}

template<typename T>
bool read(Reader& r, Json& j, std::optional<T>& out) {
  if (j.is_null()) {
    out.reset();
    return true;
  }
  T value{};
  if (!read(r, j, value)) {
    return false;
  }
  out = std::move(value);
  return true;
}

} // namespace

// One field list per structure gives both directions: to_json writes every field in this order;
// read takes each member that is present and leaves the default for one that is not (a snapshot
// of an earlier version 1 lacks the fields added since).
#define DOCTOR_FACTS_TO(name) nlohmann_json_j[#name] = nlohmann_json_t.name;
#define DOCTOR_FACTS_READ(name) &&r.member(j, #name, t.name)
#define DOCTOR_FACTS_FIELDS(Type, ...)                                                             \
  inline void to_json(nlohmann::ordered_json& nlohmann_json_j, const Type& nlohmann_json_t) {      \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(DOCTOR_FACTS_TO, __VA_ARGS__))                        \
  }                                                                                                \
  namespace {                                                                                      \
  bool read(Reader& r, Json& j, Type& t) {                                                         \
    return r.object(j) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(DOCTOR_FACTS_READ, __VA_ARGS__));  \
  }                                                                                                \
  }

DOCTOR_FACTS_FIELDS(CollectorError, collector, message)
DOCTOR_FACTS_FIELDS(
    CollectionInfo, schema, tool_version, os_family, sysroot, live, collected_at, errors)
DOCTOR_FACTS_FIELDS(OsInfo,
                    pretty_name,
                    id,
                    version_id,
                    kernel_release,
                    architecture,
                    glibc_version,
                    cpu_model,
                    cpu_count,
                    memory_total,
                    memory_available,
                    swap_total,
                    swap_free)
DOCTOR_FACTS_FIELDS(DeviceNode, path, kind, mode, uid, gid, major, minor)
DOCTOR_FACTS_FIELDS(DriverLibrary, name, path, version, stub)
DOCTOR_FACTS_FIELDS(GpuProcess, pid, kind, used_memory, name)
DOCTOR_FACTS_FIELDS(NvmlDevice,
                    index,
                    name,
                    uuid,
                    pci_bus_id,
                    compute_capability,
                    memory_total,
                    memory_free,
                    memory_used,
                    processes,
                    telemetry,
                    telemetry_notes)
DOCTOR_FACTS_FIELDS(
    ProbeChild, uid, gid, capabilities_dropped, no_new_privs, address_space_limit, notes)
DOCTOR_FACTS_FIELDS(NvmlInfo,
                    status,
                    detail,
                    library,
                    init_result,
                    nvml_version,
                    driver_version,
                    cuda_driver_version,
                    devices,
                    child)
DOCTOR_FACTS_FIELDS(ProbeLibrary, name, path, real_path, found_via, context, searched)
DOCTOR_FACTS_FIELDS(ProbeCall, function, result, name, text, name_source)
DOCTOR_FACTS_FIELDS(ProbeDevice, index, name, memory_total, context)
DOCTOR_FACTS_FIELDS(ProbeComputation, name, status, detail, elements, mismatches, max_abs_error)
DOCTOR_FACTS_FIELDS(ProbeRun,
                    probe,
                    status,
                    detail,
                    library,
                    loaded,
                    version,
                    runtime_version,
                    calls,
                    devices,
                    computations,
                    exit_code,
                    signal,
                    stderr_tail,
                    child)
DOCTOR_FACTS_FIELDS(ProbeInfo, ran, runs)
DOCTOR_FACTS_FIELDS(EdacDimm, name, label, ce_count, ue_count)
DOCTOR_FACTS_FIELDS(EdacController, name, mc_name, ce_count, ue_count, dimms)
DOCTOR_FACTS_FIELDS(DiskHealth, device, type, model, passed, exit_status, counters, messages)
DOCTOR_FACTS_FIELDS(WheaErrors, log, fatal, corrected, by_event)
DOCTOR_FACTS_FIELDS(MachineChecks,
                    log,
                    boot,
                    lines_read,
                    events,
                    corrected,
                    uncorrected,
                    unclassified,
                    at_boot,
                    cpus,
                    banks,
                    first,
                    last,
                    lines)
DOCTOR_FACTS_FIELDS(HostHardware, edac, disks, whea, machine_checks)
DOCTOR_FACTS_FIELDS(KernelModules, kernel_release, nvidia_modules)
DOCTOR_FACTS_FIELDS(DriverInfo,
                    kernel_module_version,
                    kernel_module_banner,
                    kernel_module_type,
                    sys_module_version,
                    loaded_modules,
                    nouveau_loaded,
                    libraries,
                    device_nodes,
                    nvml,
                    installed_modules,
                    dkms_modules)
DOCTOR_FACTS_FIELDS(PciDevice,
                    address,
                    vendor_id,
                    device_id,
                    subsystem_vendor_id,
                    subsystem_device_id,
                    class_code,
                    name,
                    driver)
DOCTOR_FACTS_FIELDS(PciScan, devices_scanned, nvidia_gpus, other_displays)
DOCTOR_FACTS_FIELDS(
    CudaToolkit, path, aliases, found_via, version, runtime_version, nvcc, library_dirs)
DOCTOR_FACTS_FIELDS(CudnnLibrary, name, member, major, real_path, size, version)
DOCTOR_FACTS_FIELDS(
    CudnnInstall, dir, major, found_via, version, header_version, package, libraries)
DOCTOR_FACTS_FIELDS(PythonPackage, name, version, source)
DOCTOR_FACTS_FIELDS(
    Framework, name, location, version, cuda_build, cuda_version, cudnn_version, cuda_archs)
DOCTOR_FACTS_FIELDS(
    PythonEnv, prefix, kind, found_via, python_version, site_packages, packages, frameworks)
DOCTOR_FACTS_FIELDS(LdCacheEntry, name, path, arch)
DOCTOR_FACTS_FIELDS(LinkerInfo, conf_dirs, cache, default_dirs)
DOCTOR_FACTS_FIELDS(UserInfo, uid, gids, group_names)
DOCTOR_FACTS_FIELDS(MountInfo, mount_point, fs_type, options)
DOCTOR_FACTS_FIELDS(BinaryVersionNeed, file, versions)
DOCTOR_FACTS_FIELDS(BinaryInfo,
                    path,
                    format,
                    size,
                    mode,
                    uid,
                    gid,
                    machine,
                    bits,
                    soname,
                    rpath,
                    runpath,
                    nodeflib,
                    version_definitions,
                    version_needs,
                    build_id,
                    needed,
                    delay_needed,
                    file_version,
                    product_version,
                    product_name,
                    is_signed,
                    problems,
                    read_error,
                    read_error_message)
DOCTOR_FACTS_FIELDS(ProbedPath, path, exists, kind, real_path, mode, uid, gid)
DOCTOR_FACTS_FIELDS(FileVerification,
                    path,
                    manager,
                    package,
                    record,
                    algorithm,
                    expected,
                    actual,
                    expected_size,
                    actual_size)
DOCTOR_FACTS_FIELDS(UnreadPackageRecord, record, manager, package, reason)
DOCTOR_FACTS_FIELDS(IntegrityInfo, requested, files, unread_records, files_hashed, bytes_hashed)
DOCTOR_FACTS_FIELDS(UnreadablePath, path, what, error, message)
DOCTOR_FACTS_FIELDS(DisplayAdapter,
                    key,
                    description,
                    provider,
                    driver_version,
                    nvidia_version,
                    driver_date,
                    inf_path,
                    matching_device_id,
                    vendor_id,
                    device_id)
DOCTOR_FACTS_FIELDS(PageFile, path, system_managed, initial_size, maximum_size, drive_free)
DOCTOR_FACTS_FIELDS(
    PythonRegistration, hive, company, tag, install_path, executable, version, display_name)
DOCTOR_FACTS_FIELDS(VcRuntime, arch, version, installed)
DOCTOR_FACTS_FIELDS(TdrSettings, tdr_level, tdr_delay, tdr_ddi_delay)
DOCTOR_FACTS_FIELDS(CrashDumpSettings, crash_dump_enabled, minidump_dir, dump_file)
DOCTOR_FACTS_FIELDS(
    WindowsFileAccess, path, readable, executable, zone, authenticode, source, detail)
DOCTOR_FACTS_FIELDS(WindowsService, name, start, type, image_path, display_name, source)
DOCTOR_FACTS_FIELDS(InstalledProgram,
                    view,
                    key,
                    kind,
                    display_name,
                    display_version,
                    publisher,
                    install_location,
                    location_exists,
                    source)
DOCTOR_FACTS_FIELDS(WindowsInfo,
                    product_name,
                    edition_id,
                    display_version,
                    build,
                    windows_dir,
                    system32,
                    known_dlls,
                    safe_dll_search_mode,
                    page_files,
                    automatic_page_file,
                    display_adapters,
                    nvidia_driver_packages,
                    gpu_preferences,
                    machine_path,
                    user_path,
                    python_registrations,
                    vc_runtimes,
                    tdr,
                    crash_dumps,
                    elevated,
                    file_access,
                    dll_listings,
                    services,
                    installed_programs)
DOCTOR_FACTS_FIELDS(Facts,
                    collection,
                    environment,
                    os,
                    driver,
                    pci,
                    linker,
                    cuda_toolkits,
                    cudnn,
                    python_envs,
                    user,
                    mounts,
                    binaries,
                    probed_paths,
                    integrity,
                    unreadable,
                    windows,
                    probe,
                    host_hardware)

nlohmann::ordered_json to_json(const ProbeInfo& probe) {
  nlohmann::ordered_json j;
  to_json(j, probe);
  return j;
}

nlohmann::ordered_json to_json(const NvmlInfo& nvml) {
  nlohmann::ordered_json j;
  to_json(j, nvml);
  return j;
}

nlohmann::ordered_json to_json(const Facts& facts) {
  nlohmann::ordered_json j;
  to_json(j, facts);
  // The Windows section says nothing about a Linux machine: leave it out there, so Linux
  // snapshots stay as they were.
  if (facts.collection.os_family != "windows") {
    j.erase("windows");
  }
  return j;
}

std::string to_json_text(const Facts& facts) {
  // A name that is not UTF-8 keeps its bytes (util::keep_bytes: "k" escaped, "k_bytes" in hex);
  // from_json_text puts them back, so a snapshot gives the same facts as the run that wrote it.
  nlohmann::ordered_json j = to_json(facts);
  util::keep_bytes(j);
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Expected<Facts> from_json_text(std::string_view text) {
  try {
    auto doc = parse_bounded_json(text, k_snapshot_limits);
    if (!doc) {
      if (doc.error().code == ErrorCode::too_large) {
        return tl::unexpected(doc.error());
      }
      return make_error(ErrorCode::parse,
                        fmt::format("malformed snapshot: {}", doc.error().message));
    }
    Json& j = doc->root();
    const auto collection = j.is_object() ? j.find("collection") : j.end();
    if (collection == j.end() || !collection->is_object() || !collection->contains("schema")) {
      return make_error(ErrorCode::parse,
                        "not a cudnn-doctor snapshot: no \"collection.schema\" field");
    }
    const Json& schema = collection->at("schema");
    if (!schema.is_string() || schema.get_ref<const std::string&>() != k_snapshot_schema) {
      return make_error(
          ErrorCode::unsupported,
          fmt::format(
              "snapshot schema {} is not supported (this build reads {})",
              util::sanitize(schema.dump(-1, ' ', true, Json::error_handler_t::replace), 80),
              k_snapshot_schema));
    }
    if (!util::restore_bytes(j)) {
      return make_error(ErrorCode::parse,
                        "malformed snapshot: a \"*_bytes\" member is not the hexadecimal bytes "
                        "of the member beside it");
    }
    Facts facts;
    Reader r;
    if (!read(r, j, facts)) {
      return make_error(ErrorCode::parse,
                        fmt::format("malformed snapshot: {}", r.error().value_or("unreadable")));
    }
    if (auto valid = check_values(facts); !valid) {
      return make_error(ErrorCode::parse,
                        fmt::format("malformed snapshot: {}", valid.error().message));
    }
    return facts;
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::too_large, "not enough memory to read the snapshot");
  }
}

} // namespace facts
} // namespace doctor
