// SPDX-License-Identifier: MIT
// Lexical operations on '/'-separated paths, as the examined machine names them ("inner" paths of
// a SysRoot, paths in package records and loader search lists). Pure: nothing here looks at a
// file system.
#pragma once

#include <string>
#include <string_view>

namespace doctor::util {

// Joins inner path `dir` and relative `name` with exactly one '/'.
std::string join_path(std::string_view dir, std::string_view name);

// join_path() written into `out` (replacing what it held, keeping its buffer): for a caller that
// builds many paths in a row.
void join_path_into(std::string& out, std::string_view dir, std::string_view name);

// Returns the directory part of inner path `path` ("/a/b/c" -> "/a/b", "/a" -> "/").
std::string parent_path(std::string_view path);

// Returns the last component of inner path `path`.
std::string_view file_name(std::string_view path);

// True if normalised inner path `path` is `dir` or lies below it ("/a/b" is within "/a", "/ab"
// is not; everything is within "/").
bool is_within(std::string_view path, std::string_view dir);

// Whether normalize_path() would return `path` unchanged: "/" or absolute, without empty, "." or
// ".." components and without a trailing '/'.
bool is_normal_path(std::string_view path);

// Normalises an inner path lexically: collapses "//", removes "." and resolves ".." without
// climbing above "/". Relative paths are taken relative to "/".
std::string normalize_path(std::string_view path);

} // namespace doctor::util
