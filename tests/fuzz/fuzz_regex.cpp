// SPDX-License-Identifier: MIT
// A pattern (the input up to its first LF) and a text (the rest) through doctor::Regex: compiling
// either fails with a message or gives a program within the size limit, and a match and its
// groups lie inside the text, each group inside the match. Time stays linear by construction; a
// slow input shows up as a libFuzzer timeout.
#include <doctor/util/regex.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::size_t lf = input.find('\n');
  std::string_view pattern = input.substr(0, lf == std::string_view::npos ? input.size() : lf);
  std::string_view text = lf == std::string_view::npos ? std::string_view() : input.substr(lf + 1);
  if (pattern.size() > 512)
    return 0;
  auto re = doctor::Regex::compile(pattern);
  if (!re) {
    if (re.error().message.empty())
      std::abort();
    return 0;
  }
  if (re->program_size() > doctor::Regex::k_max_program)
    std::abort();
  doctor::RegexMatch m;
  if (!re->search(text, &m))
    return 0;
  if (m.begin > m.end || m.end > text.size())
    std::abort();
  if (m.groups.size() != re->group_names().size())
    std::abort();
  for (const auto& [b, e] : m.groups) {
    if (b == doctor::RegexMatch::k_npos && e == doctor::RegexMatch::k_npos)
      continue;
    if (b == doctor::RegexMatch::k_npos || e == doctor::RegexMatch::k_npos || b > e
        || e > text.size()) {
      std::abort();
    }
  }
  // The required literal is in every match's text... of the whole match.
  if (!re->required_literal().empty() && !re->ignores_case()) {
    std::string_view whole = text.substr(m.begin, m.end - m.begin);
    if (whole.find(re->required_literal()) == std::string_view::npos)
      std::abort();
  }
  return 0;
}
