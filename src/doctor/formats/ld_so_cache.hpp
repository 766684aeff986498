// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/util/error.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::formats {

struct LdCacheRecord {
  std::string name; // the key ldconfig stored: usually a soname ("libcudnn.so.9")
  std::string path; // the file it maps to
  std::int32_t flags = 0;
  std::uint64_t hwcap = 0;
  std::string
      arch; // decoded from flags: "x86-64", "i386", "aarch64", … ("libc6,x86-64" in ldconfig -p)
};

// Parses /etc/ld.so.cache in any of glibc's three layouts: the new format alone
// ("glibc-ld.so.cache1.1", glibc >= 2.32 default), the old format alone ("ld.so-1.7.0") and the
// compat layout (old followed by new, where the new part is preferred, as ld.so does). Records
// keep the cache's order, which is the loader's lookup order. Returns ErrorCode::parse for a file
// that has neither magic, and for counts, offsets or strings outside the file (truncation). Both
// byte orders are accepted; the new header's flags field says which one was written.
Expected<std::vector<LdCacheRecord>> parse_ld_so_cache(std::string_view data);

// One record as visit_ld_so_cache() passes it: views into the cache's bytes, and how many
// records the cache holds.
struct LdCacheView {
  std::string_view name;
  std::string_view path;
  std::int32_t flags = 0;
  std::uint64_t hwcap = 0;
  std::size_t count = 0;
};
using LdCacheVisitor = std::function<void(const LdCacheView&)>;

// parse_ld_so_cache() without a copy of each record: calls `visit` with each record in cache
// order and returns how many there are. Returns the errors parse_ld_so_cache() returns, then
// perhaps after `visit` has seen the records before the one at fault (the caller drops them).
Expected<std::size_t> visit_ld_so_cache(std::string_view data, const LdCacheVisitor& visit);

// Compares two names as glibc's _dl_cache_libcmp (elf/dl-cache.c) does, the order ldconfig sorts
// the cache in (descending) and ld.so searches it by: a run of digits against a run of digits
// compares as a number (so "lib01" and "lib1" compare equal), a digit is greater than any other
// character, other characters compare as signed chars, the end of a name as a 0. Returns < 0,
// 0 or > 0.
int ld_cache_libcmp(std::string_view a, std::string_view b);

// Returns the architecture tag of a cache entry's flags ("x86-64"), as ldconfig -p prints it.
std::string ld_cache_arch(std::int32_t flags);

} // namespace doctor::formats
