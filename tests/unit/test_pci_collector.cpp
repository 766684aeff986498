// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/formats/pci_ids.hpp>

#include <gtest/gtest.h>

#include <string>

namespace doctor {
namespace {

using facts::Facts;
using formats::lookup_pci_name;

// An excerpt of pciutils' pci.ids, with its tab-indented device and subsystem lines.
constexpr const char* k_pci_ids =
    "# List of PCI ID's\n"
    "10de  NVIDIA Corporation\n"
    "\t2330  GH100 [H100 SXM5 80GB]\n"
    "\t\t10de 16c1  H100 SXM5 80GB\n"
    "\t2335  GH100 [H200 SXM 141GB]\n"
    "10df  Emulex Corporation\n"
    "\t1ae5  LP6000 Fibre Channel Host Adapter\n"
    "1af4  Red Hat, Inc.\n"
    "\t1050  Virtio 1.0 GPU\n"
    "C 03  Display controller\n";

// A PCI function in sysfs the way the kernel lays it out: the real directory under
// /sys/devices, a link to it in /sys/bus/pci/devices, and a "driver" link to the bound driver.
void add_device(const test::TempDir& t,
                const std::string& address,
                const std::string& vendor,
                const std::string& device,
                const std::string& klass,
                const std::string& driver) {
  const std::string real = "/sys/devices/pci0000:00/" + address;
  t.write(real + "/vendor", vendor + "\n");
  t.write(real + "/device", device + "\n");
  t.write(real + "/class", klass + "\n");
  t.write(real + "/subsystem_vendor", "0x10de\n");
  t.write(real + "/subsystem_device", "0x16c1\n");
  if (!driver.empty()) {
    t.link("../../../bus/pci/drivers/" + driver, real + "/driver");
  }
  t.link("../../../devices/pci0000:00/" + address, "/sys/bus/pci/devices/" + address);
}

Facts collect(const platform::SysRoot& root) {
  Facts f;
  collect::collect_pci(root, collect::CollectOptions{}, f);
  return f;
}

TEST(pci_collector, lookup_finds_device_under_its_vendor) {
  EXPECT_EQ(lookup_pci_name(k_pci_ids, 0x10de, 0x2335), "GH100 [H200 SXM 141GB]");
  EXPECT_EQ(lookup_pci_name(k_pci_ids, 0x10de, 0x2330), "GH100 [H100 SXM5 80GB]");
  EXPECT_EQ(lookup_pci_name(k_pci_ids, 0x1af4, 0x1050), "Virtio 1.0 GPU");
}

TEST(pci_collector, lookup_does_not_cross_vendor_blocks) {
  EXPECT_FALSE(lookup_pci_name(k_pci_ids, 0x10de, 0x1ae5)) << "0x1ae5 belongs to Emulex";
  EXPECT_FALSE(lookup_pci_name(k_pci_ids, 0x10df, 0x2330)) << "0x2330 belongs to NVIDIA";
  EXPECT_FALSE(lookup_pci_name(k_pci_ids, 0x8086, 0x2330)) << "vendor not listed";
}

TEST(pci_collector, lookup_ignores_subsystem_lines) {
  EXPECT_FALSE(lookup_pci_name(k_pci_ids, 0x10de, 0x16c1));
}

TEST(pci_collector, lookup_survives_crlf_junk_and_a_missing_final_newline) {
  EXPECT_EQ(lookup_pci_name("10de  NVIDIA\n\t2335  H200", 0x10de, 0x2335), "H200");
  EXPECT_EQ(lookup_pci_name("10de  NVIDIA\r\n\t2335  H200\r\n", 0x10de, 0x2335), "H200");
  EXPECT_FALSE(lookup_pci_name("", 0x10de, 0x2335));
  EXPECT_FALSE(lookup_pci_name(std::string("\x00\xff\t\t\n\n", 6), 0x10de, 0x2335));
  EXPECT_EQ(lookup_pci_name("10de  NVIDIA\n\t2335  \x1b[31mH200\n", 0x10de, 0x2335), "?[31mH200");
}

TEST(pci_collector, collects_nvidia_gpus_and_other_displays) {
  test::TempDir t;
  add_device(t, "0000:01:00.0", "0x10de", "0x2335", "0x030200", "nvidia");
  add_device(t, "0000:00:02.0", "0x8086", "0x46a6", "0x030000", "");
  add_device(t, "0000:00:1f.0", "0x8086", "0x7a06", "0x060100", "");
  t.write("/usr/share/misc/pci.ids", k_pci_ids);
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.pci) << f.pci.reason();
  EXPECT_EQ(f.pci.source(), "dir:/sys/bus/pci/devices");
  EXPECT_EQ(f.pci->devices_scanned, 3U);
  ASSERT_EQ(f.pci->nvidia_gpus.size(), 1U);
  const auto& gpu = f.pci->nvidia_gpus[0];
  EXPECT_EQ(gpu.address, "0000:01:00.0");
  EXPECT_EQ(gpu.vendor_id, 0x10deU);
  EXPECT_EQ(gpu.device_id, 0x2335U);
  EXPECT_EQ(gpu.class_code, 0x030200U);
  EXPECT_EQ(gpu.subsystem_vendor_id, 0x10deU);
  EXPECT_EQ(gpu.subsystem_device_id, 0x16c1U);
  EXPECT_EQ(gpu.name.value_or(""), "GH100 [H200 SXM 141GB]");
  EXPECT_EQ(gpu.name.source(), "file:/usr/share/misc/pci.ids");
  EXPECT_EQ(gpu.driver.value_or(""), "nvidia");
  ASSERT_EQ(f.pci->other_displays.size(), 1U);
  const auto& intel = f.pci->other_displays[0];
  EXPECT_EQ(intel.address, "0000:00:02.0");
  ASSERT_FALSE(intel.name);
  EXPECT_NE(intel.name.reason().find("8086:46a6 is not in /usr/share/misc/pci.ids"),
            std::string::npos)
      << intel.name.reason();
  ASSERT_FALSE(intel.driver);
  EXPECT_NE(intel.driver.reason().find("no kernel driver is bound"), std::string::npos);
}

TEST(pci_collector, other_drivers_are_reported_by_name) {
  test::TempDir t;
  add_device(t, "0000:41:00.0", "0x10de", "0x2330", "0x030200", "vfio-pci");
  add_device(t, "0000:42:00.0", "0x10de", "0x2330", "0x030000", "nouveau");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.pci);
  ASSERT_EQ(f.pci->nvidia_gpus.size(), 2U);
  EXPECT_EQ(f.pci->nvidia_gpus[0].driver.value_or(""), "vfio-pci");
  EXPECT_EQ(f.pci->nvidia_gpus[1].driver.value_or(""), "nouveau");
}

TEST(pci_collector, pci_ids_is_looked_up_in_hwdata_too) {
  test::TempDir t;
  add_device(t, "0000:01:00.0", "0x10de", "0x2330", "0x030200", "nvidia");
  t.write("/usr/share/hwdata/pci.ids", k_pci_ids);
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.pci);
  ASSERT_EQ(f.pci->nvidia_gpus.size(), 1U);
  EXPECT_EQ(f.pci->nvidia_gpus[0].name.value_or(""), "GH100 [H100 SXM5 80GB]");
  EXPECT_EQ(f.pci->nvidia_gpus[0].name.source(), "file:/usr/share/hwdata/pci.ids");
}

TEST(pci_collector, missing_pci_ids_leaves_names_unknown) {
  test::TempDir t;
  add_device(t, "0000:01:00.0", "0x10de", "0x2330", "0x030200", "nvidia");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.pci);
  ASSERT_EQ(f.pci->nvidia_gpus.size(), 1U);
  ASSERT_FALSE(f.pci->nvidia_gpus[0].name);
  EXPECT_NE(f.pci->nvidia_gpus[0].name.reason().find("no pci.ids"), std::string::npos);
}

TEST(pci_collector, devices_with_unreadable_ids_are_not_scanned) {
  test::TempDir t;
  add_device(t, "0000:01:00.0", "0x10de", "0x2330", "0x030200", "nvidia");
  add_device(t, "0000:02:00.0", "junk", "0x2330", "0x030200", "nvidia");
  add_device(t, "0000:03:00.0", "0x10de", "0x2330", "0x1030200ff", "nvidia"); // > 32 bits
  t.mkdir("/sys/bus/pci/devices/0000:04:00.0");                               // empty
  t.link("../../../devices/pci0000:00/0000:05:00.0", "/sys/bus/pci/devices/0000:05:00.0");
  t.link("0000:06:00.0", "/sys/bus/pci/devices/0000:06:00.0"); // a loop
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.pci);
  EXPECT_EQ(f.pci->devices_scanned, 1U);
  ASSERT_EQ(f.pci->nvidia_gpus.size(), 1U);
  EXPECT_EQ(f.pci->nvidia_gpus[0].address, "0000:01:00.0");
}

TEST(pci_collector, missing_device_id_reads_as_zero) {
  test::TempDir t;
  add_device(t, "0000:01:00.0", "0x10de", "0x2330", "0x030200", "nvidia");
  std::filesystem::remove(t.at("/sys/devices/pci0000:00/0000:01:00.0/device"));
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.pci);
  ASSERT_EQ(f.pci->nvidia_gpus.size(), 1U);
  EXPECT_EQ(f.pci->nvidia_gpus[0].device_id, 0U);
}

TEST(pci_collector, missing_sysfs_is_unknown) {
  test::TempDir t;
  t.mkdir("/sys");
  const Facts f = collect(t.sysroot());
  ASSERT_FALSE(f.pci);
  EXPECT_NE(f.pci.reason().find("/sys/bus/pci/devices does not exist"), std::string::npos)
      << f.pci.reason();
}

TEST(pci_collector, empty_bus_is_known_and_empty) {
  test::TempDir t;
  t.mkdir("/sys/bus/pci/devices");
  const Facts f = collect(t.sysroot());
  ASSERT_TRUE(f.pci);
  EXPECT_EQ(f.pci->devices_scanned, 0U);
  EXPECT_TRUE(f.pci->nvidia_gpus.empty());
  EXPECT_TRUE(f.pci->other_displays.empty());
}

} // namespace
} // namespace doctor
