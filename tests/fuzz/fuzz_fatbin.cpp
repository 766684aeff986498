// SPDX-License-Identifier: MIT
// The seed corpus in corpus/fatbin/ is synthetic: tests/fuzz/make_fatbin_seeds.py writes small
// hand-made fatbin sections and one minimal ELF file holding one (no compiled code is committed).
#include <doctor/formats/fatbin.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// Touches every output so that ASan checks each string, and so that a bad size shows up.
std::size_t touch(const doctor::formats::FatbinInfo& info) {
  std::size_t n = static_cast<std::size_t>(info.containers);
  for (const auto& e : info.entries) {
    const std::string name = e.arch_name();
    n += name.size() + e.arch_suffix.size() + e.kind_code + e.arch + e.version_major
         + e.version_minor + static_cast<std::size_t>(e.payload_size + e.offset + e.container)
         + static_cast<std::size_t>(e.compressed) + static_cast<std::size_t>(e.kind);
  }
  for (const auto* list : {&info.problems}) {
    for (const auto& s : *list) {
      n += s.size() + (s.empty() ? 0 : static_cast<unsigned char>(s.back()));
    }
  }
  for (const auto& s : doctor::formats::fatbin_archs(info)) {
    n += s.size();
  }
  for (const auto& s : doctor::formats::fatbin_common_archs(info)) {
    n += s.size();
  }
  return n;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The input as a fatbin section, and as an ELF or PE file holding one.
  volatile std::size_t n = touch(doctor::formats::parse_fatbin(bytes));
  auto file = doctor::formats::read_fatbin_image(bytes);
  if (file) {
    n = n + touch(file->fatbin) + file->format.size() + file->section_name.size()
        + static_cast<std::size_t>(file->section_offset + file->section_size);
  } else {
    n = n + file.error().message.size();
  }
  (void)n;
  return 0;
}
