// SPDX-License-Identifier: MIT
#include <doctor/util/strings.hpp>
#include <doctor/util/version.hpp>

namespace doctor {

namespace {

constexpr std::size_t k_max_parts = 6;
constexpr std::size_t k_max_digits = 9;

} // namespace

std::optional<Version> Version::parse(std::string_view text) {
  if (text.empty()) {
    return std::nullopt;
  }
  Version v;
  for (std::string_view field : util::split(text, '.')) {
    if (field.empty() || field.size() > k_max_digits || v.m_parts.size() == k_max_parts) {
      return std::nullopt;
    }
    const auto n = util::parse_uint(field);
    if (!n) {
      return std::nullopt;
    }
    v.m_parts.push_back(static_cast<unsigned>(*n));
  }
  v.m_text = std::string(text);
  return v;
}

std::optional<Version> Version::parse_prefix(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == '.')) {
    ++end;
  }
  std::string_view head = text.substr(0, end);
  while (!head.empty() && head.back() == '.') {
    head.remove_suffix(1);
  }
  return parse(head);
}

Version Version::from_parts(std::vector<unsigned> parts) {
  Version v;
  v.m_parts = std::move(parts);
  for (std::size_t i = 0; i < v.m_parts.size(); ++i) {
    if (i > 0) {
      v.m_text += '.';
    }
    v.m_text += std::to_string(v.m_parts[i]);
  }
  return v;
}

unsigned Version::part(std::size_t index) const {
  return index < m_parts.size() ? m_parts[index] : 0;
}

Version Version::truncated(std::size_t n) const {
  std::vector<unsigned> parts;
  parts.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    parts.push_back(part(i));
  }
  return from_parts(std::move(parts));
}

std::string Version::prefix(std::size_t n) const {
  std::string out;
  for (std::size_t i = 0; i < n && i < m_parts.size(); ++i) {
    if (i > 0) {
      out += '.';
    }
    out += std::to_string(m_parts[i]);
  }
  return out;
}

bool Version::starts_with(const Version& other) const {
  if (other.m_parts.size() > m_parts.size()) {
    return false;
  }
  for (std::size_t i = 0; i < other.m_parts.size(); ++i) {
    if (m_parts[i] != other.m_parts[i]) {
      return false;
    }
  }
  return true;
}

std::strong_ordering Version::operator<=>(const Version& other) const {
  const std::size_t n = std::max(m_parts.size(), other.m_parts.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned a = part(i);
    const unsigned b = other.part(i);
    if (a != b) {
      return a <=> b;
    }
  }
  return std::strong_ordering::equal;
}

bool Version::operator==(const Version& other) const {
  return (*this <=> other) == std::strong_ordering::equal;
}

} // namespace doctor
