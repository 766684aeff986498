// SPDX-License-Identifier: MIT
#include <doctor/platform/file.hpp>
#include <doctor/platform/hash.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/linux/fd.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <system_error>
#include <vector>

namespace doctor::platform {

namespace {

// Large enough that the read() calls cost nothing next to the digest, small enough to stay in
// the L2 cache while OpenSSL walks over it.
constexpr std::size_t k_block = std::size_t{512} * 1024;

struct CtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using Ctx = std::unique_ptr<EVP_MD_CTX, CtxDeleter>;

const EVP_MD* md_of(HashAlgorithm algorithm) {
  return algorithm == HashAlgorithm::sha256 ? EVP_sha256() : EVP_md5();
}

Expected<Ctx> start(HashAlgorithm algorithm) {
  Ctx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md_of(algorithm), nullptr) != 1) {
    return make_error(ErrorCode::internal,
                      fmt::format("libcrypto cannot start a {} digest", to_string(algorithm)));
  }
  return ctx;
}

Expected<std::string> finish(EVP_MD_CTX* ctx) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx, digest, &length) != 1) {
    return make_error(ErrorCode::internal, "libcrypto cannot finish a digest");
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::size_t{length} * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(k_hex[digest[i] >> 4U]);
    out.push_back(k_hex[digest[i] & 0xfU]);
  }
  return out;
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
    if (EVP_DigestUpdate(ctx->get(), buffer.data(), static_cast<std::size_t>(n)) != 1) {
      return make_error(ErrorCode::internal, "libcrypto cannot update a digest");
    }
  }
  return finish(ctx->get());
}

Expected<std::string> hash_bytes(std::string_view data, HashAlgorithm algorithm) {
  auto ctx = start(algorithm);
  if (!ctx) {
    return tl::unexpected(ctx.error());
  }
  if (EVP_DigestUpdate(ctx->get(), data.data(), data.size()) != 1) {
    return make_error(ErrorCode::internal, "libcrypto cannot update a digest");
  }
  return finish(ctx->get());
}

} // namespace doctor::platform
