// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Pure decoders for what the Windows registry and file names hold, used by the Windows
// collectors and tested on any host.
namespace doctor::collect {

// The page files of Memory Management\PagingFiles: each entry "C:\pagefile.sys 1024 4096"
// (initial and maximum size in MB), "C:\pagefile.sys 0 0" or "?:\pagefile.sys" (sized by
// Windows). Entries without a path are skipped; drive_free is left unknown.
std::vector<facts::PageFile> parse_paging_files(const std::vector<std::string>& entries);

// The vendor and device id of a PnP hardware id ("pci\\ven_10de&dev_2204&subsys_…",
// "PCI\\VEN_8086&DEV_9A49"): nullopt without both.
struct PciIds {
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
};
std::optional<PciIds> parse_pci_hardware_id(std::string_view id);

// CurrentVersion\ProductName as Windows 11 still writes it ("Windows 10 Pro" on build 22000 and
// later): the name with "Windows 10" made "Windows 11" from build 22000 on; other names unchanged.
std::string corrected_product_name(std::string_view product_name, std::uint32_t build);

// The cuDNN major of a Windows cuDNN DLL name ("cudnn64_8.dll", "cudnn_ops_infer64_8.dll",
// "CUDNN_CNN64_9.DLL" -> 8, 8, 9); nullopt for anything else.
std::optional<unsigned> cudnn_dll_major(std::string_view file_name);

// The version a PE version-resource string says ("8.9.4.25", "6.14.11.12040 built by …"): the
// leading dotted numbers; nullopt without any.
std::optional<Version> version_resource_number(std::string_view text);

// The CUDA runtime version NVIDIA writes in cudart64_*.dll's version resource, "6.14.11.12040"
// (the last part is major*1000 + minor*10: 12.4); a plain "12.4.127" is taken as it is. nullopt
// for anything else.
std::optional<Version> cudart_version_from_resource(std::string_view text);

// The ZoneId of a Zone.Identifier stream (the Mark of the Web a browser or an unpacker leaves on
// a downloaded file): "ZoneId=N" in its [ZoneTransfer] section, N from 0 to 4 in practice
// (3: internet, 4: restricted). Names compare without case; spaces around names and values, CR
// LF line ends, a UTF-8 BOM and UTF-16LE/BE text with a BOM are taken as Windows writes them.
// nullopt without that section or key, or for a value that is not a decimal number below 2^32.
std::optional<std::uint32_t> parse_zone_identifier(std::string_view text);

// WinVerifyTrust's result for a file as the facts keep it: "valid" (0), "unsigned"
// (TRUST_E_NOSIGNATURE and its forms for a subject that cannot hold a signature or carries none
// Windows knows), or "invalid: 0x800b0100 TRUST_E_…" with the code and its name ("invalid:
// 0x80096010 TRUST_E_BAD_DIGEST"; an unnamed code has only its number).
std::string authenticode_verdict(std::uint32_t code);

} // namespace doctor::collect
