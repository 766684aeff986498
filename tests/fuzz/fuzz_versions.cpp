// SPDX-License-Identifier: MIT
// One line through the version-mention reader: no crash, no hang, and each mention lies inside
// the line, has a version that starts with its major, and names CUDA or cuDNN; each framework
// build lies inside the line and has a version and a CUDA variant; a version pair has two
// different versions.
#include <doctor/explain/versions.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  for (const doctor::explain::VersionMention& m : doctor::explain::find_version_mentions(line)) {
    if (m.begin >= m.end || m.end > line.size() || m.version.empty()) {
      std::abort();
    }
    if (m.version.rfind(std::to_string(m.major), 0) != 0) {
      std::abort();
    }
    if (m.component != doctor::explain::VersionComponent::cuda
        && m.component != doctor::explain::VersionComponent::cudnn) {
      std::abort();
    }
  }
  for (const doctor::explain::FrameworkMention& f :
       doctor::explain::find_framework_mentions(line)) {
    if (f.begin >= f.end || f.end > line.size() || f.version.empty()
        || f.variant.rfind("cu", 0) != 0) {
      std::abort();
    }
  }
  if (const auto pair = doctor::explain::find_version_pair(line)) {
    if (pair->expected.empty() || pair->found.empty() || pair->expected == pair->found) {
      std::abort();
    }
  }
  if (size >= 2) {
    // The number reader takes any value.
    (void)doctor::explain::cudnn_version_of_number(static_cast<unsigned long>(data[0]) << 16
                                                   | static_cast<unsigned long>(data[1]) << 8);
  }
  return 0;
}
