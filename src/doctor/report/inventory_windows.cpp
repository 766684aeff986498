// SPDX-License-Identifier: MIT
// The Windows part of the inventory: what the registry of a Windows system says about its display
// adapters, GPU timeouts and registered Pythons, its GPU services and the installed programs of
// its GPU stack, and on the live machine the DLLs whose access, Mark of the Web or signature is
// worth a line.
#include <doctor/report/inventory.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <array>

namespace doctor::report {

namespace {

// A fact left as Fact{} was not in the snapshot (written before the doctor collected it): it
// has no line, rather than an "unknown".
template<typename T>
bool was_collected(const facts::Fact<T>& f) {
  return f != facts::Fact<T>{};
}

std::optional<std::uint64_t> or_none(const facts::Fact<std::uint64_t>& f) {
  return f ? std::optional<std::uint64_t>(*f) : std::nullopt;
}

void add_services_and_programs(const facts::WindowsInfo& w, InventoryWindows& out) {
  out.has_services = was_collected(w.services);
  if (w.services) {
    out.services.emplace();
    for (const facts::WindowsService& s : *w.services) {
      out.services->push_back({s.name, or_none(s.start), or_none(s.type), s.image_path});
    }
  } else if (out.has_services) {
    out.unknown_reasons["services"] = w.services.reason();
  }
  out.has_installed_programs = was_collected(w.installed_programs);
  if (w.installed_programs) {
    out.installed_programs.emplace();
    for (const facts::InstalledProgram& p : *w.installed_programs) {
      out.installed_programs->push_back(
          {p.view, p.kind, p.display_name, p.display_version, p.publisher, p.install_location});
    }
  } else if (out.has_installed_programs) {
    out.unknown_reasons["installed_programs"] = w.installed_programs.reason();
  }
}

std::string start_text(const std::optional<std::uint64_t>& start) {
  if (!start) {
    return "start unknown";
  }
  constexpr std::array<const char*, 5> k_names = {
      "boot", "system", "automatic", "on demand", "disabled"};
  return *start < k_names.size() ? fmt::format("start {} ({})", *start, k_names.at(*start))
                                 : fmt::format("start {}", *start);
}

void describe_services_and_programs(const InventoryWindows& w, std::vector<InventoryLine>& out) {
  auto unknown = [&](const std::string& field) {
    auto it = w.unknown_reasons.find(field);
    return "unknown, because " + (it == w.unknown_reasons.end() ? "not known" : it->second);
  };
  if (w.has_services) {
    std::vector<std::string> services;
    for (const InventoryService& s : w.services ? *w.services : std::vector<InventoryService>{}) {
      services.push_back(fmt::format("{} {}{}{}",
                                     s.name,
                                     start_text(s.start),
                                     s.type == 1U ? ", kernel driver" : "",
                                     s.image_path.empty() ? "" : ", " + s.image_path));
    }
    if (services.empty()) {
      services.push_back(w.services ? "no NVIDIA service registered" : unknown("services"));
    }
    out.push_back({"Service", services});
  }
  if (w.has_installed_programs) {
    std::vector<std::string> programs;
    for (const InventoryProgram& p :
         w.installed_programs ? *w.installed_programs : std::vector<InventoryProgram>{}) {
      const bool named = p.display_version.empty() || p.display_name.ends_with(p.display_version);
      programs.push_back(
          fmt::format("{}{} ({})", p.display_name, named ? "" : " " + p.display_version, p.view));
    }
    if (programs.empty()) {
      programs.push_back(w.installed_programs ? "no NVIDIA, Python or VC++ programs installed"
                                              : unknown("installed_programs"));
    }
    out.push_back({"Apps", programs});
  }
}

} // namespace

std::optional<InventoryWindows> make_windows_inventory(const facts::Facts& facts) {
  const facts::WindowsInfo& w = facts.windows;
  // A snapshot whose Windows section was never collected (written before it existed) has nothing
  // to show here.
  if (facts.collection.os_family != "windows" || w == facts::WindowsInfo{}) {
    return std::nullopt;
  }
  InventoryWindows out;
  if (w.build) {
    out.build = *w.build;
  } else {
    out.unknown_reasons["build"] = w.build.reason();
  }
  if (w.display_adapters) {
    out.display_adapters.emplace();
    for (const facts::DisplayAdapter& a : *w.display_adapters) {
      out.display_adapters->push_back(
          {a.description,
           a.provider,
           a.driver_version,
           a.nvidia_version ? std::optional<std::string>(*a.nvidia_version) : std::nullopt,
           a.driver_date,
           a.inf_path});
    }
  } else {
    out.unknown_reasons["display_adapters"] = w.display_adapters.reason();
  }
  if (w.tdr) {
    auto take = [&](const facts::Fact<std::uint64_t>& f, const char* field) {
      if (!f) {
        out.unknown_reasons[field] = f.reason();
        return std::optional<std::uint64_t>();
      }
      return std::optional<std::uint64_t>(*f);
    };
    out.tdr_level = take(w.tdr->tdr_level, "tdr_level");
    out.tdr_delay = take(w.tdr->tdr_delay, "tdr_delay_seconds");
  } else {
    out.unknown_reasons["tdr_level"] = out.unknown_reasons["tdr_delay_seconds"] = w.tdr.reason();
  }
  if (w.python_registrations) {
    out.python_registrations.emplace();
    for (const facts::PythonRegistration& p : *w.python_registrations) {
      out.python_registrations->push_back({p.hive, p.company, p.tag, p.install_path, p.version});
    }
  } else {
    out.unknown_reasons["python_registrations"] = w.python_registrations.reason();
  }
  for (const facts::WindowsFileAccess& a : w.file_access) {
    out.file_access.push_back({a.path, a.readable, a.executable, a.zone, a.authenticode});
  }
  add_services_and_programs(w, out);
  return out;
}

void describe_windows_inventory(const InventoryWindows& w, std::vector<InventoryLine>& out) {
  auto why = [&](const std::string& field) {
    auto it = w.unknown_reasons.find(field);
    return it == w.unknown_reasons.end() ? std::string() : ", because " + it->second;
  };
  std::vector<std::string> display;
  for (const InventoryDisplayAdapter& a :
       w.display_adapters ? *w.display_adapters : std::vector<InventoryDisplayAdapter>{}) {
    std::vector<std::string> bits;
    if (!a.provider.empty()) {
      bits.push_back(a.provider);
    }
    if (!a.driver_version.empty()) {
      bits.push_back("driver " + a.driver_version
                     + (a.nvidia_version ? " (NVIDIA " + *a.nvidia_version + ")" : ""));
    }
    if (!a.driver_date.empty()) {
      bits.push_back(a.driver_date);
    }
    if (!a.inf_path.empty()) {
      bits.push_back(a.inf_path);
    }
    display.push_back(fmt::format("{}{}",
                                  a.description.empty() ? "unnamed adapter" : a.description,
                                  bits.empty() ? "" : ", " + util::join(bits, ", ")));
  }
  if (display.empty()) {
    display.push_back(w.display_adapters ? "none in the display class key"
                                         : "unknown" + why("display_adapters"));
  }
  out.push_back({"Display", display});

  // A value not set reads "TdrDelay not set (Windows default 2 s)"; settings that cannot be read
  // at all say so once.
  auto reason_of = [&](const std::string& field) {
    auto it = w.unknown_reasons.find(field);
    return it == w.unknown_reasons.end() ? std::string("unknown") : it->second;
  };
  const std::string delay_reason = reason_of("tdr_delay_seconds");
  if (!w.tdr_delay && !w.tdr_level && delay_reason == reason_of("tdr_level")
      && !delay_reason.starts_with("not set")) {
    out.push_back({"TDR", {"unknown, because " + delay_reason}});
  } else {
    const std::string delay =
        w.tdr_delay ? fmt::format("TdrDelay {} s", *w.tdr_delay) : "TdrDelay " + delay_reason;
    const std::string level = w.tdr_level ? fmt::format("TdrLevel {}", *w.tdr_level)
                                          : "TdrLevel " + reason_of("tdr_level");
    out.push_back({"TDR", {delay + "; " + level}});
  }

  std::vector<std::string> registered;
  for (const InventoryPythonRegistration& p : w.python_registrations
                                                  ? *w.python_registrations
                                                  : std::vector<InventoryPythonRegistration>{}) {
    registered.push_back(
        fmt::format("{} {} {}{} at {}",
                    p.hive,
                    p.company,
                    p.tag,
                    p.version.empty() || p.version == p.tag ? "" : " (" + p.version + ")",
                    p.install_path));
  }
  if (registered.empty()) {
    registered.push_back(w.python_registrations ? "no PEP 514 registrations"
                                                : "unknown" + why("python_registrations"));
  }
  out.push_back({"PEP 514", registered});

  // Only the DLLs with something to say, so a machine without any shows no line at all.
  std::vector<std::string> access;
  for (const InventoryFileAccess& a : w.file_access) {
    std::vector<std::string> bits;
    if (!a.readable) {
      bits.emplace_back("not readable by this user");
    }
    if (!a.executable) {
      bits.emplace_back("not executable by this user");
    }
    if (a.zone != 0) {
      bits.push_back(fmt::format("Zone.Identifier ZoneId {}", a.zone));
    }
    if (!a.authenticode.empty()) {
      bits.push_back("Authenticode " + a.authenticode);
    }
    access.push_back(a.path + ": " + (bits.empty() ? "nothing noted" : util::join(bits, ", ")));
  }
  if (!access.empty()) {
    out.push_back({"DLL access", access});
  }
  describe_services_and_programs(w, out);
}

} // namespace doctor::report
