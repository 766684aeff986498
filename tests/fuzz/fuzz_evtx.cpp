// SPDX-License-Identifier: MIT
// Random bytes through the EVTX reader: parse_evtx must return records and warnings or an
// error, never crash, never loop without end, and keep its warnings bounded. Inputs that do not
// start with "ElfFile\0" get it prepended (and a header's worth of padding), so the fuzzer
// spends its time in chunks and Binary XML rather than on the signature.
#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/evtx.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.rfind(std::string("ElfFile\0", 8), 0) != 0) {
    bytes = std::string("ElfFile\0", 8) + std::string(4096 - 8, '\0') + bytes;
  }
  const auto read = doctor::formats::parse_evtx(bytes, "fuzz");
  check(read.has_value());
  check(read->warnings.size() <= 101);
  (void)doctor::crash::observe_events(read->records);
  return 0;
}
