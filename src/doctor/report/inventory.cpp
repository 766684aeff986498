// SPDX-License-Identifier: MIT
#include <doctor/report/inventory.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::report {

namespace {

template<typename T>
std::optional<T> opt(const facts::Fact<T>& f) {
  return f ? std::optional<T>(*f) : std::nullopt;
}

std::optional<std::string> opt_version(const facts::Fact<Version>& f) {
  return f ? std::optional<std::string>(f->str()) : std::nullopt;
}

// NVML writes bus ids as "00000000:01:00.0"; sysfs as "0000:01:00.0".
std::string short_bus_id(std::string_view id) {
  const auto colon = id.find(':');
  if (colon != std::string_view::npos && colon > 4) {
    id.remove_prefix(colon - 4);
  }
  return util::to_lower(id);
}

} // namespace

Inventory make_inventory(const facts::Facts& facts) {
  Inventory inv;
  const facts::OsInfo& os = facts.os;
  inv.os.name = opt(os.pretty_name);
  inv.os.kernel = opt(os.kernel_release);
  inv.os.glibc = opt_version(os.glibc_version);
  inv.os.architecture = opt(os.architecture);
  inv.os.cpu = opt(os.cpu_model);
  inv.os.cpu_count = opt(os.cpu_count);
  inv.os.memory_total = opt(os.memory_total);
  inv.os.memory_available = opt(os.memory_available);
  inv.os.swap_total = opt(os.swap_total);
  inv.windows = make_windows_inventory(facts);
  auto reason = [&](const char* field, const auto& fact) {
    if (!fact) {
      inv.os.unknown_reasons[field] = fact.reason();
    }
  };
  reason("name", os.pretty_name);
  reason("kernel", os.kernel_release);
  reason("glibc", os.glibc_version);
  reason("architecture", os.architecture);
  reason("cpu", os.cpu_model);
  reason("cpu_count", os.cpu_count);
  reason("memory_total_bytes", os.memory_total);
  reason("memory_available_bytes", os.memory_available);
  reason("swap_total_bytes", os.swap_total);

  const facts::DriverInfo& d = facts.driver;
  inv.driver.kernel_module = opt(d.kernel_module_version);
  inv.driver.kernel_module_type = opt(d.kernel_module_type);
  inv.driver.reason = d.kernel_module_version.reason();
  for (const facts::DriverLibrary& lib : d.libraries) {
    if (!lib.stub) {
      inv.driver.libraries.push_back({lib.name, opt(lib.version), lib.path});
    }
  }
  inv.driver.nvml_status = d.nvml.status;
  inv.driver.nvml_detail = d.nvml.detail;
  inv.driver.nvml_library = opt(d.nvml.library);
  inv.driver.nvml_version = opt(d.nvml.nvml_version);
  inv.driver.driver_version = opt(d.nvml.driver_version);
  inv.driver.cuda_driver_version = opt(d.nvml.cuda_driver_version);

  if (facts.pci) {
    inv.pci_devices_scanned = facts.pci->devices_scanned;
    for (const facts::PciDevice& p : facts.pci->nvidia_gpus) {
      InventoryGpu g;
      g.address = p.address;
      g.name = opt(p.name);
      g.pci_id = fmt::format("{:04x}:{:04x}", p.vendor_id, p.device_id);
      g.kernel_driver = opt(p.driver);
      inv.gpus.push_back(std::move(g));
    }
  } else {
    inv.pci_reason = facts.pci.reason();
  }
  if (d.nvml.devices) {
    for (const facts::NvmlDevice& n : *d.nvml.devices) {
      InventoryGpu* match = nullptr;
      if (n.pci_bus_id) {
        for (InventoryGpu& g : inv.gpus) {
          if (short_bus_id(g.address) == short_bus_id(*n.pci_bus_id)) {
            match = &g;
          }
        }
      }
      if (match == nullptr) {
        InventoryGpu g;
        g.address = n.pci_bus_id ? short_bus_id(*n.pci_bus_id) : fmt::format("nvml:{}", n.index);
        inv.gpus.push_back(std::move(g));
        match = &inv.gpus.back();
      }
      if (n.name) {
        match->name = *n.name; // NVML's marketing name beats pci.ids' chip name
      }
      match->compute_capability = opt(n.compute_capability);
      match->uuid = opt(n.uuid);
      match->memory_total = opt(n.memory_total);
    }
  }

  for (const facts::CudaToolkit& tk : facts.cuda_toolkits) {
    inv.cuda_toolkits.push_back(
        {tk.path, opt_version(tk.version), tk.aliases, tk.nvcc.has_value()});
  }
  for (const facts::CudnnInstall& c : facts.cudnn) {
    InventoryCudnn ic;
    ic.dir = c.dir;
    ic.major = c.major;
    ic.version = opt_version(c.version);
    for (const facts::CudnnLibrary& lib : c.libraries) {
      ic.libraries.push_back(lib.name);
    }
    ic.package = opt(c.package);
    ic.found_via = c.found_via;
    inv.cudnn.push_back(std::move(ic));
  }
  for (const facts::PythonEnv& env : facts.python_envs) {
    InventoryPython p;
    p.prefix = env.prefix;
    p.kind = env.kind;
    p.python_version = opt(env.python_version);
    for (const facts::Framework& f : env.frameworks) {
      p.frameworks.push_back(
          {f.name, opt(f.version), opt(f.cuda_build), opt(f.cuda_version), opt(f.cudnn_version)});
    }
    for (const facts::PythonPackage& pkg : env.packages) {
      if (pkg.name.starts_with("nvidia-")) {
        p.nvidia_packages.push_back(pkg.name + " " + pkg.version);
      }
    }
    inv.python_environments.push_back(std::move(p));
  }
  return inv;
}

} // namespace doctor::report

namespace doctor::report {

std::string human_bytes(std::uint64_t bytes);

namespace {

std::string why(const InventoryOs& os, const char* field) {
  const auto it = os.unknown_reasons.find(field);
  return it == os.unknown_reasons.end() ? std::string() : " (" + it->second + ")";
}

std::string os_line(const InventoryOs& os) {
  std::vector<std::string> parts;
  parts.push_back(os.name ? *os.name : "OS unknown" + why(os, "name"));
  parts.push_back(os.kernel ? "kernel " + *os.kernel : "kernel unknown" + why(os, "kernel"));
  if (os.glibc) {
    parts.push_back("glibc " + *os.glibc);
  }
  if (os.architecture) {
    parts.push_back(*os.architecture);
  }
  return util::join(parts, ", ");
}

std::string host_line(const InventoryOs& os) {
  std::vector<std::string> parts;
  if (os.cpu) {
    parts.push_back(os.cpu_count ? fmt::format("{} ({} CPUs)", *os.cpu, *os.cpu_count) : *os.cpu);
  }
  if (os.memory_total) {
    parts.push_back(os.memory_available ? fmt::format("{} RAM ({} available)",
                                                      human_bytes(*os.memory_total),
                                                      human_bytes(*os.memory_available))
                                        : human_bytes(*os.memory_total) + " RAM");
  }
  if (os.swap_total) {
    parts.push_back(*os.swap_total == 0 ? "no swap" : human_bytes(*os.swap_total) + " swap");
  }
  if (!os.cpu) {
    parts.push_back("CPU unknown" + why(os, "cpu"));
  }
  if (!os.memory_total) {
    parts.push_back("RAM unknown" + why(os, "memory_total_bytes"));
  }
  return util::join(parts, ", ");
}

} // namespace

std::vector<InventoryLine> describe_inventory(const Inventory& inv) {
  std::vector<InventoryLine> out;
  out.push_back({"OS", {os_line(inv.os)}});
  out.push_back({"Host", {host_line(inv.os)}});

  const InventoryDriver& d = inv.driver;
  std::vector<std::string> driver;
  if (d.kernel_module) {
    driver.push_back(fmt::format("kernel module {}{}",
                                 *d.kernel_module,
                                 d.kernel_module_type ? " (" + *d.kernel_module_type + ")" : ""));
  } else if (!inv.windows) {
    // Windows has no kernel module to name: its driver is the display adapter's (in the Windows
    // lines) and nvcuda.dll's version below.
    driver.push_back("kernel module unknown, because " + d.reason);
  }
  for (const auto& lib : d.libraries) {
    driver.push_back(fmt::format("{} {} ({})", lib.name, lib.version.value_or("?"), lib.path));
  }
  out.push_back({"Driver", driver});

  std::string nvml;
  if (d.nvml_status == "ok") {
    nvml = fmt::format("driver {}, supports CUDA {} ({})",
                       d.driver_version.value_or("?"),
                       d.cuda_driver_version.value_or("?"),
                       d.nvml_library.value_or("NVML"));
  } else if (d.nvml_library) {
    nvml = fmt::format("{}{}: {}",
                       *d.nvml_library,
                       d.nvml_version ? " (NVML " + *d.nvml_version + ")" : "",
                       d.nvml_detail);
  } else {
    nvml = d.nvml_detail.empty() ? d.nvml_status : d.nvml_detail;
  }
  out.push_back({"NVML", {nvml}});

  std::vector<std::string> gpus;
  for (const auto& g : inv.gpus) {
    std::vector<std::string> bits;
    bits.push_back(g.name.value_or("unnamed NVIDIA device"));
    if (!g.pci_id.empty()) {
      bits.push_back("[" + g.pci_id + "]");
    }
    if (g.compute_capability) {
      bits.push_back("sm " + *g.compute_capability);
    }
    if (g.memory_total) {
      bits.push_back(human_bytes(*g.memory_total));
    }
    bits.push_back("at " + g.address);
    bits.push_back(g.kernel_driver ? "driver " + *g.kernel_driver : "no driver bound");
    gpus.push_back(util::join(bits, " "));
  }
  if (gpus.empty()) {
    gpus.push_back(inv.pci_devices_scanned ? fmt::format(
                       "none on the PCI bus ({} devices examined)", *inv.pci_devices_scanned)
                                           : "unknown: " + inv.pci_reason);
  }
  out.push_back({"GPUs", gpus});

  std::vector<std::string> toolkits;
  for (const auto& tk : inv.cuda_toolkits) {
    std::string line = fmt::format("{} at {}", tk.version.value_or("unknown version"), tk.path);
    if (!tk.aliases.empty()) {
      line += " (also " + util::join(tk.aliases, ", ") + ")";
    }
    if (!tk.nvcc) {
      line += ", no nvcc";
    }
    toolkits.push_back(line);
  }
  if (toolkits.empty()) {
    toolkits.push_back("none found");
  }
  out.push_back({"CUDA", toolkits});

  std::vector<std::string> cudnn;
  for (const auto& c : inv.cudnn) {
    std::string line = fmt::format("{} at {}: {} libraries",
                                   c.version.value_or(fmt::format("{}.x", c.major)),
                                   c.dir,
                                   c.libraries.size());
    if (c.package) {
      line += " (" + *c.package + ")";
    }
    if (!c.found_via.empty()) {
      line += ", found via " + util::join(c.found_via, ", ");
    }
    cudnn.push_back(line);
  }
  if (cudnn.empty()) {
    cudnn.push_back("none found");
  }
  out.push_back({"cuDNN", cudnn});

  std::vector<std::string> pythons;
  for (const auto& p : inv.python_environments) {
    std::string line = fmt::format(
        "{} ({}{})", p.prefix, p.kind, p.python_version ? ", Python " + *p.python_version : "");
    std::vector<std::string> fw;
    for (const auto& f : p.frameworks) {
      std::string s = f.name + " " + f.version.value_or("?");
      if (f.cuda_build && !*f.cuda_build) {
        s += " (CPU-only build)";
      } else if (f.cuda || f.cudnn) {
        std::vector<std::string> built;
        if (f.cuda) {
          built.push_back("CUDA " + *f.cuda);
        }
        if (f.cudnn) {
          built.push_back("cuDNN " + *f.cudnn);
        }
        s += " (" + util::join(built, ", ") + ")";
      }
      fw.push_back(s);
    }
    line += fw.empty() ? ": no GPU framework" : ": " + util::join(fw, "; ");
    pythons.push_back(line);
  }
  if (pythons.empty()) {
    pythons.push_back("none found");
  }
  out.push_back({"Python", pythons});
  if (inv.windows) {
    describe_windows_inventory(*inv.windows, out);
  }
  return out;
}

} // namespace doctor::report
