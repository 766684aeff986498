// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/loader/linux_search.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/error.hpp>

#include <memory>

// The examined system's /etc/ld.so.cache: mapped once, and either copied whole into the facts
// (collect_linker) or read by name where it lies (a tree of dependencies).
namespace doctor::collect {

// Maps /etc/ld.so.cache of `root`. Returns an error whose message is the reason the facts give
// for a cache they cannot use: absent ("… does not exist (ldconfig never ran in this system)"),
// unreadable, or larger than 64 MiB.
Expected<platform::MappedFile> map_ld_so_cache(const platform::SysRoot& root);

// Opens /etc/ld.so.cache of `root` for lookups by name, in place: the entries of a name are
// copied out only when asked for. Every record is checked now, so the cache is refused for
// exactly the reasons collect_linker() gives (map_ld_so_cache(), or "/etc/ld.so.cache is damaged:
// …"), and a lookup answers what a search of collect_linker()'s entries would.
Expected<std::shared_ptr<const loader::LdCacheLookup>> open_ld_cache(const platform::SysRoot& root);

} // namespace doctor::collect
