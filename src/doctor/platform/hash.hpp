// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/file_stat.hpp>
#include <doctor/util/error.hpp>

#include <filesystem>
#include <string>
#include <string_view>

// File digests for `check --verify`: the algorithms package managers record (pip and conda
// sha256, dpkg md5). Linux uses OpenSSL's libcrypto (SHA-NI where the CPU has it), Windows BCrypt;
// the implementation is chosen by CMake (platform/<os>/hash_<os>.cpp).
namespace doctor::platform {

enum class HashAlgorithm { sha256, md5 };

// Returns "sha256" or "md5".
constexpr std::string_view to_string(HashAlgorithm algorithm) {
  return algorithm == HashAlgorithm::sha256 ? "sha256" : "md5";
}

// Returns the digest of the whole file at host path `path` as lower-case hex. Reads it in large
// blocks; safe to call from several threads at once; never blocks on opening a FIFO. Returns an
// error if the file cannot be opened or read (not found, permission denied, not a regular file,
// an I/O error). With `expected` (a status taken of `path` before), a final symbolic link is not
// followed and a file that is not the one `expected` describes (another device or inode, where
// the platform reports them) is refused with ErrorCode::io unread: what was examined is what is
// read, even if the path is swapped for a link to another file in between.
Expected<std::string> hash_file(const std::filesystem::path& path,
                                HashAlgorithm algorithm,
                                const FileStat* expected = nullptr);

// Returns the digest of `data` as lower-case hex. Returns an error only if the platform's crypto
// library fails.
Expected<std::string> hash_bytes(std::string_view data, HashAlgorithm algorithm);

} // namespace doctor::platform
