// SPDX-License-Identifier: MIT
// Random bytes through formats::parse_kernel_dump, the blame rules and the Observation. Whatever
// the input, indices must stay inside the module list, counts under their caps, and the
// observation must carry a code and one line.
#include <doctor/crash/dump_observations.hpp>
#include <doctor/formats/kernel_dump.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
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
  const auto dump = parse_kernel_dump(bytes);
  if (!dump) {
    check(!dump.error().message.empty());
    return 0;
  }
  check(dump->modules.size() <= 4096);
  check(dump->stack_modules.size() == dump->stack_addresses.size());
  for (std::size_t i : dump->stack_modules) {
    check(i > 0 && i < dump->modules.size());
  }
  check(!dump->broken_driver || *dump->broken_driver < dump->modules.size());
  for (const std::optional<unsigned> param : {std::optional<unsigned>{},
                                              std::optional<unsigned>{1U},
                                              std::optional<unsigned>{2U},
                                              std::optional<unsigned>{3U},
                                              std::optional<unsigned>{4U},
                                              std::optional<unsigned>{9U}}) {
    const Blame b = blame(*dump, param);
    check(b.hit.has_value() == !b.how.empty());
    if (b.hit) {
      check(b.hit->module >= dump->modules.data()
            && b.hit->module < dump->modules.data() + dump->modules.size());
      check(b.hit->module->size == 0 || b.hit->offset < b.hit->module->size);
    }
    const Observation o = observe_kernel_dump(*dump, Origin{"fuzz", ""}, param);
    check(!o.code.empty() && o.lines.size() == 1);
  }
  return 0;
}
