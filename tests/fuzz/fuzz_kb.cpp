// SPDX-License-Identifier: MIT
// An edited knowledge base (--kb-dir, kb --check) is user input: any findings.json,
// library_sets.json, signatures.json, crash catalogue or compatibility file must load or fail with
// a message. The first byte picks the file the rest replaces: 0xF0 and above signatures.json,
// 0xE0-0xEF xid.json (even) or bugchecks.json (odd), else one of six by the byte modulo 6.
#include <doctor/kb/embedded.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  static constexpr std::array<const char*, 6> k_files = {"findings.json",
                                                         "library_sets.json",
                                                         "cuda_drivers.json",
                                                         "cudnn_releases.json",
                                                         "frameworks.json",
                                                         "gpus.json"};
  std::vector<std::pair<std::string, std::string>> files;
  std::string replaced = std::string(k_files[data[0] % k_files.size()]);
  if (data[0] >= 0xF0) {
    replaced = "signatures.json";
  } else if (data[0] >= 0xE0) {
    replaced = data[0] % 2 == 0 ? "xid.json" : "bugchecks.json";
  }
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
    // The queries must cope with whatever rows loaded.
    const doctor::kb::CompatTables& c = kb->compat();
    for (const auto& r : c.cuda_drivers()) {
      c.minimum_driver(r.cuda, doctor::kb::Os::linux, true);
      c.minimum_driver(r.cuda, doctor::kb::Os::windows, false);
    }
    for (const auto& r : c.cudnn_packages()) {
      if (auto v = doctor::Version::parse(r.version)) {
        c.cudnn_release(*v);
      }
    }
    for (const auto& r : c.framework_builds()) {
      if (auto v = doctor::Version::parse_prefix(r.versions)) {
        c.framework_builds_for(r.framework, *v, r.os);
      }
    }
    for (const auto& r : c.gpu_models()) {
      c.gpu_model(r.device_id, r.subsystem_vendor.value_or(0), r.subsystem_device.value_or(0));
      c.architecture(r.cc);
    }
  }
  return 0;
}
