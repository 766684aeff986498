// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/environment.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/file_stat.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/platform/registry.hpp>
#include <doctor/util/error.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::platform {

// The operating system family of the examined machine.
enum class OsFamily { linux, windows };

// Returns "linux" or "windows".
std::string_view to_string(OsFamily os);

// The examined machine: a root directory, its environment variables and its OS family. Every read
// of machine state goes through here, so a test can point the doctor at a fake tree and a user can
// point it at a mounted container image (`--sysroot`).
//
// Paths given to and returned by a SysRoot are "inner" paths: absolute paths as the examined
// machine sees them ("/usr/local/cuda/lib64"). Symbolic links are followed inside the root: an
// absolute link target is taken relative to the root, and ".." never climbs above it, so a link
// in a container image never escapes to the host.
class SysRoot {
public:
  // `root` is a host directory ("/" for the live machine). `live` says whether the root is the
  // machine the doctor runs on, where process-level probes (NVML) make sense.
  SysRoot(std::filesystem::path root, Environment env, OsFamily os, bool live);

  const std::filesystem::path& root() const { return m_root; }
  const Environment& env() const { return m_env; }
  OsFamily os() const { return m_os; }
  bool is_live() const { return m_live; }

  // The examined Windows machine's registry (live, or the hives of a mounted disk); nullptr when
  // there is none (a Linux machine, or a Windows tree whose hives could not be opened).
  const Registry* registry() const { return m_registry.get(); }
  void set_registry(std::shared_ptr<const Registry> registry) { m_registry = std::move(registry); }

  // Why registry() is nullptr on a Windows root ("the hives cannot be read: …"); empty when a
  // registry is set or none was looked for.
  const std::string& registry_error() const { return m_registry_error; }
  void set_registry_error(std::string reason) { m_registry_error = std::move(reason); }

  // Returns the inner path of `inner` with each component matched without regard to ASCII case
  // where no entry of that exact name exists ("/windows/system32/CONFIG" ->
  // "/Windows/System32/config"), as Windows sees the names of an NTFS disk that Linux mounts
  // case-sensitively. Links are followed inside the root. Returns ErrorCode::not_found if a
  // component matches no entry.
  Expected<std::string> find_any_case(std::string_view inner) const;

  // Returns the inner path of the Windows directory of a Windows system disk ("/Windows", in
  // whatever case the disk has it, holding System32), or nullopt when the root has none.
  std::optional<std::string> windows_directory() const;

  // Returns the host path of `inner` without following links (lexical join; ".." is removed
  // lexically and never climbs above the root).
  std::filesystem::path host_path(std::string_view inner) const;

  // Returns the canonical inner path of `inner`: every symlink followed inside the root, "." and
  // ".." removed. Returns ErrorCode::not_found if a component is missing, ErrorCode::symlink_loop
  // after 40 links.
  Expected<std::string> resolve(std::string_view inner) const;

  // Reads `inner` (following links inside the root). Returns an error as platform::read_file does.
  Expected<std::string>
  read_file(std::string_view inner, std::size_t max_bytes, bool allow_truncate = false) const;

  // Maps the regular file `inner` (following links inside the root) read-only. Returns an error as
  // platform::MappedFile::open does, naming `inner`.
  Expected<MappedFile> map_file(std::string_view inner) const;

  // Opens the regular file `real` for positioned reads: a path inside the root whose links were
  // already followed inside it (resolve(), lstat_resolved()), so it is not walked again, which a
  // loader walk meeting thousands of paths would pay for. Returns an error as
  // platform::InputFile::open does (a FIFO or device is refused), naming `real`.
  Expected<InputFile> open_resolved(std::string_view real) const;

  // Lists directory `inner` (following links inside the root), sorted by name. Returns an error if
  // it cannot be listed.
  Expected<std::vector<platform::DirEntry>> list_dir(std::string_view inner) const;

  // Returns the status of `inner` itself, without following a final link.
  Expected<FileStat> lstat(std::string_view inner) const;

  // lstat() of `inner`, and what resolve() would return for it where the same walk tells: for a
  // normalised `inner` that is no symlink, its folder's canonical path joined with its name; ""
  // otherwise (then ask resolve()).
  struct LinkStatus {
    FileStat stat;
    std::string real_path;
  };
  Expected<LinkStatus> lstat_resolved(std::string_view inner) const;

  // Returns the status of what `inner` points to, following links inside the root.
  Expected<FileStat> stat(std::string_view inner) const;

  // Returns the target of the link `inner`, as written in the link.
  Expected<std::string> read_link(std::string_view inner) const;

  // Convenience: true if `inner` exists (after links) and is a directory / a regular file.
  bool is_dir(std::string_view inner) const;
  bool is_file(std::string_view inner) const;
  bool exists(std::string_view inner) const;

private:
  // resolve(); with `directory`, the last component too is remembered in m_components (it is
  // the folder of a file being looked up).
  Expected<std::string> resolve_as(std::string_view inner, bool directory) const;
  // The canonical path of folder `inner` if resolve_as(inner, true) has it cached, copied into
  // `out` with room for `extra` more bytes; false if it is not cached.
  bool cached_folder(std::string_view inner, std::size_t extra, std::string& out) const;
  // resolve_as() without the cache of folders.
  Expected<std::string> walk(std::string_view inner, bool directory) const;

  // `error` of host path `host` restated for inner path `inner`.
  static Error
  inner_error(const Error& error, const std::filesystem::path& host, std::string_view inner);

  // What resolve() learned about directories on the way to a file: the link target of each
  // symlink component, or "" for a component that is no link, and the canonical path of each
  // folder resolved as one (every component of it is then in the cache, so a second walk would
  // give the same). Copies of a SysRoot share it; guarded by its own mutex, so collectors may
  // resolve from several threads.
  struct ComponentCache;

  std::filesystem::path m_root;
  Environment m_env;
  OsFamily m_os;
  bool m_live;
  bool m_host_is_inner; // a Linux root of "/": a normalised inner path is its host path
  std::shared_ptr<ComponentCache> m_components;
  std::shared_ptr<const Registry> m_registry;
  std::string m_registry_error;
};

} // namespace doctor::platform
