// SPDX-License-Identifier: MIT
#include <doctor/checks/compat_facts.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>

namespace doctor::checks {

kb::Os os_of(const facts::Facts& facts) {
  return facts.collection.os_family == "windows" ? kb::Os::windows : kb::Os::linux;
}

std::optional<DriverVersion> installed_driver(const facts::Facts& facts) {
  const auto& drv = facts.driver;
  if (drv.kernel_module_version) {
    if (auto v = Version::parse(*drv.kernel_module_version)) {
      return DriverVersion{*v, evidence_of(drv.kernel_module_version, "NVIDIA kernel module")};
    }
  }
  if (drv.nvml.driver_version) {
    if (auto v = Version::parse(*drv.nvml.driver_version)) {
      return DriverVersion{*v, evidence_of(drv.nvml.driver_version, "driver version (NVML)")};
    }
  }
  for (const facts::DriverLibrary& lib : drv.libraries) {
    if (lib.name == "libcuda" && !lib.stub && lib.version) {
      if (auto v = Version::parse(*lib.version)) {
        return DriverVersion{*v, evidence_of(lib.version, "user-space driver " + lib.path)};
      }
    }
  }
  return std::nullopt;
}

std::vector<GpuCc> gpus_with_cc(const facts::Facts& facts, const kb::CompatTables& compat) {
  std::vector<GpuCc> out;
  const auto& nvml = facts.driver.nvml;
  if (nvml.devices && !nvml.devices->empty()) {
    out.reserve(nvml.devices->size());
    for (const facts::NvmlDevice& dev : *nvml.devices) {
      GpuCc g;
      g.description = fmt::format("GPU {} {}", dev.index, dev.name.value_or("(name unknown)"));
      if (dev.compute_capability) {
        g.cc = Version::parse(*dev.compute_capability);
        g.cc_source = "nvml";
      }
      g.evidence.push_back(evidence_of(dev.compute_capability,
                                       fmt::format("{}: compute capability", g.description)));
      out.push_back(std::move(g));
    }
    return out;
  }
  if (!facts.pci) {
    return out;
  }
  out.reserve(facts.pci->nvidia_gpus.size());
  for (const facts::PciDevice& dev : facts.pci->nvidia_gpus) {
    GpuCc g;
    const kb::GpuModelRow* model =
        compat.gpu_model(static_cast<std::uint16_t>(dev.device_id),
                         static_cast<std::uint16_t>(dev.subsystem_vendor_id),
                         static_cast<std::uint16_t>(dev.subsystem_device_id));
    const std::string name =
        model ? model->name : dev.name.value_or(fmt::format("device {:04x}", dev.device_id));
    g.description = fmt::format("NVIDIA {} (10de:{:04x} at {})", name, dev.device_id, dev.address);
    if (model) {
      g.cc = model->cc;
      g.cc_source = fmt::format("kb:pci 10de:{:04x}", dev.device_id);
      g.evidence.push_back(
          Evidence{facts.pci.source(),
                   fmt::format("{}: PCI id 10de:{:04x} is a {} {} of compute capability {} ({})",
                               dev.address,
                               dev.device_id,
                               model->chip,
                               model->name,
                               model->cc.str(),
                               model->source)});
    } else {
      g.evidence.push_back(
          Evidence{facts.pci.source(),
                   fmt::format("{}: PCI id 10de:{:04x} is not in the knowledge base's GPU table",
                               dev.address,
                               dev.device_id)});
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<GpuCc> gpu_kinds(const facts::Facts& facts, const kb::CompatTables& compat) {
  std::vector<GpuCc> kinds;
  std::vector<std::size_t> more;
  for (GpuCc& g : gpus_with_cc(facts, compat)) {
    auto same = std::find_if(
        kinds.begin(), kinds.end(), [&](const GpuCc& k) { return k.cc && g.cc && *k.cc == *g.cc; });
    if (same == kinds.end()) {
      kinds.push_back(std::move(g));
      more.push_back(0);
      continue;
    }
    ++more[static_cast<std::size_t>(same - kinds.begin())];
    same->evidence.insert(same->evidence.end(), g.evidence.begin(), g.evidence.end());
  }
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (more[i] > 0) {
      kinds[i].description +=
          fmt::format(" and {} more of compute capability {}", more[i], kinds[i].cc->str());
    }
  }
  return kinds;
}

unsigned cudnn_cuda_major(const facts::CudnnInstall& inst) {
  if (!inst.package) {
    return 0;
  }
  const std::string& p = *inst.package;
  for (const std::string_view marker : {"-cu", "-cuda-", "+cuda"}) {
    for (auto at = p.find(marker); at != std::string::npos; at = p.find(marker, at + 1)) {
      std::size_t i = at + marker.size();
      unsigned major = 0;
      while (i < p.size() && p[i] >= '0' && p[i] <= '9' && major < 1000) {
        major = major * 10 + static_cast<unsigned>(p[i++] - '0');
      }
      if (major >= 7) {
        return major;
      }
    }
  }
  return 0;
}

std::optional<Version> framework_version(const facts::Framework& fw) {
  return fw.version ? Version::parse_prefix(*fw.version) : std::nullopt;
}

util::Command pip_command(const facts::PythonEnv& env, kb::Os os) {
  util::Command c;
  c.value(os == kb::Os::windows ? env.prefix + "\\python.exe" : env.prefix + "/bin/python");
  return c.text(" -m pip");
}

util::Shell shell_for(kb::Os os) {
  return os == kb::Os::windows ? util::Shell::cmd : util::Shell::posix;
}

util::Command install_command(const kb::FrameworkBuildRow& row,
                              const facts::Framework& fw,
                              const facts::PythonEnv& env,
                              kb::Os os,
                              bool same_release) {
  util::Command pip = pip_command(env, os);
  const auto version = framework_version(fw);
  if (same_release && fw.name == "torch" && !row.variant.empty() && version) {
    return pip.text(" install torch==")
        .value(version->str())
        .text(" --index-url https://download.pytorch.org/whl/")
        .value(row.variant);
  }
  // The row's command is the knowledge base's own text.
  if (row.install.starts_with("pip ")) {
    return pip.text(row.install.substr(3));
  }
  return util::Command(row.install);
}

std::vector<BuildArch> parse_build_archs(const std::vector<std::string>& archs) {
  std::vector<BuildArch> out;
  out.reserve(archs.size());
  for (const std::string& raw : archs) {
    std::string_view a = util::trim(raw);
    BuildArch b;
    if (a.starts_with("sm_") || a.starts_with("compute_")) {
      const auto name = kb::parse_arch_name(a);
      if (!name) {
        continue;
      }
      b.cc = name->cc;
      b.ptx = name->ptx;
      b.arch_specific = name->suffix == 'a';
    } else {
      if (a.ends_with("+PTX")) {
        b.ptx = true;
        a.remove_suffix(4);
      }
      auto v = Version::parse(a);
      if (!v) {
        continue;
      }
      b.cc = *v;
      if (b.ptx) {
        // "9.0+PTX" is SASS for 9.0 and PTX of 9.0: both.
        out.push_back(BuildArch{b.cc, false, false});
      }
    }
    out.push_back(b);
  }
  return out;
}

bool build_runs_on(const std::vector<BuildArch>& archs, const Version& cc) {
  for (const BuildArch& a : archs) {
    if (a.ptx) {
      if (a.cc <= cc) {
        return true;
      }
    } else if (a.arch_specific) {
      if (a.cc == cc) {
        return true;
      }
    } else if (a.cc.major() == cc.major() && a.cc.minor() <= cc.minor()) {
      return true;
    }
  }
  return false;
}

} // namespace doctor::checks
