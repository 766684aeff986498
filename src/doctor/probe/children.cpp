// SPDX-License-Identifier: MIT
#include <doctor/probe/children.hpp>
#include <doctor/probe/nvml_child.hpp>

#include <fmt/format.h>

namespace doctor::probe {

namespace {

// The one list of children. Adding one is a row here and its function in a file of its own.
constexpr ChildProbe k_children[] = {
    {"nvml",
     "__probe-nvml",
     "NVML (libnvidia-ml.so.1, nvml.dll): driver and device queries",
     run_nvml_child},
};

} // namespace

std::span<const ChildProbe> all_children() {
  return k_children;
}

const ChildProbe* child_for_argument(std::string_view argument) {
  for (const ChildProbe& c : k_children) {
    if (c.argument == argument) {
      return &c;
    }
  }
  return nullptr;
}

Expected<platform::ProcessResult> run_child(std::string_view name,
                                            const std::filesystem::path& self,
                                            std::chrono::milliseconds timeout,
                                            std::size_t max_output) {
  for (const ChildProbe& c : k_children) {
    if (c.name == name) {
      return platform::run_process({self.string(), std::string(c.argument)}, timeout, max_output);
    }
  }
  return make_error(ErrorCode::not_found, fmt::format("no isolated child named {}", name));
}

} // namespace doctor::probe
