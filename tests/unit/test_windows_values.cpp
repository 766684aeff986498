// SPDX-License-Identifier: MIT
#include <doctor/collect/windows/windows_values.hpp>

#include <gtest/gtest.h>

namespace doctor {
namespace {

using collect::authenticode_verdict;
using collect::cudart_version_from_resource;
using collect::cudnn_dll_major;
using collect::parse_paging_files;
using collect::parse_pci_hardware_id;
using collect::parse_zone_identifier;
using collect::version_resource_number;

constexpr std::uint64_t k_mib = std::uint64_t{1024} * 1024;

TEST(WindowsValues, PagingFilesWithSizesAreNotSystemManaged) {
  const auto files = parse_paging_files({"C:\\pagefile.sys 1024 4096", "D:\\pagefile.sys 0 0"});
  ASSERT_EQ(files.size(), 2U);
  EXPECT_EQ(files[0].path, "C:\\pagefile.sys");
  EXPECT_FALSE(files[0].system_managed);
  EXPECT_EQ(files[0].initial_size, 1024 * k_mib);
  EXPECT_EQ(files[0].maximum_size, 4096 * k_mib);
  EXPECT_EQ(files[1].path, "D:\\pagefile.sys");
  EXPECT_TRUE(files[1].system_managed);
  EXPECT_EQ(files[1].maximum_size, 0U);
}

TEST(WindowsValues, PagingFileOnAnyDriveWithoutSizesIsSystemManaged) {
  const auto files = parse_paging_files({"?:\\pagefile.sys", "", "   "});
  ASSERT_EQ(files.size(), 1U);
  EXPECT_EQ(files[0].path, "?:\\pagefile.sys");
  EXPECT_TRUE(files[0].system_managed);
  EXPECT_FALSE(files[0].drive_free.has_value());
}

TEST(WindowsValues, PagingFileWithJunkSizesCountsAsZero) {
  const auto files = parse_paging_files({"C:\\pagefile.sys abc 99999999999999999999999"});
  ASSERT_EQ(files.size(), 1U);
  EXPECT_EQ(files[0].initial_size, 0U);
  EXPECT_EQ(files[0].maximum_size, 0U);
}

TEST(WindowsValues, PciHardwareIdGivesVendorAndDevice) {
  const auto nvidia = parse_pci_hardware_id("pci\\ven_10de&dev_2204&subsys_38801028&rev_a1");
  ASSERT_TRUE(nvidia);
  EXPECT_EQ(nvidia->vendor_id, 0x10deU);
  EXPECT_EQ(nvidia->device_id, 0x2204U);
  const auto intel = parse_pci_hardware_id("VEN_8086&DEV_9A49&SUBSYS_0A8C1028&REV_01");
  ASSERT_TRUE(intel);
  EXPECT_EQ(intel->vendor_id, 0x8086U);
  EXPECT_EQ(intel->device_id, 0x9a49U);
  EXPECT_FALSE(parse_pci_hardware_id("root\\basicdisplay"));
  EXPECT_FALSE(parse_pci_hardware_id("pci\\ven_10de&dev_22"));
  EXPECT_FALSE(parse_pci_hardware_id("pci\\ven_xyz1&dev_2204"));
}

TEST(WindowsValues, ProductNameOfWindows11IsCorrected) {
  EXPECT_EQ(collect::corrected_product_name("Windows 10 Pro", 22631), "Windows 11 Pro");
  EXPECT_EQ(collect::corrected_product_name("Windows 10 Pro", 19045), "Windows 10 Pro");
  EXPECT_EQ(collect::corrected_product_name("Windows Server 2022 Datacenter", 20348),
            "Windows Server 2022 Datacenter");
}

TEST(WindowsValues, CudnnDllNamesGiveTheirMajor) {
  EXPECT_EQ(cudnn_dll_major("cudnn64_8.dll"), 8U);
  EXPECT_EQ(cudnn_dll_major("cudnn_ops_infer64_8.dll"), 8U);
  EXPECT_EQ(cudnn_dll_major("CUDNN_ENGINES_RUNTIME_COMPILED64_9.DLL"), 9U);
  EXPECT_EQ(cudnn_dll_major("cudnn64_7.dll"), 7U);
  EXPECT_FALSE(cudnn_dll_major("cudnn64_8.lib"));
  EXPECT_FALSE(cudnn_dll_major("cudart64_110.dll"));
  EXPECT_FALSE(cudnn_dll_major("cudnn64_.dll"));
  EXPECT_FALSE(cudnn_dll_major("cudnn-x64_8.dll"));
  EXPECT_FALSE(cudnn_dll_major("cudnn64_0.dll"));
}

TEST(WindowsValues, VersionResourceNumberIsTheLeadingVersion) {
  EXPECT_EQ(version_resource_number("8.9.4.25")->str(), "8.9.4.25");
  EXPECT_EQ(version_resource_number(" 10.0.22621.1 (WinBuild.160101.0800)")->str(), "10.0.22621.1");
  EXPECT_FALSE(version_resource_number("NVIDIA"));
  EXPECT_FALSE(version_resource_number(""));
}

TEST(WindowsValues, CudartResourceVersionIsDecoded) {
  EXPECT_EQ(cudart_version_from_resource("6.14.11.12040")->str(), "12.4");
  EXPECT_EQ(cudart_version_from_resource("6.14.11.11080")->str(), "11.8");
  EXPECT_EQ(cudart_version_from_resource("12.4.127")->str(), "12.4.127");
  EXPECT_FALSE(cudart_version_from_resource("6.14.11.123"));
  EXPECT_FALSE(cudart_version_from_resource("1.0"));
  EXPECT_FALSE(cudart_version_from_resource("junk"));
}

// Zone.Identifier as Windows writes it (Edge, Chrome, Explorer's unzip), and what else may be in
// an attacker's stream.
TEST(WindowsValues, ZoneIdentifierGivesTheZoneOfItsZoneTransferSection) {
  EXPECT_EQ(parse_zone_identifier("[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://x/\r\n"
                                  "HostUrl=https://x/cudnn.zip\r\n"),
            3U);
  EXPECT_EQ(parse_zone_identifier("[ZoneTransfer]\nZoneId=4"), 4U);
  EXPECT_EQ(parse_zone_identifier("  [zonetransfer]  \n  zoneid  =  2  \n"), 2U);
  EXPECT_EQ(parse_zone_identifier("\xEF\xBB\xBF[ZoneTransfer]\r\nZoneId=3\r\n"), 3U);
  // Another section first, comments and blank lines: only [ZoneTransfer]'s key counts.
  EXPECT_EQ(parse_zone_identifier("[Other]\nZoneId=1\n\n; note\n[ZoneTransfer]\nZoneId=3\n"), 3U);
  EXPECT_FALSE(parse_zone_identifier("[Other]\nZoneId=3\n"));
  EXPECT_FALSE(parse_zone_identifier("ZoneId=3\n"));
  EXPECT_FALSE(parse_zone_identifier("[ZoneTransfer]\nZoneId=three\n"));
  EXPECT_FALSE(parse_zone_identifier("[ZoneTransfer]\nZoneId=-3\n"));
  EXPECT_FALSE(parse_zone_identifier("[ZoneTransfer]\nZoneId=4294967296\n"));
  EXPECT_EQ(parse_zone_identifier("[ZoneTransfer]\nZoneId=4294967295\n"), 4294967295U);
  EXPECT_FALSE(parse_zone_identifier("[ZoneTransfer]\nReferrerUrl=x\n"));
  EXPECT_FALSE(parse_zone_identifier(""));
  EXPECT_FALSE(parse_zone_identifier(std::string(100000, '[')));
}

TEST(WindowsValues, ZoneIdentifierInUtf16WithBomIsRead) {
  const std::u16string text = u"\uFEFF[ZoneTransfer]\r\nZoneId=3\r\n";
  std::string le;
  std::string be;
  for (const char16_t c : text) {
    le.push_back(static_cast<char>(c & 0xFF));
    le.push_back(static_cast<char>(c >> 8));
    be.push_back(static_cast<char>(c >> 8));
    be.push_back(static_cast<char>(c & 0xFF));
  }
  EXPECT_EQ(parse_zone_identifier(le), 3U);
  EXPECT_EQ(parse_zone_identifier(be), 3U);
}

TEST(WindowsValues, AuthenticodeResultsAreNamed) {
  EXPECT_EQ(authenticode_verdict(0), "valid");
  EXPECT_EQ(authenticode_verdict(0x800B0100U), "unsigned"); // TRUST_E_NOSIGNATURE
  EXPECT_EQ(authenticode_verdict(0x800B0003U), "unsigned"); // TRUST_E_SUBJECT_FORM_UNKNOWN
  EXPECT_EQ(authenticode_verdict(0x80096010U), "invalid: 0x80096010 TRUST_E_BAD_DIGEST");
  EXPECT_EQ(authenticode_verdict(0x800B0109U), "invalid: 0x800b0109 CERT_E_UNTRUSTEDROOT");
  EXPECT_EQ(authenticode_verdict(0x800B0004U), "invalid: 0x800b0004 TRUST_E_SUBJECT_NOT_TRUSTED");
  EXPECT_EQ(authenticode_verdict(0x80070005U), "invalid: 0x80070005");
}

} // namespace
} // namespace doctor
