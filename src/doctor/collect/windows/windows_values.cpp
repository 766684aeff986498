// SPDX-License-Identifier: MIT
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <charconv>

namespace doctor::collect {

namespace {

constexpr std::uint64_t k_mib = std::uint64_t{1024} * 1024;

std::optional<std::uint64_t> parse_decimal(std::string_view s) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    return std::nullopt;
  }
  return v;
}

std::optional<std::uint32_t> parse_hex4(std::string_view s) {
  if (s.size() < 4) {
    return std::nullopt;
  }
  std::uint32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + 4, v, 16);
  if (ec != std::errc() || end != s.data() + 4) {
    return std::nullopt;
  }
  return v;
}

} // namespace

std::vector<facts::PageFile> parse_paging_files(const std::vector<std::string>& entries) {
  std::vector<facts::PageFile> out;
  for (const std::string& entry : entries) {
    std::vector<std::string_view> words;
    for (std::string_view w : util::split(util::trim(entry), ' ')) {
      if (!w.empty()) {
        words.push_back(w);
      }
    }
    if (words.empty()) {
      continue;
    }
    facts::PageFile pf;
    pf.path = std::string(words[0]);
    // Sizes in MiB; an unreadable one, or one past what a drive can hold (2^40 MiB), counts as
    // 0; a missing maximum is the initial size.
    const auto mib = [](std::string_view w) -> std::uint64_t {
      const auto v = parse_decimal(w);
      return v && *v < (std::uint64_t{1} << 40) ? *v : 0;
    };
    const std::uint64_t initial = words.size() >= 2 ? mib(words[1]) : 0;
    const std::uint64_t maximum = words.size() >= 3 ? mib(words[2]) : initial;
    pf.initial_size = initial * k_mib;
    pf.maximum_size = maximum * k_mib;
    pf.system_managed = initial == 0 && maximum == 0;
    pf.drive_free = facts::Fact<std::uint64_t>::unknown(
        "the free space of a drive is measured only on the running machine");
    out.push_back(std::move(pf));
  }
  return out;
}

std::optional<PciIds> parse_pci_hardware_id(std::string_view id) {
  const std::string lower = util::to_lower(id);
  const auto ven = lower.find("ven_");
  const auto dev = lower.find("dev_");
  if (ven == std::string::npos || dev == std::string::npos) {
    return std::nullopt;
  }
  const auto vendor = parse_hex4(std::string_view(lower).substr(ven + 4));
  const auto device = parse_hex4(std::string_view(lower).substr(dev + 4));
  if (!vendor || !device) {
    return std::nullopt;
  }
  return PciIds{*vendor, *device};
}

std::string corrected_product_name(std::string_view product_name, std::uint32_t build) {
  constexpr std::string_view k_ten = "Windows 10";
  if (build >= 22000 && product_name.starts_with(k_ten)) {
    return fmt::format("Windows 11{}", product_name.substr(k_ten.size()));
  }
  return std::string(product_name);
}

std::optional<unsigned> cudnn_dll_major(std::string_view file_name) {
  const std::string name = util::to_lower(file_name);
  if (!name.starts_with("cudnn") || !name.ends_with(".dll")) {
    return std::nullopt;
  }
  const std::string_view stem = std::string_view(name).substr(0, name.size() - 4);
  const auto marker = stem.rfind("64_");
  if (marker == std::string_view::npos) {
    return std::nullopt;
  }
  for (char c : stem.substr(5, marker - 5)) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) {
      return std::nullopt;
    }
  }
  const auto major = parse_decimal(stem.substr(marker + 3));
  if (!major || *major == 0 || *major > 99) {
    return std::nullopt;
  }
  return static_cast<unsigned>(*major);
}

std::optional<Version> version_resource_number(std::string_view text) {
  return Version::parse_prefix(util::trim(text));
}

std::optional<Version> cudart_version_from_resource(std::string_view text) {
  auto v = version_resource_number(text);
  if (!v) {
    return std::nullopt;
  }
  if (v->size() == 4 && v->major() == 6 && v->part(1) == 14) {
    const unsigned encoded = v->part(3);
    const unsigned major = encoded / 1000;
    const unsigned minor = (encoded % 1000) / 10;
    if (major >= 8 && major <= 99) {
      return Version::parse(fmt::format("{}.{}", major, minor));
    }
    return std::nullopt;
  }
  if (v->major() >= 8 && v->major() <= 99) {
    return v;
  }
  return std::nullopt;
}

} // namespace doctor::collect
