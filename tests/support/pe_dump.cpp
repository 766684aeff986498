// SPDX-License-Identifier: MIT
// Test-only tool: prints what formats::parse_pe reads from each PE file given on the command line,
// as a JSON array (one object per file, in order), so script tests can check real DLLs through the
// C++ reader. Exits 0 when every file parsed, 1 when one did not (its object holds "error"), 2 on
// usage errors.
#include <doctor/formats/pe.hpp>
#include <doctor/platform/mapped_file.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace {

nlohmann::ordered_json to_json(const doctor::formats::PeInfo& pe) {
  nlohmann::ordered_json j;
  j["machine"] = pe.machine;
  j["machine_name"] = pe.machine_name;
  j["pe32_plus"] = pe.pe32_plus;
  j["is_dll"] = pe.is_dll;
  j["timestamp"] = pe.timestamp;
  j["imports"] = pe.imports;
  j["delay_imports"] = pe.delay_imports;
  if (pe.version) {
    const auto& v = *pe.version;
    j["version"] = {{"file_version", v.file_version},
                    {"product_version", v.product_version},
                    {"product_name", v.product_name},
                    {"file_description", v.file_description},
                    {"company_name", v.company_name},
                    {"original_filename", v.original_filename},
                    {"fixed_file_version", v.fixed_file_version},
                    {"fixed_product_version", v.fixed_product_version}};
  } else {
    j["version"] = nullptr;
  }
  j["has_signature"] = pe.has_signature;
  j["section_names"] = pe.section_names;
  j["problems"] = pe.problems;
  return j;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pe_dump FILE...\n");
    return 2;
  }
  auto out = nlohmann::ordered_json::array();
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    nlohmann::ordered_json entry;
    entry["path"] = argv[i];
    auto file = doctor::platform::MappedFile::open(argv[i]);
    auto pe = file ? doctor::formats::parse_pe(file->data())
                   : doctor::Expected<doctor::formats::PeInfo>(tl::unexpect, file.error());
    if (pe) {
      entry.update(to_json(*pe));
    } else {
      entry["error"] = pe.error().message;
      status = 1;
    }
    out.push_back(std::move(entry));
  }
  // Names are bytes from the file: invalid UTF-8 becomes U+FFFD, as in the doctor's own JSON.
  std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  return status;
}
