// SPDX-License-Identifier: MIT
#include <doctor/model/facts_json.hpp>
#include <doctor/util/json.hpp>

#include <fmt/format.h>

namespace doctor {

// Versions are written as their original text ("535.261.03" keeps its leading zero).
void to_json(nlohmann::ordered_json& j, const Version& v) {
  j = v.str();
}

void from_json(const nlohmann::ordered_json& j, Version& v) {
  auto parsed = Version::parse(j.get<std::string>());
  if (!parsed) {
    throw nlohmann::ordered_json::other_error::create(
        599, fmt::format("not a version: {}", j.get<std::string>()), &j);
  }
  v = *parsed;
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

template<typename T>
void from_json(const nlohmann::ordered_json& j, Fact<T>& f) {
  if (j.contains("value")) {
    f = Fact<T>::known(j.at("value").get<T>(), j.value("source", std::string()));
  } else if (j.contains("unknown")) {
    f = Fact<T>::unknown(j.at("unknown").get<std::string>());
  } else {
    throw nlohmann::ordered_json::other_error::create(
        599, "a fact needs \"value\" or \"unknown\"", &j);
  }
}

// Field lists, one per structure. WITH_DEFAULT lets a snapshot omit fields a later version added.
DOCTOR_JSON_FIELDS(CollectorError, collector, message)
DOCTOR_JSON_FIELDS(
    CollectionInfo, schema, tool_version, os_family, sysroot, live, collected_at, errors)
DOCTOR_JSON_FIELDS(OsInfo,
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
DOCTOR_JSON_FIELDS(DeviceNode, path, kind, mode, uid, gid, major, minor)
DOCTOR_JSON_FIELDS(DriverLibrary, name, path, version, stub)
DOCTOR_JSON_FIELDS(
    NvmlDevice, index, name, uuid, pci_bus_id, compute_capability, memory_total, memory_free)
DOCTOR_JSON_FIELDS(NvmlInfo,
                   status,
                   detail,
                   library,
                   init_result,
                   nvml_version,
                   driver_version,
                   cuda_driver_version,
                   devices)
DOCTOR_JSON_FIELDS(KernelModules, kernel_release, nvidia_modules)
DOCTOR_JSON_FIELDS(DriverInfo,
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
DOCTOR_JSON_FIELDS(PciDevice,
                   address,
                   vendor_id,
                   device_id,
                   subsystem_vendor_id,
                   subsystem_device_id,
                   class_code,
                   name,
                   driver)
DOCTOR_JSON_FIELDS(PciScan, devices_scanned, nvidia_gpus, other_displays)
DOCTOR_JSON_FIELDS(
    CudaToolkit, path, aliases, found_via, version, runtime_version, nvcc, library_dirs)
DOCTOR_JSON_FIELDS(CudnnLibrary, name, member, major, real_path, size, version)
DOCTOR_JSON_FIELDS(CudnnInstall, dir, major, found_via, version, header_version, package, libraries)
DOCTOR_JSON_FIELDS(PythonPackage, name, version, source)
DOCTOR_JSON_FIELDS(
    Framework, name, location, version, cuda_build, cuda_version, cudnn_version, cuda_archs)
DOCTOR_JSON_FIELDS(
    PythonEnv, prefix, kind, found_via, python_version, site_packages, packages, frameworks)
DOCTOR_JSON_FIELDS(LdCacheEntry, name, path, arch)
DOCTOR_JSON_FIELDS(LinkerInfo, conf_dirs, cache, default_dirs)
DOCTOR_JSON_FIELDS(UserInfo, uid, gids, group_names)
DOCTOR_JSON_FIELDS(MountInfo, mount_point, fs_type, options)
DOCTOR_JSON_FIELDS(BinaryVersionNeed, file, versions)
DOCTOR_JSON_FIELDS(BinaryInfo,
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
                   problems)
DOCTOR_JSON_FIELDS(ProbedPath, path, exists, kind, real_path, mode, uid, gid)
DOCTOR_JSON_FIELDS(FileVerification,
                   path,
                   manager,
                   package,
                   record,
                   algorithm,
                   expected,
                   actual,
                   expected_size,
                   actual_size)
DOCTOR_JSON_FIELDS(UnreadPackageRecord, record, manager, package, reason)
DOCTOR_JSON_FIELDS(IntegrityInfo, requested, files, unread_records, files_hashed, bytes_hashed)
DOCTOR_JSON_FIELDS(Facts,
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
                   integrity)

nlohmann::ordered_json to_json(const Facts& facts) {
  nlohmann::ordered_json j;
  to_json(j, facts);
  return j;
}

std::string to_json_text(const Facts& facts) {
  return to_json(facts).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
         + "\n";
}

Expected<Facts> from_json_text(std::string_view text) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::ordered_json::parse_error& e) {
    return make_error(ErrorCode::parse, fmt::format("not JSON ({})", e.what()));
  }
  if (!j.is_object() || !j.contains("collection") || !j["collection"].is_object()
      || !j["collection"].contains("schema")) {
    return make_error(ErrorCode::parse,
                      "not a cudnn-doctor snapshot: no \"collection.schema\" field");
  }
  const auto& schema = j["collection"]["schema"];
  if (!schema.is_string() || schema.get<std::string>() != k_snapshot_schema) {
    return make_error(ErrorCode::unsupported,
                      fmt::format("snapshot schema {} is not supported (this build reads {})",
                                  schema.dump(),
                                  k_snapshot_schema));
  }
  try {
    return j.get<Facts>();
  } catch (const nlohmann::ordered_json::exception& e) {
    return make_error(ErrorCode::parse, fmt::format("malformed snapshot: {}", e.what()));
  }
}

} // namespace facts
} // namespace doctor
