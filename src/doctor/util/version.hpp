// SPDX-License-Identifier: MIT
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor {

// A dotted numeric version ("9.19.0", "535.261.03", "13.0"). Components compare numerically;
// a missing component counts as 0, so "13.0" == "13.0.0". The original spelling is kept for
// display because driver versions have meaningful leading zeros ("535.261.03").
class Version {
public:
  Version() = default;

  // Parses "1.2.3" (1 to 6 components of at most 9 digits each). Returns nullopt on anything else,
  // including empty components and trailing junk.
  static std::optional<Version> parse(std::string_view text);

  // Parses the longest dotted-number prefix of `text` ("12.4+cu124" -> "12.4"); nullopt if none.
  static std::optional<Version> parse_prefix(std::string_view text);

  // Builds a version from components.
  static Version from_parts(std::vector<unsigned> parts);

  // Returns the component at `index`, or 0 past the end.
  unsigned part(std::size_t index) const;
  unsigned major() const { return part(0); }
  unsigned minor() const { return part(1); }
  std::size_t size() const { return m_parts.size(); }
  bool empty() const { return m_parts.empty(); }

  // Returns the version as written when parsed, else the components joined with dots.
  const std::string& str() const { return m_text; }

  // Returns the first `n` components joined with dots ("9.19.0" -> "9.19" for n = 2).
  std::string prefix(std::size_t n) const;

  // Returns the first `n` components as a version, missing ones as 0 ("12.4.1" -> 12.4 for n = 2).
  Version truncated(std::size_t n) const;

  // True if this version's first components equal all components of `other` ("9.19.0" starts
  // with "9.19" and with "9").
  bool starts_with(const Version& other) const;

  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const;

private:
  std::vector<unsigned> m_parts;
  std::string m_text;
};

} // namespace doctor
