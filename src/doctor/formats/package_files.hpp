// SPDX-License-Identifier: MIT
// The files in which package managers record what they installed: pip's dist-info RECORD,
// conda's conda-meta/<name>-<version>-<build>.json, dpkg's info/<package>.list, .md5sums and
// status. Pure parsing of their text; collect/package_records.cpp finds and reads them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doctor::formats {

// One line of a pip RECORD ("path,hash,size"): the path relative to site-packages as written,
// the hash as written ("sha256=<urlsafe-b64>", "" for RECORD itself), the size if it is a number.
struct PipRecordLine {
  std::string path;
  std::string hash;
  std::optional<std::uint64_t> size;
};

// Parses a RECORD. Lines that are empty, quoted (paths with commas, which GPU wheels do not
// have), not three fields or without a path are skipped.
std::vector<PipRecordLine> parse_pip_record(std::string_view text);

// Parses dpkg's "<md5>  <path>" lines (a 32-digit md5, two spaces) into a map from absolute path
// ("/usr/lib/x", whatever the file wrote) to the md5 in lower case. Other lines are skipped.
std::map<std::string, std::string, std::less<>> parse_dpkg_md5sums(std::string_view text);

// The absolute paths of a dpkg .list file, in order (lines not starting with '/' are skipped).
std::vector<std::string_view> parse_dpkg_list(std::string_view text);

// The "Version:" of each package named in `wanted`, from /var/lib/dpkg/status text (the others
// are not kept: a system's status file lists thousands).
std::map<std::string, std::string>
parse_dpkg_status_versions(std::string_view text, const std::set<std::string, std::less<>>& wanted);

// A file a conda-meta record lists, relative to the environment's prefix.
struct CondaFile {
  std::string path;
  std::optional<std::uint64_t> size; // "size_in_bytes" of "paths_data"
  std::string sha256;                // "sha256" of "paths_data", "" if none
};

// What a conda-meta JSON record says: its package name and version (empty when it names none)
// and its files, from "paths_data" (newer conda, with sizes and hashes) or else "files".
struct CondaRecord {
  std::string name;
  std::string version;
  std::vector<CondaFile> files;
};

// Parses a conda-meta record. Returns nullopt if the text is not a JSON object; entries of the
// wrong shape are skipped.
std::optional<CondaRecord> parse_conda_meta(std::string_view text);

// Splits a conda-meta file name's stem, "<name>-<version>-<build>" (the name may contain
// dashes), into name and version. Returns nullopt without two dashes.
std::optional<std::pair<std::string, std::string>> split_conda_meta_stem(std::string_view stem);

} // namespace doctor::formats
