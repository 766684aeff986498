// SPDX-License-Identifier: MIT
// The lookups over the compatibility tables and the version decoders; parsing is in
// compat_parse.cpp.
#include <doctor/kb/compat.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>

namespace doctor::kb {

std::size_t CompatTables::rows_of_kind(std::string_view kind) const {
  if (kind == "cuda_drivers") {
    return m_cuda_drivers.size() + m_minor_compat.size() + m_branches.size();
  }
  if (kind == "cudnn_releases") {
    return m_cudnn_releases.size() + m_cudnn_packages.size();
  }
  if (kind == "frameworks") {
    return m_framework_builds.size();
  }
  if (kind == "gpus") {
    return m_architectures.size() + m_gpu_models.size();
  }
  return 0;
}

std::vector<std::string_view> CompatTables::sources() const {
  std::vector<std::string_view> out;
  out.reserve(m_cuda_drivers.size() + m_minor_compat.size() + m_branches.size()
              + m_architectures.size() + m_gpu_models.size() + m_cudnn_releases.size()
              + m_cudnn_packages.size() + m_framework_builds.size());
  const auto add = [&out](const auto& rows) {
    for (const auto& r : rows) {
      out.emplace_back(r.source);
    }
  };
  add(m_cuda_drivers);
  add(m_minor_compat);
  add(m_branches);
  add(m_architectures);
  add(m_gpu_models);
  add(m_cudnn_releases);
  add(m_cudnn_packages);
  add(m_framework_builds);
  return out;
}

const CudaDriverRow* CompatTables::toolkit_driver(const Version& cuda) const {
  const CudaDriverRow* newest_not_newer = nullptr;
  const CudaDriverRow* oldest = nullptr;
  for (const CudaDriverRow& r : m_cuda_drivers) {
    if (r.cuda.major() != cuda.major() || r.cuda.minor() != cuda.minor()) {
      continue;
    }
    if (r.cuda <= cuda && (newest_not_newer == nullptr || r.cuda > newest_not_newer->cuda)) {
      newest_not_newer = &r;
    }
    if (oldest == nullptr || r.cuda < oldest->cuda) {
      oldest = &r;
    }
  }
  return newest_not_newer != nullptr ? newest_not_newer : oldest;
}

const MinorCompatRow* CompatTables::minor_compat_for(const Version& cuda) const {
  for (const MinorCompatRow& r : m_minor_compat) {
    if (r.cuda_major == cuda.major() && cuda.truncated(r.first.size()) >= r.first
        && cuda.truncated(r.last.size()) <= r.last) {
      return &r;
    }
  }
  return nullptr;
}

std::optional<Version>
CompatTables::minimum_driver(const Version& cuda, Os os, bool minor_compat) const {
  if (minor_compat) {
    if (const MinorCompatRow* mc = minor_compat_for(cuda)) {
      const auto& floor = os == Os::linux ? mc->linux_min : mc->windows_min;
      if (floor) {
        return floor;
      }
    }
  }
  const CudaDriverRow* row = toolkit_driver(cuda);
  if (row == nullptr) {
    return std::nullopt;
  }
  return os == Os::linux ? row->linux_min : row->windows_min;
}

const DriverBranchRow* CompatTables::branch_of(const Version& driver) const {
  if (driver.empty()) {
    return nullptr;
  }
  for (const DriverBranchRow& r : m_branches) {
    if (r.branch == driver.major()) {
      return &r;
    }
  }
  return nullptr;
}

const ArchitectureRow* CompatTables::architecture(const Version& cc) const {
  for (const ArchitectureRow& r : m_architectures) {
    if (r.cc == cc) {
      return &r;
    }
  }
  return nullptr;
}

const GpuModelRow* CompatTables::gpu_model(std::uint16_t device_id,
                                           std::uint16_t subsystem_vendor,
                                           std::uint16_t subsystem_device) const {
  const GpuModelRow* generic = nullptr;
  for (const GpuModelRow& r : m_gpu_models) {
    if (r.device_id != device_id) {
      continue;
    }
    if (!r.subsystem_vendor) {
      if (generic == nullptr) {
        generic = &r;
      }
    } else if (*r.subsystem_vendor == subsystem_vendor && r.subsystem_device
               && *r.subsystem_device == subsystem_device) {
      return &r;
    }
  }
  return generic;
}

const CudnnReleaseRow* CompatTables::cudnn_release(const Version& version) const {
  for (const CudnnReleaseRow& r : m_cudnn_releases) {
    if (r.applies_to(version)) {
      return &r;
    }
  }
  return nullptr;
}

std::vector<const CudnnPackageRow*> CompatTables::cudnn_packages_for(
    unsigned cudnn_major, unsigned cuda_major, std::string_view manager) const {
  std::vector<std::pair<Version, const CudnnPackageRow*>> found;
  for (const CudnnPackageRow& r : m_cudnn_packages) {
    const auto v = Version::parse(r.version);
    if (v && v->major() == cudnn_major && r.cuda_major == cuda_major && r.manager == manager) {
      found.emplace_back(*v, &r);
    }
  }
  std::stable_sort(
      found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<const CudnnPackageRow*> out;
  out.reserve(found.size());
  for (const auto& f : found) {
    out.push_back(f.second);
  }
  return out;
}

std::vector<const FrameworkBuildRow*> CompatTables::framework_builds_for(std::string_view framework,
                                                                         const Version& version,
                                                                         Os os) const {
  std::vector<const FrameworkBuildRow*> out;
  for (const FrameworkBuildRow& r : m_framework_builds) {
    if (r.framework == framework && r.os == os && in_version_range(r.versions, version)) {
      out.push_back(&r);
    }
  }
  return out;
}

bool CudnnReleaseRow::applies_to(const Version& version) const {
  return in_version_range(versions, version);
}

bool in_version_range(std::string_view range, const Version& version) {
  if (range.empty()) {
    return true;
  }
  if (range.starts_with(">=")) {
    const auto lo = Version::parse(range.substr(2));
    return lo && version >= *lo;
  }
  if (range.starts_with("<=")) {
    const auto hi = Version::parse(range.substr(2));
    return hi && version.truncated(hi->size()) <= *hi;
  }
  const auto dash = range.find('-');
  if (dash == std::string_view::npos) {
    const auto only = Version::parse(range);
    return only && version.starts_with(*only);
  }
  const auto lo = Version::parse(range.substr(0, dash));
  const auto hi = Version::parse(range.substr(dash + 1));
  return lo && hi && version >= *lo && version.truncated(hi->size()) <= *hi;
}

std::optional<Version> nvidia_driver_from_windows(std::string_view windows_version) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = windows_version.find('.', start);
    parts.push_back(windows_version.substr(start, dot - start));
    if (dot == std::string_view::npos) {
      break;
    }
    start = dot + 1;
  }
  if (parts.size() != 4) {
    return std::nullopt;
  }
  for (const std::string_view p : parts) {
    if (p.empty() || p.size() > 9
        || !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
  }
  // The fourth part is the last digit of the branch and the two-digit minor ("6094" in 560.94);
  // it has no leading zeros in the Windows spelling, so pad it back to four digits.
  if (parts[3].size() > 4) {
    return std::nullopt;
  }
  std::string digits(parts[2]);
  digits.append(4 - parts[3].size(), '0');
  digits.append(parts[3]);
  if (digits.size() < 5) {
    return std::nullopt;
  }
  const std::string last5 = digits.substr(digits.size() - 5);
  if (last5[0] == '0') {
    return std::nullopt;
  }
  return Version::parse(last5.substr(0, 3) + "." + last5.substr(3));
}

std::optional<Version> decode_cudnn_version(std::uint64_t encoded) {
  if (encoded >= 90000 && encoded < 1000000) {
    return Version::from_parts({static_cast<unsigned>(encoded / 10000),
                                static_cast<unsigned>((encoded / 100) % 100),
                                static_cast<unsigned>(encoded % 100)});
  }
  if (encoded >= 1000 && encoded < 9000) {
    return Version::from_parts({static_cast<unsigned>(encoded / 1000),
                                static_cast<unsigned>((encoded / 100) % 10),
                                static_cast<unsigned>(encoded % 100)});
  }
  return std::nullopt;
}

std::optional<Version> decode_cuda_version(std::uint64_t encoded) {
  if (encoded < 1000 || encoded >= 100000 || encoded % 10 != 0) {
    return std::nullopt;
  }
  return Version::from_parts(
      {static_cast<unsigned>(encoded / 1000), static_cast<unsigned>((encoded % 1000) / 10)});
}

std::optional<Version> decode_tensorflow_version(std::string_view text) {
  if (text.starts_with("64_")) {
    const std::string_view digits = text.substr(3);
    if (digits.empty() || digits.size() > 3
        || !std::all_of(
            digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    if (digits.size() >= 2) {
      // cuda_configure.bzl writes "64_" + major + minor: "112" is 11.2, "101" is 10.1, "92" is
      // 9.2; the minor is the last digit. A single digit is a major alone (cuDNN's "64_8").
      return Version::parse(std::string(digits.substr(0, digits.size() - 1)) + "."
                            + std::string(digits.substr(digits.size() - 1)));
    }
    return Version::parse(digits);
  }
  return Version::parse(text);
}

std::optional<ArchName> parse_arch_name(std::string_view name) {
  ArchName out;
  std::string_view digits;
  if (name.starts_with("sm_")) {
    digits = name.substr(3);
  } else if (name.starts_with("compute_")) {
    out.ptx = true;
    digits = name.substr(8);
  } else {
    return std::nullopt;
  }
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
    out.suffix = digits.back();
    digits.remove_suffix(1);
  }
  // "86" -> 8.6, "120" -> 12.0: the last digit is the minor.
  if (digits.size() < 2 || digits.size() > 3) {
    return std::nullopt;
  }
  const auto major = util::parse_uint(digits.substr(0, digits.size() - 1));
  const auto minor = util::parse_uint(digits.substr(digits.size() - 1));
  if (!major || !minor) {
    return std::nullopt;
  }
  out.cc = Version::from_parts({static_cast<unsigned>(*major), static_cast<unsigned>(*minor)});
  return out;
}

} // namespace doctor::kb
