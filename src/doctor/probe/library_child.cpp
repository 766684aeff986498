// SPDX-License-Identifier: MIT
#include <doctor/probe/library_child.hpp>
#include <doctor/util/strings.hpp>

namespace doctor::probe {

std::optional<platform::DynamicLibrary> open_library(const ChildInput& input,
                                                     nlohmann::ordered_json& out) {
  out["library"] = input.library;
  auto lib = platform::DynamicLibrary::open(input.library);
  if (!lib) {
    out["library_error"] = util::sanitize(lib.error().message, 600);
    return std::nullopt;
  }
  out["loaded"] = lib->path();
  return std::move(*lib);
}

platform::ConfinementRequest library_child_confinement() {
  platform::ConfinementRequest request;
  request.address_space_budget = 0;
  request.no_limit_reason =
      "cuInit reserves the GPU's virtual address range, which a limit that "
      "catches a leak would make fail";
  request.device_prefix = "nvidia";
  return request;
}

} // namespace doctor::probe
