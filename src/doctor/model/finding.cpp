// SPDX-License-Identifier: MIT
#include <doctor/model/finding.hpp>

#include <tuple>

namespace doctor {

bool finding_order(const Finding& a, const Finding& b) {
  return std::tuple(static_cast<int>(b.severity), a.id, a.subject)
         < std::tuple(static_cast<int>(a.severity), b.id, b.subject);
}

} // namespace doctor
