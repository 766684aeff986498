// SPDX-License-Identifier: MIT
#include <doctor/model/facts_values.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>

namespace doctor::facts {

namespace {

// Walks the enumerated fields; the first value outside its set becomes the error. The path is
// only formatted for that one.
class ValueChecker {
public:
  template<typename Where>
  void one_of(const Where& where, std::string_view value, std::span<const std::string_view> set) {
    if (m_error || std::find(set.begin(), set.end(), value) != set.end()) {
      return;
    }
    m_error = fmt::format("{}: \"{}\" is not one of {}",
                          where(),
                          util::sanitize(value, 80),
                          fmt::join(set.begin(), set.end(), ", "));
  }

  template<typename Where>
  void one_of(const Where& where, unsigned value, std::span<const unsigned> set) {
    if (m_error || std::find(set.begin(), set.end(), value) != set.end()) {
      return;
    }
    m_error = fmt::format(
        "{}: {} is not one of {}", where(), value, fmt::join(set.begin(), set.end(), ", "));
  }

  const std::optional<std::string>& error() const { return m_error; }

private:
  std::optional<std::string> m_error;
};

void check_driver(ValueChecker& c, const DriverInfo& d) {
  if (d.kernel_module_type) {
    c.one_of([] { return "driver.kernel_module_type.value"; },
             *d.kernel_module_type,
             k_kernel_module_types);
  }
  for (std::size_t i = 0; i < d.libraries.size(); ++i) {
    c.one_of([i] { return fmt::format("driver.libraries[{}].name", i); },
             d.libraries[i].name,
             k_driver_library_names);
  }
  if (d.device_nodes) {
    for (std::size_t i = 0; i < d.device_nodes->size(); ++i) {
      c.one_of([i] { return fmt::format("driver.device_nodes.value[{}].kind", i); },
               (*d.device_nodes)[i].kind,
               k_file_kinds);
    }
  }
  c.one_of([] { return "driver.nvml.status"; }, d.nvml.status, k_nvml_statuses);
}

void check_python(ValueChecker& c, const std::vector<PythonEnv>& envs) {
  for (std::size_t i = 0; i < envs.size(); ++i) {
    c.one_of(
        [i] { return fmt::format("python_envs[{}].kind", i); }, envs[i].kind, k_python_env_kinds);
    const auto& frameworks = envs[i].frameworks;
    for (std::size_t k = 0; k < frameworks.size(); ++k) {
      c.one_of([i, k] { return fmt::format("python_envs[{}].frameworks[{}].name", i, k); },
               frameworks[k].name,
               k_framework_names);
    }
  }
}

void check_files(ValueChecker& c, const Facts& facts) {
  for (std::size_t i = 0; i < facts.binaries.size(); ++i) {
    const BinaryInfo& b = facts.binaries[i];
    c.one_of([i] { return fmt::format("binaries[{}].format", i); }, b.format, k_binary_formats);
    c.one_of([i] { return fmt::format("binaries[{}].bits", i); }, b.bits, k_binary_bits);
    if (!b.read_error.empty()) {
      c.one_of(
          [i] { return fmt::format("binaries[{}].read_error", i); }, b.read_error, k_error_codes);
    }
  }
  for (std::size_t i = 0; i < facts.unreadable.size(); ++i) {
    c.one_of([i] { return fmt::format("unreadable[{}].error", i); },
             facts.unreadable[i].error,
             k_error_codes);
  }
  for (std::size_t i = 0; i < facts.probed_paths.size(); ++i) {
    const ProbedPath& p = facts.probed_paths[i];
    if (!p.kind.empty()) {
      c.one_of([i] { return fmt::format("probed_paths[{}].kind", i); }, p.kind, k_file_kinds);
    }
  }
  const auto& files = facts.integrity.files;
  for (std::size_t i = 0; i < files.size(); ++i) {
    c.one_of([i] { return fmt::format("integrity.files[{}].manager", i); },
             files[i].manager,
             k_package_managers);
    c.one_of([i] { return fmt::format("integrity.files[{}].algorithm", i); },
             files[i].algorithm,
             k_digest_algorithms);
  }
  const auto& unread = facts.integrity.unread_records;
  for (std::size_t i = 0; i < unread.size(); ++i) {
    c.one_of([i] { return fmt::format("integrity.unread_records[{}].manager", i); },
             unread[i].manager,
             k_package_managers);
  }
}

void check_windows_programs(ValueChecker& c, const WindowsInfo& w) {
  if (!w.installed_programs) {
    return;
  }
  const auto& programs = *w.installed_programs;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    c.one_of([i] { return fmt::format("windows.installed_programs[{}].view", i); },
             programs[i].view,
             k_program_views);
    c.one_of([i] { return fmt::format("windows.installed_programs[{}].kind", i); },
             programs[i].kind,
             k_program_kinds);
  }
}

} // namespace

Expected<void> check_values(const Facts& facts) {
  ValueChecker c;
  c.one_of([] { return "collection.os_family"; }, facts.collection.os_family, k_os_families);
  check_driver(c, facts.driver);
  check_python(c, facts.python_envs);
  check_files(c, facts);
  check_windows_programs(c, facts.windows);
  if (c.error()) {
    return make_error(ErrorCode::parse, *c.error());
  }
  return {};
}

} // namespace doctor::facts
