// SPDX-License-Identifier: MIT
#include <doctor/model/cause_class.hpp>
#include <doctor/model/severity.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace doctor {
namespace {

TEST(cause_class, public_names_are_the_fixed_list) {
  // The list users and programs rely on (DESIGN.md "Cause classes"), in order.
  const std::vector<std::string> expected = {"library_missing.cudnn",
                                             "library_missing.cudnn_sublibrary",
                                             "library_missing.zlib",
                                             "library_missing.cuda_runtime",
                                             "library_missing.msvc_runtime",
                                             "version_mismatch.cudnn",
                                             "version_mismatch.cuda",
                                             "driver.too_old",
                                             "driver.not_loaded",
                                             "driver.conflict",
                                             "gpu.arch_unsupported",
                                             "gpu.out_of_memory",
                                             "host.out_of_memory",
                                             "framework.no_gpu_support",
                                             "environment.conflict",
                                             "file.corrupt",
                                             "permission.denied",
                                             "security.risk",
                                             "hardware.fault",
                                             "hardware.unstable",
                                             "os.tdr_or_bugcheck",
                                             "os.update",
                                             "application.error",
                                             "other"};
  std::vector<std::string> actual;
  for (CauseClass c : all_cause_classes()) {
    actual.emplace_back(to_string(c));
  }
  EXPECT_EQ(actual, expected);
}

TEST(cause_class, round_trips_and_rejects_unknown_names) {
  for (CauseClass c : all_cause_classes()) {
    EXPECT_EQ(parse_cause_class(to_string(c)), c);
  }
  EXPECT_FALSE(parse_cause_class("driver"));
  EXPECT_FALSE(parse_cause_class("driver_not_loaded"));
  EXPECT_FALSE(parse_cause_class(""));
}

TEST(severity, orders_and_parses) {
  EXPECT_LT(Severity::info, Severity::warning);
  EXPECT_LT(Severity::warning, Severity::error);
  EXPECT_LT(Severity::error, Severity::critical);
  EXPECT_EQ(parse_severity("critical"), Severity::critical);
  EXPECT_FALSE(parse_severity("fatal"));
}

} // namespace
} // namespace doctor
