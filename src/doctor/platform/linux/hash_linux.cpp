// SPDX-License-Identifier: MIT
#include <doctor/platform/file.hpp>
#include <doctor/platform/hash.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/linux/fd.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

// SHA256_* and MD5_* are deprecated since OpenSSL 3.0 (see Digest below).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>
#include <openssl/sha.h>

#include <array>
#include <cerrno>
#include <system_error>
#include <variant>
#include <vector>

namespace doctor::platform {

namespace {

// Large enough that the read() calls cost nothing next to the digest, small enough to stay in
// the L2 cache while OpenSSL walks over it.
constexpr std::size_t k_block = std::size_t{512} * 1024;

// The digest of one algorithm, through libcrypto's functions for that algorithm (SHA256_*, MD5_*:
// the same assembly as EVP's, with SHA-NI and AVX2 where the CPU has them) rather than EVP: the
// binary links libcrypto statically, and EVP brings its provider machinery, whose ~300 KB of
// pointer tables every start of the program relocates (a hundred page faults, a third of the
// start-up floor) although only `check --verify` computes a digest. The functions are deprecated
// since OpenSSL 3.0 in favour of EVP, not removed.
class Digest {
public:
  explicit Digest(HashAlgorithm algorithm) {
    if (algorithm == HashAlgorithm::sha256) {
      m_ok = SHA256_Init(&m_state.emplace<SHA256_CTX>()) == 1;
    } else {
      m_ok = MD5_Init(&m_state.emplace<MD5_CTX>()) == 1;
    }
  }

  bool ok() const { return m_ok; }

  bool update(const void* data, std::size_t size) {
    if (auto* sha = std::get_if<SHA256_CTX>(&m_state)) {
      return SHA256_Update(sha, data, size) == 1;
    }
    return MD5_Update(&std::get<MD5_CTX>(m_state), data, size) == 1;
  }

  // The digest as lower-case hex; the context is spent.
  Expected<std::string> finish() {
    std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
    std::size_t length = 0;
    bool done = false;
    if (auto* sha = std::get_if<SHA256_CTX>(&m_state)) {
      done = SHA256_Final(digest.data(), sha) == 1;
      length = SHA256_DIGEST_LENGTH;
    } else {
      done = MD5_Final(digest.data(), &std::get<MD5_CTX>(m_state)) == 1;
      length = MD5_DIGEST_LENGTH;
    }
    if (!done) {
      return make_error(ErrorCode::internal, "libcrypto cannot finish a digest");
    }
    static constexpr char k_hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(length * 2);
    for (std::size_t i = 0; i < length; ++i) {
      out.push_back(k_hex[digest[i] >> 4U]);
      out.push_back(k_hex[digest[i] & 0xfU]);
    }
    return out;
  }

private:
  std::variant<SHA256_CTX, MD5_CTX> m_state;
  bool m_ok = false;
};

Expected<Digest> start(HashAlgorithm algorithm) {
  Digest digest(algorithm);
  if (!digest.ok()) {
    return make_error(ErrorCode::internal,
                      fmt::format("libcrypto cannot start a {} digest", to_string(algorithm)));
  }
  return digest;
}

Error errno_error(int err, const std::filesystem::path& path) {
  return platform::error_from(std::error_code(err, std::generic_category()), path.string());
}

} // namespace

Expected<std::string>
hash_file(const std::filesystem::path& path, HashAlgorithm algorithm, const FileStat* expected) {
  // InputFile: a regular file only (a FIFO or device put where a file was is refused, never
  // waited on), checked on the opened descriptor.
  auto opened = InputFile::open(path);
  if (!opened) {
    return tl::unexpected(opened.error());
  }
  if (expected != nullptr
      && (opened->stat().device != expected->device || opened->stat().inode != expected->inode)) {
    return make_error(
        ErrorCode::io,
        fmt::format("{}: replaced by another file while it was examined", path.string()));
  }
  const Fd file(static_cast<int>(opened->release()));
  // Tell the kernel to read ahead aggressively: the file is read once, front to back.
  (void)::posix_fadvise(file.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  auto ctx = start(algorithm);
  if (!ctx) {
    return tl::unexpected(ctx.error());
  }
  std::vector<unsigned char> buffer(k_block);
  for (;;) {
    const ssize_t n = ::read(file.get(), buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return tl::unexpected(errno_error(errno, path));
    }
    if (n == 0) {
      break;
    }
    if (!ctx->update(buffer.data(), static_cast<std::size_t>(n))) {
      return make_error(ErrorCode::internal, "libcrypto cannot update a digest");
    }
  }
  return ctx->finish();
}

Expected<std::string> hash_bytes(std::string_view data, HashAlgorithm algorithm) {
  auto ctx = start(algorithm);
  if (!ctx) {
    return tl::unexpected(ctx.error());
  }
  if (!ctx->update(data.data(), data.size())) {
    return make_error(ErrorCode::internal, "libcrypto cannot update a digest");
  }
  return ctx->finish();
}

} // namespace doctor::platform
