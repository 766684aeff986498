// SPDX-License-Identifier: MIT
#include <doctor/platform/hash.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/windows/wide.hpp>

#include <fmt/format.h>

// clang-format off
#include <windows.h>
#include <bcrypt.h>
// clang-format on

#include <vector>

namespace doctor::platform {

namespace {

constexpr std::size_t k_block = std::size_t{512} * 1024;

// One BCrypt hash object for one digest: the algorithm provider and the hash, closed together.
class Hasher {
public:
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  Hasher() = default;
  ~Hasher() {
    if (m_hash != nullptr) {
      BCryptDestroyHash(m_hash);
    }
    if (m_alg != nullptr) {
      BCryptCloseAlgorithmProvider(m_alg, 0);
    }
  }

  Expected<void> start(HashAlgorithm algorithm) {
    const wchar_t* id =
        algorithm == HashAlgorithm::sha256 ? BCRYPT_SHA256_ALGORITHM : BCRYPT_MD5_ALGORITHM;
    if (!BCRYPT_SUCCESS(BCryptOpenAlgorithmProvider(&m_alg, id, nullptr, 0))
        || !BCRYPT_SUCCESS(BCryptCreateHash(m_alg, &m_hash, nullptr, 0, nullptr, 0, 0))) {
      return make_error(ErrorCode::internal,
                        fmt::format("BCrypt cannot start a {} digest", to_string(algorithm)));
    }
    return {};
  }

  Expected<void> update(const void* data, std::size_t size) {
    // BCryptHashData takes a ULONG length; feed larger inputs in pieces.
    const auto* p = static_cast<const unsigned char*>(data);
    while (size > 0) {
      const ULONG n = size > 0x40000000U ? 0x40000000U : static_cast<ULONG>(size);
      if (!BCRYPT_SUCCESS(BCryptHashData(m_hash, const_cast<PUCHAR>(p), n, 0))) {
        return make_error(ErrorCode::internal, "BCrypt cannot update a digest");
      }
      p += n;
      size -= n;
    }
    return {};
  }

  Expected<std::string> finish() {
    DWORD length = 0;
    ULONG got = 0;
    if (!BCRYPT_SUCCESS(BCryptGetProperty(m_hash,
                                          BCRYPT_HASH_LENGTH,
                                          reinterpret_cast<PUCHAR>(&length),
                                          sizeof(length),
                                          &got,
                                          0))) {
      return make_error(ErrorCode::internal, "BCrypt cannot tell the digest length");
    }
    std::vector<unsigned char> digest(length);
    if (!BCRYPT_SUCCESS(BCryptFinishHash(m_hash, digest.data(), length, 0))) {
      return make_error(ErrorCode::internal, "BCrypt cannot finish a digest");
    }
    static constexpr char k_hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(digest.size() * 2);
    for (unsigned char c : digest) {
      out.push_back(k_hex[c >> 4U]);
      out.push_back(k_hex[c & 0xfU]);
    }
    return out;
  }

private:
  BCRYPT_ALG_HANDLE m_alg = nullptr;
  BCRYPT_HASH_HANDLE m_hash = nullptr;
};

} // namespace

// Windows reports no inode (FileStat's are 0), so `expected` is not compared here.
Expected<std::string> hash_file(const std::filesystem::path& path,
                                HashAlgorithm algorithm,
                                const FileStat* /*expected*/) {
  auto opened = windows::open_for_reading(path, true);
  if (!opened) {
    return tl::unexpected(opened.error());
  }
  HANDLE file = *opened;
  Hasher hasher;
  auto started = hasher.start(algorithm);
  if (!started) {
    CloseHandle(file);
    return tl::unexpected(started.error());
  }
  std::vector<unsigned char> buffer(k_block);
  for (;;) {
    DWORD n = 0;
    if (ReadFile(file, buffer.data(), static_cast<DWORD>(buffer.size()), &n, nullptr) == 0) {
      const DWORD err = GetLastError();
      CloseHandle(file);
      return make_error(ErrorCode::io, fmt::format("{}: read error {}", utf8(path), err));
    }
    if (n == 0) {
      break;
    }
    if (auto ok = hasher.update(buffer.data(), n); !ok) {
      CloseHandle(file);
      return tl::unexpected(ok.error());
    }
  }
  CloseHandle(file);
  return hasher.finish();
}

Expected<std::string> hash_bytes(std::string_view data, HashAlgorithm algorithm) {
  Hasher hasher;
  if (auto ok = hasher.start(algorithm); !ok) {
    return tl::unexpected(ok.error());
  }
  if (auto ok = hasher.update(data.data(), data.size()); !ok) {
    return tl::unexpected(ok.error());
  }
  return hasher.finish();
}

} // namespace doctor::platform
