// SPDX-License-Identifier: MIT
#include <doctor/model/termination.hpp>

#include <fmt/format.h>

#include <string_view>
#include <utility>

namespace doctor::facts {

namespace {

// Linux's signal numbers (x86-64 and arm64 agree on these).
constexpr std::pair<std::int64_t, std::string_view> k_signals[] = {{4, "SIGILL"},
                                                                   {6, "SIGABRT"},
                                                                   {7, "SIGBUS"},
                                                                   {8, "SIGFPE"},
                                                                   {9, "SIGKILL"},
                                                                   {11, "SIGSEGV"},
                                                                   {15, "SIGTERM"}};

// The NTSTATUS codes of exceptions a crashing DLL raises (ntstatus.h).
constexpr std::pair<std::uint32_t, std::string_view> k_exceptions[] = {
    {0xC0000005, "access violation"},
    {0xC0000006, "in-page error"},
    {0xC000001D, "illegal instruction"},
    {0xC0000094, "integer divide by zero"},
    {0xC00000FD, "stack overflow"},
    {0xC0000374, "heap corruption"},
    {0xC0000409, "stack buffer overrun or fail-fast"},
};

} // namespace

std::string termination_name(std::int64_t code) {
  const auto word = static_cast<std::uint32_t>(code);
  if ((code < 0 || code > 0xFFFF) && (word & 0xC0000000U) == 0xC0000000U) {
    for (const auto& [status, name] : k_exceptions) {
      if (status == word) {
        return fmt::format("exception 0x{:08X} ({})", word, name);
      }
    }
    return fmt::format("exception 0x{:08X}", word);
  }
  for (const auto& [number, name] : k_signals) {
    if (number == code) {
      return std::string(name);
    }
  }
  return fmt::format("signal {}", code);
}

} // namespace doctor::facts
