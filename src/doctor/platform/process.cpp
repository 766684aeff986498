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

} // namespace doctor::platform
