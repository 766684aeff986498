// SPDX-License-Identifier: MIT
// One line through the structural loader-message parser and the library classifier: no crash, no
// hang, and what comes back is consistent: a failure names a library or a Python module (or says
// Python named none), names
// are lower-case pieces of the line's normalised text, the kind and role have names, and the
// line holds one of the prefilter's triggers.
#include <doctor/explain/loader_message.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const auto failure = doctor::explain::parse_load_failure(line);
  if (!failure) {
    return 0;
  }
  if (failure->library.empty() && failure->module.empty() && !failure->unnamed_module) {
    std::abort();
  }
  if (failure->unnamed_module && !failure->module.empty()) {
    std::abort(); // a module named is not an unnamed one
  }
  for (const std::string* name : {&failure->library, &failure->missing, &failure->module}) {
    for (char c : *name) {
      if ((c >= 'A' && c <= 'Z') || c == '/' || c == '\\') {
        std::abort(); // names are lower-case file names, without their directory
      }
    }
  }
  if (doctor::explain::to_string(failure->kind).empty()) {
    std::abort();
  }
  // The prefilter hands on only lines that hold a trigger; an accepted line without one would be
  // a failure that explain never sees.
  std::string lower(line);
  for (char& c : lower) {
    c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  bool triggered = false;
  for (const std::string& t : doctor::explain::load_failure_triggers()) {
    triggered = triggered || lower.find(t) != std::string::npos;
  }
  if (!triggered) {
    std::abort();
  }
  static const std::vector<doctor::kb::CudnnLibrarySet> sets = [] {
    doctor::kb::CudnnLibrarySet s;
    s.major = 9;
    s.os = "linux";
    s.members = {"libcudnn.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9"};
    return std::vector<doctor::kb::CudnnLibrarySet>{s};
  }();
  const auto id = doctor::explain::classify_library(failure->library, sets);
  if (doctor::explain::to_string(id.role).empty()) {
    std::abort();
  }
  return 0;
}
