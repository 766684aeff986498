// SPDX-License-Identifier: MIT
// Test-only tool: prints what collect::read_fatbin_file reads from each ELF or PE file given on the
// command line, as a JSON array (one object per file, in order): the fatbin section, the distinct
// and the common architectures, entry counts, problems, and the milliseconds the read took. Exits
// 0 when every file was read, 1 when one was not (its object holds "error"), 2 on usage errors.
#include <doctor/collect/binary_reader.hpp>
#include <doctor/formats/fatbin.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fatbin_dump FILE...\n");
    return 2;
  }
  namespace collect = doctor::collect;
  namespace formats = doctor::formats;
  auto out = nlohmann::ordered_json::array();
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    nlohmann::ordered_json j;
    j["path"] = argv[i];
    const auto start = std::chrono::steady_clock::now();
    auto file = collect::read_fatbin_file(argv[i]);
    std::vector<std::string> archs;
    std::vector<std::string> common;
    if (file) {
      archs = formats::fatbin_archs(file->fatbin);
      common = formats::fatbin_common_archs(file->fatbin);
    }
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    if (file) {
      j["format"] = file->format;
      j["section"] = file->section_name;
      j["section_offset"] = file->section_offset;
      j["section_size"] = file->section_size;
      j["containers"] = file->fatbin.containers;
      j["entries"] = file->fatbin.entries.size();
      std::size_t sass = 0;
      std::size_t ptx = 0;
      std::size_t compressed = 0;
      for (const auto& e : file->fatbin.entries) {
        sass += e.kind == formats::FatbinKind::sass ? 1 : 0;
        ptx += e.kind == formats::FatbinKind::ptx ? 1 : 0;
        compressed += e.compressed ? 1 : 0;
      }
      j["sass_entries"] = sass;
      j["ptx_entries"] = ptx;
      j["compressed_entries"] = compressed;
      j["archs"] = archs;
      j["common_archs"] = common;
      j["problems"] = file->fatbin.problems;
    } else {
      j["error"] = file.error().message;
      status = 1;
    }
    j["milliseconds"] = took.count();
    out.push_back(std::move(j));
  }
  std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  return status;
}
