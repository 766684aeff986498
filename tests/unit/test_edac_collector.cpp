// SPDX-License-Identifier: MIT
// Linux EDAC's memory error counters (collect/linux/edac_collector.cpp) from fake sysfs trees.
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

facts::Facts collect_edac(const test::TempDir& t) {
  facts::Facts f;
  collect::collect_host_hardware(test::fake_root(t.path()), collect::CollectOptions{}, f);
  return f;
}

constexpr const char* k_mc = "/sys/devices/system/edac/mc";

TEST(edac_collector, counts_per_controller_and_dimm_with_the_labels) {
  test::TempDir t;
  const std::string mc0 = std::string(k_mc) + "/mc0";
  t.write(mc0 + "/mc_name", "Skylake Socket#0 IMC#0\n");
  t.write(mc0 + "/ce_count", "12\n");
  t.write(mc0 + "/ue_count", "0\n");
  t.write(mc0 + "/dimm0/dimm_label", "CPU_SrcID#0_MC#0_Chan#0_DIMM#0\n");
  t.write(mc0 + "/dimm0/dimm_ce_count", "0\n");
  t.write(mc0 + "/dimm0/dimm_ue_count", "0\n");
  t.write(mc0 + "/dimm10/dimm_label", "CPU_SrcID#0_MC#0_Chan#2_DIMM#0\n");
  t.write(mc0 + "/dimm10/dimm_ce_count", "12\n");
  t.write(mc0 + "/dimm10/dimm_ue_count", "0\n");
  t.write(mc0 + "/dimm2/dimm_ce_count", "0\n");
  t.write(mc0 + "/power/control", "auto\n"); // not a DIMM
  // An older driver: chip-select rows with the label of their first channel.
  const std::string mc10 = std::string(k_mc) + "/mc10";
  t.write(mc10 + "/ce_count", "0\n");
  t.write(mc10 + "/ue_count", "1\n");
  t.write(mc10 + "/csrow0/ce_count", "0\n");
  t.write(mc10 + "/csrow0/ue_count", "1\n");
  t.write(mc10 + "/csrow0/ch0_dimm_label", "DIMM_B1\n");
  const std::string mc2 = std::string(k_mc) + "/mc2";
  t.write(mc2 + "/ce_count", "not a number\n");
  const auto f = collect_edac(t);
  ASSERT_TRUE(f.host_hardware.edac) << f.host_hardware.edac.reason();
  const auto& mcs = *f.host_hardware.edac;
  ASSERT_EQ(mcs.size(), 3U);
  EXPECT_EQ(mcs[0].name, "mc0");
  EXPECT_EQ(mcs[1].name, "mc2"); // mc2 before mc10
  EXPECT_EQ(mcs[2].name, "mc10");
  EXPECT_EQ(mcs[0].mc_name, "Skylake Socket#0 IMC#0");
  EXPECT_EQ(mcs[0].ce_count, 12U);
  ASSERT_EQ(mcs[0].dimms.size(), 3U);
  EXPECT_EQ(mcs[0].dimms[1].name, "dimm2");
  EXPECT_EQ(mcs[0].dimms[2].name, "dimm10");
  EXPECT_EQ(mcs[0].dimms[2].label, "CPU_SrcID#0_MC#0_Chan#2_DIMM#0");
  EXPECT_EQ(mcs[0].dimms[2].ce_count, 12U);
  EXPECT_EQ(mcs[1].ce_count, 0U); // unreadable counts are none
  EXPECT_EQ(mcs[2].ue_count, 1U);
  ASSERT_EQ(mcs[2].dimms.size(), 1U);
  EXPECT_EQ(mcs[2].dimms[0].label, "DIMM_B1");
  EXPECT_EQ(mcs[2].dimms[0].ue_count, 1U);
}

TEST(edac_collector, without_an_edac_driver_the_counters_are_unknown_with_the_reason) {
  test::TempDir t;
  t.write("/sys/devices/system/cpu/online", "0-7\n");
  const auto f = collect_edac(t);
  ASSERT_FALSE(f.host_hardware.edac);
  EXPECT_NE(f.host_hardware.edac.reason().find("no EDAC driver is loaded"), std::string::npos);
}

TEST(edac_collector, a_hostile_label_is_made_printable_and_cut) {
  test::TempDir t;
  const std::string dimm = std::string(k_mc) + "/mc0/dimm0";
  t.write(dimm + "/dimm_label", "\x1b[31m" + std::string(5000, 'A') + "\n");
  t.write(dimm + "/dimm_ce_count", "1\n");
  const auto f = collect_edac(t);
  ASSERT_TRUE(f.host_hardware.edac);
  const std::string& label = (*f.host_hardware.edac)[0].dimms[0].label;
  EXPECT_EQ(label.find('\x1b'), std::string::npos);
  EXPECT_LT(label.size(), 200U);
}

} // namespace
} // namespace doctor
