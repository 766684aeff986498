// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace doctor::facts {

// One observed value with where it came from, or "unknown, because …". Never both, never neither:
// a collector that could not observe something says why, and checks that depend on it skip with
// that reason instead of guessing.
//
// Sources are short tags: "file:/proc/driver/nvidia/version", "env:CUDA_HOME",
// "nvml:nvmlSystemGetDriverVersion", "name:libcuda.so.535.104.05".
template<typename T>
class Fact {
public:
  Fact()
      : m_reason("not collected") {}

  // A known value observed at `source`.
  // (clang-tidy 14 misreads the moves below inside a class template as const uses.)
  static Fact known(T value, std::string source) { // NOLINT(performance-unnecessary-value-param)
    Fact f;
    f.m_value = std::move(value);
    f.m_source = std::move(source);
    f.m_reason.clear();
    return f;
  }

  // An unknown value; `reason` completes "unknown, because …".
  static Fact unknown(std::string reason) { // NOLINT(performance-unnecessary-value-param)
    Fact f;
    f.m_reason = std::move(reason);
    return f;
  }

  bool has_value() const { return m_value.has_value(); }
  explicit operator bool() const { return has_value(); }

  // Precondition: has_value().
  const T& value() const { return *m_value; }
  T& value() { return *m_value; }
  const T& operator*() const { return *m_value; }
  const T* operator->() const { return &*m_value; }

  // Returns the value, or `fallback` when unknown.
  T value_or(T fallback) const { return m_value ? *m_value : std::move(fallback); }

  // Where a known value came from; empty when unknown.
  const std::string& source() const { return m_source; }

  // Why the value is unknown; empty when known.
  const std::string& reason() const { return m_reason; }

  bool operator==(const Fact& other) const = default;

private:
  std::optional<T> m_value;
  std::string m_source;
  std::string m_reason;
};

} // namespace doctor::facts
