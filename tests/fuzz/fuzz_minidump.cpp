// SPDX-License-Identifier: MIT
// Random bytes through formats::parse_minidump and its Observation. Whatever the input, counts stay
// under their caps, the faulting module holds the exception address, and the observation has
// exactly one line.
#include <doctor/crash/dump_observations.hpp>
#include <doctor/formats/minidump.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void check(bool ok) {
  if (!ok) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace doctor;
  using namespace doctor::crash;
  using namespace doctor::formats;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto dump = parse_minidump(bytes);
  if (!dump) {
    check(!dump.error().message.empty());
    return 0;
  }
  check(dump->modules.size() <= 4096);
  check(dump->exception_info.size() <= 15);
  if (dump->faulting_module) {
    check(dump->exception_code.has_value());
    check(*dump->faulting_module < dump->modules.size());
    const MiniDumpModule& m = dump->modules[*dump->faulting_module];
    check(dump->exception_address >= m.base && dump->exception_address - m.base < m.size);
  }
  const Observation o = observe_minidump(*dump, Origin{"fuzz", ""});
  check(o.lines.size() == 1);
  check(o.code.empty() == !dump->exception_code.has_value());
  return 0;
}
