// SPDX-License-Identifier: MIT
#include <doctor/report/report.hpp>
#include <doctor/util/json_bytes.hpp>

#include <nlohmann/json.hpp>

namespace doctor::report {

namespace {

using Json = nlohmann::ordered_json;

template<typename T>
Json or_null(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json inventory_json(const Inventory& inv) {
  Json os;
  os["name"] = or_null(inv.os.name);
  os["kernel"] = or_null(inv.os.kernel);
  os["glibc"] = or_null(inv.os.glibc);
  os["architecture"] = or_null(inv.os.architecture);
  os["cpu"] = or_null(inv.os.cpu);
  os["cpu_count"] = or_null(inv.os.cpu_count);
  os["memory_total_bytes"] = or_null(inv.os.memory_total);
  os["memory_available_bytes"] = or_null(inv.os.memory_available);
  os["swap_total_bytes"] = or_null(inv.os.swap_total);
  os["unknown_reasons"] = inv.os.unknown_reasons;

  Json driver;
  driver["kernel_module"] = or_null(inv.driver.kernel_module);
  driver["kernel_module_type"] = or_null(inv.driver.kernel_module_type);
  if (!inv.driver.kernel_module) {
    driver["reason"] = inv.driver.reason;
  }
  driver["libraries"] = Json::array();
  for (const auto& lib : inv.driver.libraries) {
    driver["libraries"].push_back(
        {{"name", lib.name}, {"version", or_null(lib.version)}, {"path", lib.path}});
  }
  driver["nvml"] = {{"status", inv.driver.nvml_status},
                    {"detail", inv.driver.nvml_detail},
                    {"library", or_null(inv.driver.nvml_library)},
                    {"nvml_version", or_null(inv.driver.nvml_version)},
                    {"driver_version", or_null(inv.driver.driver_version)},
                    {"cuda_driver_version", or_null(inv.driver.cuda_driver_version)}};

  Json gpus = Json::array();
  for (const auto& g : inv.gpus) {
    gpus.push_back({{"address", g.address},
                    {"name", or_null(g.name)},
                    {"pci_id", g.pci_id},
                    {"kernel_driver", or_null(g.kernel_driver)},
                    {"compute_capability", or_null(g.compute_capability)},
                    {"uuid", or_null(g.uuid)},
                    {"memory_total_bytes", or_null(g.memory_total)}});
  }
  Json pci = {{"devices_scanned", or_null(inv.pci_devices_scanned)}};
  if (!inv.pci_devices_scanned) {
    pci["reason"] = inv.pci_reason;
  }

  Json toolkits = Json::array();
  for (const auto& tk : inv.cuda_toolkits) {
    toolkits.push_back({{"path", tk.path},
                        {"version", or_null(tk.version)},
                        {"aliases", tk.aliases},
                        {"nvcc", tk.nvcc}});
  }
  Json cudnn = Json::array();
  for (const auto& c : inv.cudnn) {
    cudnn.push_back({{"dir", c.dir},
                     {"major", c.major},
                     {"version", or_null(c.version)},
                     {"libraries", c.libraries},
                     {"package", or_null(c.package)},
                     {"found_via", c.found_via}});
  }
  Json pythons = Json::array();
  for (const auto& p : inv.python_environments) {
    Json frameworks = Json::array();
    for (const auto& f : p.frameworks) {
      frameworks.push_back({{"name", f.name},
                            {"version", or_null(f.version)},
                            {"cuda_build", or_null(f.cuda_build)},
                            {"cuda", or_null(f.cuda)},
                            {"cudnn", or_null(f.cudnn)}});
    }
    pythons.push_back({{"prefix", p.prefix},
                       {"kind", p.kind},
                       {"python_version", or_null(p.python_version)},
                       {"frameworks", frameworks},
                       {"nvidia_packages", p.nvidia_packages}});
  }
  Json out;
  out["os"] = os;
  out["driver"] = driver;
  out["pci"] = pci;
  out["gpus"] = gpus;
  out["cuda_toolkits"] = toolkits;
  out["cudnn"] = cudnn;
  out["python_environments"] = pythons;
  if (inv.windows) {
    const InventoryWindows& w = *inv.windows;
    Json windows;
    windows["build"] = or_null(w.build);
    if (w.display_adapters) {
      windows["display_adapters"] = Json::array();
      for (const auto& a : *w.display_adapters) {
        windows["display_adapters"].push_back({{"description", a.description},
                                               {"provider", a.provider},
                                               {"driver_version", a.driver_version},
                                               {"nvidia_version", or_null(a.nvidia_version)},
                                               {"driver_date", a.driver_date},
                                               {"inf_path", a.inf_path}});
      }
    } else {
      windows["display_adapters"] = nullptr;
    }
    windows["tdr_level"] = or_null(w.tdr_level);
    windows["tdr_delay_seconds"] = or_null(w.tdr_delay);
    if (w.python_registrations) {
      windows["python_registrations"] = Json::array();
      for (const auto& p : *w.python_registrations) {
        windows["python_registrations"].push_back({{"hive", p.hive},
                                                   {"company", p.company},
                                                   {"tag", p.tag},
                                                   {"install_path", p.install_path},
                                                   {"version", p.version}});
      }
    } else {
      windows["python_registrations"] = nullptr;
    }
    if (w.has_services) {
      windows["services"] = nullptr;
      if (w.services) {
        windows["services"] = Json::array();
        for (const auto& sv : *w.services) {
          windows["services"].push_back({{"name", sv.name},
                                         {"start", or_null(sv.start)},
                                         {"type", or_null(sv.type)},
                                         {"image_path", sv.image_path}});
        }
      }
    }
    if (w.has_installed_programs) {
      windows["installed_programs"] = nullptr;
      if (w.installed_programs) {
        windows["installed_programs"] = Json::array();
        for (const auto& p : *w.installed_programs) {
          windows["installed_programs"].push_back({{"view", p.view},
                                                   {"kind", p.kind},
                                                   {"display_name", p.display_name},
                                                   {"display_version", p.display_version},
                                                   {"publisher", p.publisher},
                                                   {"install_location", p.install_location}});
        }
      }
    }
    windows["unknown_reasons"] = w.unknown_reasons;
    if (!w.file_access.empty()) {
      windows["file_access"] = Json::array();
      for (const auto& a : w.file_access) {
        windows["file_access"].push_back({{"path", a.path},
                                          {"readable", a.readable},
                                          {"executable", a.executable},
                                          {"zone", a.zone},
                                          {"authenticode", a.authenticode}});
      }
    }
    out["windows"] = windows;
  }
  return out;
}

} // namespace

nlohmann::ordered_json
summary_json(const std::vector<Finding>& findings, Severity fail_on, int exit_code) {
  Json counts = {{"critical", 0}, {"error", 0}, {"warning", 0}, {"info", 0}};
  for (const Finding& f : findings) {
    counts[std::string(to_string(f.severity))] =
        counts[std::string(to_string(f.severity))].get<int>() + 1;
  }
  return {{"status", overall_status(findings)},
          {"counts", counts},
          {"fail_on", to_string(fail_on)},
          {"exit_code", exit_code}};
}

nlohmann::ordered_json findings_json(const std::vector<Finding>& findings) {
  Json out = Json::array();
  for (const Finding& f : findings) {
    Json evidence = Json::array();
    for (const Evidence& e : f.evidence) {
      evidence.push_back({{"source", e.source}, {"value", e.value}});
    }
    Json fixes = Json::array();
    for (const Fix& x : f.fixes) {
      Json fix = {{"text", x.text}};
      fix["command"] = x.command.empty() ? Json(nullptr) : Json(x.command);
      fixes.push_back(fix);
    }
    out.push_back({{"id", f.id},
                   {"severity", to_string(f.severity)},
                   {"cause_class", to_string(f.cause_class)},
                   {"title", f.title},
                   {"subject", f.subject},
                   {"message", f.message},
                   {"evidence", evidence},
                   {"fixes", fixes}});
  }
  return out;
}

nlohmann::ordered_json report_head(std::string_view schema,
                                   const std::string& tool_version,
                                   const std::string& kb_version,
                                   const std::string& command) {
  Json j;
  j["schema"] = schema;
  j["tool"] = {{"name", "cudnn-doctor"}, {"version", tool_version}, {"kb_version", kb_version}};
  j["command"] = command;
  return j;
}

std::string render_json(const Report& report) {
  Json j = report_head(k_report_schema, report.tool_version, report.kb_version, report.command);
  j["target"] = {{"kind", report.target_kind}, {"path", report.target}};
  j["inventory"] = inventory_json(report.inventory);
  j["summary"] = summary_json(report.findings, report.fail_on, exit_status(report));
  j["findings"] = findings_json(report.findings);
  util::keep_bytes(j);
  return j.dump(2) + "\n";
}

} // namespace doctor::report
