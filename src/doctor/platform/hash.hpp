// SPDX-License-Identifier: MIT
#pragma once

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
// blocks; safe to call from several threads at once. Returns an error if the file cannot be opened
// or read (not found, permission denied, a directory, an I/O error).
Expected<std::string> hash_file(const std::filesystem::path& path, HashAlgorithm algorithm);

// Returns the digest of `data` as lower-case hex. Returns an error only if the platform's crypto
// library fails.
Expected<std::string> hash_bytes(std::string_view data, HashAlgorithm algorithm);

} // namespace doctor::platform
