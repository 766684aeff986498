// SPDX-License-Identifier: MIT
// The seed corpus in corpus/elf/ is synthetic: tests/fuzz/make_elf_seeds.py writes small
// hand-made ELF headers and dynamic sections (no compiled programs are committed).
#include <doctor/formats/elf.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)doctor::formats::is_elf(bytes);
  // The exported-object lookup (cuDNN's version objects) walks .dynsym on its own.
  for (const auto& obj : doctor::formats::read_elf_objects(
           bytes, {"cudnn_ops_infer_version", "cudnn_ops_version", ""}, 64)) {
    volatile std::size_t m =
        obj.name.size() + obj.bytes.size() + static_cast<std::size_t>(obj.value.value_or(0));
    (void)m;
  }
  auto info = doctor::formats::parse_elf(bytes);
  // The loader's few positioned reads give parse_elf's values in the fields they fill, or nothing.
  const auto loader = doctor::formats::read_elf_loader_fields(
      bytes.size(), [&](std::uint64_t offset, std::size_t length, std::string& out) {
        out = offset < bytes.size() ? std::string(bytes.substr(offset, length)) : std::string();
        return true;
      });
  if (loader
      && (!info || loader->elf_class != info->elf_class || loader->big_endian != info->big_endian
          || loader->machine != info->machine || loader->machine_name != info->machine_name
          || loader->type != info->type || loader->soname != info->soname
          || loader->needed != info->needed || loader->rpath != info->rpath
          || loader->runpath != info->runpath || loader->flags != info->flags
          || loader->flags_1 != info->flags_1)) {
    std::abort();
  }
  if (!info) {
    volatile std::size_t n = info.error().message.size();
    (void)n;
    return 0;
  }
  // Touch every output so that ASan checks each string, and so that a bad size shows up.
  std::size_t n = info->elf_class + info->machine + info->type + info->machine_name.size()
                  + info->interpreter.size() + info->soname.size() + info->build_id.size()
                  + static_cast<std::size_t>(info->flags + info->flags_1)
                  + static_cast<std::size_t>(info->big_endian)
                  + static_cast<std::size_t>(info->nodeflib());
  for (const auto* list : {&info->needed,
                           &info->rpath,
                           &info->runpath,
                           &info->version_definitions,
                           &info->section_names,
                           &info->problems}) {
    for (const auto& s : *list) {
      n += s.size() + (s.empty() ? 0 : static_cast<unsigned char>(s.back()));
    }
  }
  for (const auto& need : info->version_needs) {
    n += need.file.size();
    for (const auto& v : need.versions) {
      n += v.size() + (v.empty() ? 0 : static_cast<unsigned char>(v.front()));
    }
  }
  volatile std::size_t sink = n;
  (void)sink;
  return 0;
}
