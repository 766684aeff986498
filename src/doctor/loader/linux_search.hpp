// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/loader/file_probe.hpp>
#include <doctor/loader/resolution.hpp>
#include <doctor/model/facts.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The Linux dynamic loader's search for a library requested by name (a DT_NEEDED entry or a
// dlopen("libcudnn_ops.so.9") call), as glibc's ld.so does it (elf/dl-load.c, _dl_map_object),
// with the reason for every path considered, like libtree but also for dlopen, which libtree,
// ldd and Dependencies cannot see.
namespace doctor::loader {

// An object in the chain of loaders: the one that asks first, the executable last. Its path is
// the one it was loaded by (not its real path): $ORIGIN is that path's directory, unless
// `origin_path` is set. The executable's $ORIGIN is the directory of its real file (glibc's
// _dl_get_origin reads /proc/self/exe), so callers give it that real path there.
struct LoaderObject {
  LoaderObject() = default;
  LoaderObject(std::string object_path,
               const facts::BinaryInfo* object_binary,
               std::string real_path = std::string())
      : path(std::move(object_path))
      , binary(object_binary)
      , origin_path(std::move(real_path)) {}

  std::string path;
  const facts::BinaryInfo* binary = nullptr; // nullptr: unknown object (no RPATH/RUNPATH)
  std::string origin_path;                   // "": `path`
  const std::string& origin() const { return origin_path.empty() ? path : origin_path; }
};

// An ld.so.cache read by name where it lies, without a copy of its thousands of entries (a tree
// of dependencies asks for a few dozen names); collect::open_ld_cache() opens the examined
// machine's.
class LdCacheLookup {
public:
  LdCacheLookup() = default;
  LdCacheLookup(const LdCacheLookup&) = delete;
  LdCacheLookup& operator=(const LdCacheLookup&) = delete;
  virtual ~LdCacheLookup() = default;

  // Returns the entries whose name is `name`, in the cache's order.
  virtual std::vector<facts::LdCacheEntry> entries_named(std::string_view name) const = 0;
};

// The examined system's loader settings.
struct SearchMemo;

// An empty memo for LinuxLoaderConfig::memo.
std::shared_ptr<SearchMemo> make_search_memo();

struct LinuxLoaderConfig {
  std::string ld_library_path; // raw value (':' or ';' separated; empty entries mean ".")
  bool ld_library_path_set = false;
  std::string ld_preload; // raw value (' ' or ':' separated); empty: none
  std::optional<std::vector<facts::LdCacheEntry>> cache; // nullopt: no usable /etc/ld.so.cache
  // Set: the ld.so.cache is read through it instead, and `cache` is not used.
  std::shared_ptr<const LdCacheLookup> cache_lookup;
  std::vector<std::string> default_dirs;
  std::string lib_token = "lib64";       // $LIB
  std::string platform_token = "x86_64"; // $PLATFORM
  // The ELF class and machine of the process (of its ld.so), used when the caller's own are
  // unknown (a program without RPATH). 0 / "": unknown, nothing is skipped for them.
  unsigned elf_bits = 64;
  std::string elf_machine = "x86-64"; // BinaryInfo::machine's names
  // What searches through the same probe can share (linux_search.cpp): what LD_LIBRARY_PATH gave
  // each name (every cuDNN dispatcher asks for the same sub-libraries, and a LD_LIBRARY_PATH of
  // hundreds of folders would be searched again for each), each object's RPATH and RUNPATH
  // expanded, which folders have glibc-hwcaps subdirectories, and the ld.so.cache entries by
  // name (a tree of dependencies asks the same chain of objects for dozens of names). Null: no
  // memo. linux_config_from() makes one; copies of a config share it, and the settings above
  // must not change while it is in use.
  std::shared_ptr<SearchMemo> memo;
};

// dlopen()'s error for a candidate that is not a loadable ELF file. glibc passes no errno with
// these messages (open_verify's errval stays 0); the model reports ENOEXEC, what execve(2)
// returns for the same file, so that Resolution::fatal_error is non-zero as on Windows.
inline constexpr unsigned k_error_not_elf = 8;

// The model's error for a candidate that is a FIFO: ld.so's open() waits for a writer and the load
// never returns. EAGAIN (11), what the same open() says when asked not to wait.
inline constexpr unsigned k_error_blocks = 11;

// Splits LD_LIBRARY_PATH at ':' and ';', as glibc's decompose_rpath / fillin_rpath do
// (elf/dl-load.c, the ":;" delimiters), keeping empty entries (they mean the current directory).
std::vector<std::string_view> split_library_path(std::string_view value);

// Splits LD_PRELOAD at ' ' and ':', as glibc's handle_preload_list does (elf/rtld.c,
// strcspn (p, " :")), dropping empty entries.
std::vector<std::string_view> split_preload_list(std::string_view value);

// Builds the configuration from the facts (environment, ld.so.cache, default directories,
// architecture).
LinuxLoaderConfig linux_config_from(const facts::Facts& facts);
// The same, taking the ld.so.cache entries out of `facts` instead of copying them (thousands of
// strings), and leaving `facts.linker.cache` without them.
LinuxLoaderConfig linux_config_from(facts::Facts&& facts);
// The same with `cache` for the facts' ld.so.cache entries.
LinuxLoaderConfig linux_config_from(const facts::Facts& facts,
                                    std::optional<std::vector<facts::LdCacheEntry>> cache);

// Resolves `name` for `chain` (chain[0] asks; empty chain: a program without RPATH or RUNPATH).
// An object preloaded through LD_PRELOAD whose SONAME (or preload name) is `name` answers first.
// A name with a '/' is opened as given. Candidates whose ELF class or machine differs from the
// caller's (or the process's, in `config`) are skipped, as ld.so does; a candidate that is no
// ELF file at all, a FIFO or a device ends the search with `fatal_error` and no `chosen`, as dlopen
// fails (or hangs) there; a socket ends the list it is in. A candidate the doctor could not
// examine for want of memory or descriptors leaves no `chosen` and says why in `undetermined`.
// The search goes on past the winner to list shadowed copies.
Resolution resolve_linux(std::string_view name,
                         const std::vector<LoaderObject>& chain,
                         const LinuxLoaderConfig& config,
                         FileProbe& probe);

// The same search, ended at the winner, as ld.so itself ends it: `chosen`, `fatal_error` and
// `undetermined` are what resolve_linux gives, but `shadowed` is empty, and `steps` are listed
// only when nothing is chosen (then they are resolve_linux's). For a tree of dependencies, which
// shows only where each one is loaded from: the copies later in the order cost a read of each
// one's headers, and the account of each search its strings, and neither is shown there.
Resolution resolve_linux_first(std::string_view name,
                               const std::vector<LoaderObject>& chain,
                               const LinuxLoaderConfig& config,
                               FileProbe& probe);

// Expands $ORIGIN, $LIB and $PLATFORM (also in ${…} form) in an RPATH/RUNPATH entry of an object
// found at `object_path`; any other '$' (an unknown $NAME, "$ORIGINx", an unclosed "${") stays
// literally. Returns nullopt for an entry that uses $ORIGIN where it has no value (no
// `object_path`), which ld.so drops.
std::optional<std::string> expand_tokens(std::string_view entry,
                                         std::string_view object_path,
                                         const LinuxLoaderConfig& config);

} // namespace doctor::loader
