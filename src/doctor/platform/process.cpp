// SPDX-License-Identifier: MIT
#include <doctor/platform/process.hpp>

#include <algorithm>

namespace doctor::platform {

bool append_answer(ProcessResult& result, std::string_view got, const ProcessOptions& options) {
  std::size_t n = got.size();
  if (options.end_of_answer) {
    const std::size_t end = got.find(*options.end_of_answer);
    if (end != std::string_view::npos) {
      n = end;
      result.answered = true;
    }
  }
  if (result.out.size() < options.max_output) {
    result.out.append(got.data(), std::min(n, options.max_output - result.out.size()));
  }
  return result.answered;
}

std::string tail_of(std::string_view text, std::size_t max) {
  if (text.size() <= max) {
    return std::string(text);
  }
  std::size_t start = text.size() - max;
  // Skip UTF-8 continuation bytes (10xxxxxx): the sequence they belong to began before the cut.
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
    ++start;
  }
  return std::string(text.substr(start));
}

} // namespace doctor::platform
