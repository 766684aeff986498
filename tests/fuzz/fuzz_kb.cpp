// SPDX-License-Identifier: MIT
// An edited knowledge base (--kb-dir) is user input: any findings.json or library_sets.json
// must load or fail with a message.
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> files;
  const std::string replaced = data[0] % 2 == 0 ? "findings.json" : "library_sets.json";
  for (const auto& f : doctor::kb::embedded_files()) {
    files.emplace_back(f.name,
                       f.name == replaced
                           ? std::string(reinterpret_cast<const char*>(data + 1), size - 1)
                           : std::string(f.contents));
  }
  auto kb = doctor::kb::KnowledgeBase::load(files);
  if (kb) {
    for (const auto& t : kb->findings()) {
      doctor::kb::placeholders(t.message);
    }
  }
  return 0;
}
