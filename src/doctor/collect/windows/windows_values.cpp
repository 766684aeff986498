// SPDX-License-Identifier: MIT
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/text_decode.hpp>

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <utility>

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

std::optional<std::uint32_t> parse_zone_identifier(std::string_view text) {
  // The stream is a few lines; anything past 4 KiB is not a Zone.Identifier Windows wrote.
  constexpr std::size_t k_max_bytes = 4096;
  const util::DecodedText decoded = util::decode_all(text.substr(0, k_max_bytes), 512);
  bool in_section = false;
  for (const util::TextLine& line : decoded.lines) {
    std::string_view l = util::trim(line.text);
    if (l.starts_with("\xEF\xBB\xBF")) {
      l = util::trim(l.substr(3)); // a BOM the decoder kept (UTF-8 text without CR LF)
    }
    if (l.empty() || l.front() == ';') {
      continue;
    }
    if (l.front() == '[') {
      in_section = util::to_lower(l) == "[zonetransfer]";
      continue;
    }
    const auto eq = l.find('=');
    if (!in_section || eq == std::string_view::npos
        || util::to_lower(util::trim(l.substr(0, eq))) != "zoneid") {
      continue;
    }
    const auto v = parse_decimal(util::trim(l.substr(eq + 1)));
    if (!v || *v > 0xFFFFFFFFU) {
      return std::nullopt;
    }
    return static_cast<std::uint32_t>(*v);
  }
  return std::nullopt;
}

std::string authenticode_verdict(std::uint32_t code) {
  if (code == 0) {
    return "valid";
  }
  // TRUST_E_NOSIGNATURE, and TRUST_E_SUBJECT_FORM_UNKNOWN (a file no subject interface package
  // can hold a signature for): nothing was signed, so nothing is wrong with a signature.
  if (code == 0x800B0100U || code == 0x800B0003U) {
    return "unsigned";
  }
  // winerror.h's names of the results WinVerifyTrust gives for a file.
  static constexpr std::array<std::pair<std::uint32_t, std::string_view>, 24> k_names{{
      {0x80096010U, "TRUST_E_BAD_DIGEST"},
      {0x80096004U, "TRUST_E_CERT_SIGNATURE"},
      {0x80096001U, "TRUST_E_SYSTEM_ERROR"},
      {0x80096002U, "TRUST_E_NO_SIGNER_CERT"},
      {0x80096003U, "TRUST_E_COUNTER_SIGNER"},
      {0x80096005U, "TRUST_E_TIME_STAMP"},
      {0x80096019U, "TRUST_E_BASIC_CONSTRAINTS"},
      {0x800B0001U, "TRUST_E_PROVIDER_UNKNOWN"},
      {0x800B0002U, "TRUST_E_ACTION_UNKNOWN"},
      {0x800B0004U, "TRUST_E_SUBJECT_NOT_TRUSTED"},
      {0x800B0111U, "TRUST_E_EXPLICIT_DISTRUST"},
      {0x800B0101U, "CERT_E_EXPIRED"},
      {0x800B0102U, "CERT_E_VALIDITYPERIODNESTING"},
      {0x800B0104U, "CERT_E_PATHLENCONST"},
      {0x800B0105U, "CERT_E_CRITICAL"},
      {0x800B0109U, "CERT_E_UNTRUSTEDROOT"},
      {0x800B010AU, "CERT_E_CHAINING"},
      {0x800B010CU, "CERT_E_REVOKED"},
      {0x800B010FU, "CERT_E_CN_NO_MATCH"},
      {0x800B0110U, "CERT_E_WRONG_USAGE"},
      {0x800B0112U, "CERT_E_UNTRUSTEDTESTROOT"},
      {0x80092010U, "CRYPT_E_REVOKED"},
      {0x80092013U, "CRYPT_E_REVOCATION_OFFLINE"},
      {0x80092026U, "CRYPT_E_SECURITY_SETTINGS"},
  }};
  for (const auto& [value, name] : k_names) {
    if (value == code) {
      return fmt::format("invalid: {:#010x} {}", code, name);
    }
  }
  return fmt::format("invalid: {:#010x}", code);
}

} // namespace doctor::collect
