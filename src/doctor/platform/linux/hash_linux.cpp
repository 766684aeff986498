// SPDX-License-Identifier: MIT
#include <doctor/platform/dynlib.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/hash.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/linux/fd.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

// SHA256_CTX and MD5_CTX only: the functions are bound at run time (see Crypto below).
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

// libcrypto's digest functions, from the shared library opened the first time a digest is asked
// for (check --verify, the hash cache), not linked: a linked libcrypto, static or shared, runs its
// CPU probe (OPENSSL_cpuid_setup, a dozen CPUID instructions, each a trap to the hypervisor on a
// virtual machine) or thousands of symbol bindings at every start of the program, for digests
// most runs never compute. SHA256_* and MD5_* (the same assembly as EVP's, with SHA-NI and AVX2
// where the CPU has them) keep one ABI, context layouts included, from OpenSSL 1.0 to 3.x; they
// are deprecated since 3.0 in favour of EVP, not removed.
struct Crypto {
  DynamicLibrary library;
  int (*sha256_init)(SHA256_CTX*) = nullptr;
  int (*sha256_update)(SHA256_CTX*, const void*, std::size_t) = nullptr;
  int (*sha256_final)(unsigned char*, SHA256_CTX*) = nullptr;
  int (*md5_init)(MD5_CTX*) = nullptr;
  int (*md5_update)(MD5_CTX*, const void*, std::size_t) = nullptr;
  int (*md5_final)(unsigned char*, MD5_CTX*) = nullptr;
};

// The sonames tried, newest first (Debian 12 and Ubuntu 22.04 ship 3, older systems 1.1).
constexpr const char* k_libcrypto_names[] = {"libcrypto.so.3", "libcrypto.so.1.1"};

template<typename F>
bool bind(const DynamicLibrary& library, const char* name, F& out) {
  out = reinterpret_cast<F>(library.symbol(name));
  return out != nullptr;
}

Expected<Crypto> load_crypto() {
  std::string why;
  for (const char* name : k_libcrypto_names) {
    auto library = DynamicLibrary::open(name);
    if (!library) {
      why += why.empty() ? library.error().message : "; " + library.error().message;
      continue;
    }
    Crypto c{std::move(*library)};
    if (bind(c.library, "SHA256_Init", c.sha256_init)
        && bind(c.library, "SHA256_Update", c.sha256_update)
        && bind(c.library, "SHA256_Final", c.sha256_final)
        && bind(c.library, "MD5_Init", c.md5_init) && bind(c.library, "MD5_Update", c.md5_update)
        && bind(c.library, "MD5_Final", c.md5_final)) {
      return c;
    }
    why += fmt::format("{}{}: no SHA256_* or MD5_* functions", why.empty() ? "" : "; ", name);
  }
  return make_error(ErrorCode::unsupported,
                    fmt::format("cannot compute digests: OpenSSL's libcrypto could not be loaded "
                                "({}); install it (libssl3 on Debian and Ubuntu)",
                                why));
}

// The library, loaded once for the whole process (function-local: thread-safe, never changed).
Expected<const Crypto*> crypto() {
  static const Expected<Crypto> k_crypto = load_crypto();
  if (!k_crypto) {
    return tl::unexpected(k_crypto.error());
  }
  return &*k_crypto;
}

// The digest of one algorithm.
class Digest {
public:
  Digest(const Crypto& c, HashAlgorithm algorithm)
      : m_crypto(&c) {
    if (algorithm == HashAlgorithm::sha256) {
      m_ok = c.sha256_init(&m_state.emplace<SHA256_CTX>()) == 1;
    } else {
      m_ok = c.md5_init(&m_state.emplace<MD5_CTX>()) == 1;
    }
  }

  bool ok() const { return m_ok; }

  bool update(const void* data, std::size_t size) {
    if (auto* sha = std::get_if<SHA256_CTX>(&m_state)) {
      return m_crypto->sha256_update(sha, data, size) == 1;
    }
    return m_crypto->md5_update(&std::get<MD5_CTX>(m_state), data, size) == 1;
  }

  // The digest as lower-case hex; the context is spent.
  Expected<std::string> finish() {
    std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
    std::size_t length = 0;
    bool done = false;
    if (auto* sha = std::get_if<SHA256_CTX>(&m_state)) {
      done = m_crypto->sha256_final(digest.data(), sha) == 1;
      length = SHA256_DIGEST_LENGTH;
    } else {
      done = m_crypto->md5_final(digest.data(), &std::get<MD5_CTX>(m_state)) == 1;
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
  const Crypto* m_crypto;
  std::variant<SHA256_CTX, MD5_CTX> m_state;
  bool m_ok = false;
};

Expected<Digest> start(HashAlgorithm algorithm) {
  auto c = crypto();
  if (!c) {
    return tl::unexpected(c.error());
  }
  Digest digest(**c, algorithm);
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
