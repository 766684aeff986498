// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/facts/facts.hpp>
#include <doctor/loader/file_probe.hpp>
#include <doctor/loader/resolution.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The Linux dynamic loader's search for a library requested by name (a DT_NEEDED entry or a
// dlopen("libcudnn_ops.so.9") call), as glibc's ld.so does it (elf/dl-load.c, _dl_map_object),
// with the reason for every path considered, like libtree but also for dlopen, which libtree,
// ldd and Dependencies cannot see.
namespace doctor::loader {

// An object in the chain of loaders: the one that asks first, the executable last. Its path is
// the one it was loaded by (not its real path): $ORIGIN is that path's directory.
struct LoaderObject {
  std::string path;
  const facts::BinaryInfo* binary = nullptr; // nullptr: unknown object (no RPATH/RUNPATH)
};

// The examined system's loader settings.
struct LinuxLoaderConfig {
  std::string ld_library_path; // raw value (':' or ';' separated; empty entries mean ".")
  bool ld_library_path_set = false;
  std::optional<std::vector<facts::LdCacheEntry>> cache; // nullopt: no usable /etc/ld.so.cache
  std::vector<std::string> default_dirs;
  std::string lib_token = "lib64";       // $LIB
  std::string platform_token = "x86_64"; // $PLATFORM
};

// Builds the configuration from the facts (environment, ld.so.cache, default directories,
// architecture).
LinuxLoaderConfig linux_config_from(const facts::Facts& facts);

// Resolves `name` for `chain` (chain[0] asks; empty chain: a program without RPATH or RUNPATH).
// A name with a '/' is opened as given. Candidates whose ELF class or machine differs from the
// caller's are skipped, as ld.so does. The search goes on past the winner to list shadowed copies.
Resolution resolve_linux(std::string_view name,
                         const std::vector<LoaderObject>& chain,
                         const LinuxLoaderConfig& config,
                         FileProbe& probe);

// Expands $ORIGIN, $LIB and $PLATFORM (also in ${…} form) in an RPATH/RUNPATH entry of an object
// found at `object_path`. Returns nullopt for an entry that uses an unknown token.
std::optional<std::string> expand_tokens(std::string_view entry,
                                         std::string_view object_path,
                                         const LinuxLoaderConfig& config);

} // namespace doctor::loader
