// SPDX-License-Identifier: MIT
// The Windows part of the inventory: what the registry of a Windows system says about its display
// adapters, GPU timeouts and registered Pythons, and on the live machine the DLLs whose access,
// Mark of the Web or signature is worth a line.
#include <doctor/report/inventory.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::report {

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
}

} // namespace doctor::report
