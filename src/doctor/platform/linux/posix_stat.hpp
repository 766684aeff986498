// SPDX-License-Identifier: MIT
// Private to platform/linux: a struct stat as the platform layer's FileStat.
#pragma once

#include <doctor/platform/file_stat.hpp>

#include <sys/stat.h>

namespace doctor::platform {

// Returns the kind, size, permission bits, owner, device, inode and mtime of `st`.
FileStat file_stat_from(const struct stat& st);

} // namespace doctor::platform
