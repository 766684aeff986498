// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/formats/fatbin.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <string>

namespace doctor::collect {

// Reads the headers of the file at canonical inner path `real_path` (ELF or PE, by its magic)
// into a BinaryInfo, with its size, mode and owner. A file that cannot be opened or mapped gives
// format "unknown" and says why in `read_error` (its kind) and `read_error_message`; one that is
// empty, or neither ELF nor PE, gives format "unknown" and says why in `problems`. Touches only
// the pages the headers live in.
facts::BinaryInfo read_binary(const platform::SysRoot& root, const std::string& real_path);

// The fields of read_binary() that the Linux loader model reads (format, size, mode and owner,
// class, machine, SONAME, DT_NEEDED, RPATH, RUNPATH, DF_1_NODEFLIB), for the file at canonical
// inner path `real_path` whose status is `st`: a plain ELF file through a few positioned reads of
// its headers and dynamic segment (formats::read_elf_loader_fields), with no version tables,
// build id or problems; anything else exactly as read_binary() reads it.
facts::BinaryInfo read_loader_binary(const platform::SysRoot& root,
                                     const std::string& real_path,
                                     const platform::FileStat& st);

// As formats::read_fatbin_image, for the file at host path `path`: the ELF or PE headers are read
// from a read-only mapping, the fatbin headers with positioned reads. Returns an error as
// platform::MappedFile::open and platform::PositionedFile::open do if the file cannot be mapped or
// opened.
Expected<formats::FatbinFile> read_fatbin_file(const std::filesystem::path& path);

} // namespace doctor::collect
