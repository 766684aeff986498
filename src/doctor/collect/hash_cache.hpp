// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/platform/environment.hpp>
#include <doctor/platform/file_stat.hpp>
#include <doctor/platform/hash.hpp>
#include <doctor/util/error.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

// The hash cache of `check --verify`, and the digests package records hold.
//
// Hashing a CUDA toolkit and cuDNN means reading several GB; the cache makes a second run
// near-instant. It maps a file's identity on the machine the doctor runs on (device, inode, size,
// modification time and status-change time in ns) and an algorithm to the digest computed last
// time, like ccache's and git's index do: a file rewritten in place gets a new mtime and ctime, a
// replaced file a new inode. The mtime can be set back by anyone who may write the file
// (os.utime, touch -d); the ctime cannot, short of root changing the clock or the raw disk, so a
// library altered in place with its mtime forged back is hashed again. What the cache trusts: its
// own file (anyone who can write it can make a digest answer "intact") and the kernel's ctime. On
// Windows, which has no such time, it trusts the mtime. --no-cache reads every byte again.
//
// This is the one file the doctor writes besides the report it is asked to write with -o: the
// cache is what makes --verify cheap enough to run routinely. It lives in
// $XDG_CACHE_HOME/cudnn-doctor/hashes-v1.json (else ~/.cache/cudnn-doctor, %LOCALAPPDATA% on
// Windows) of the doctor's own process, never inside an examined --sysroot tree; it is written
// atomically (a temporary file renamed over it). One that is missing, not a regular file, larger
// than 8 MB, not JSON or of another shape is ignored and rewritten whole, never fatal; an entry
// of the wrong shape is dropped.
namespace doctor::collect {

// What identifies one version of a file without reading it (platform::FileStat's fields).
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0; // 0 where the platform has none (Windows): the path keys the entry
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

// The identity of a file from its status.
FileIdentity identity_of(const platform::FileStat& st);

// Returns the directory the cache lives in: `configured` if not empty, else
// $XDG_CACHE_HOME/cudnn-doctor (if absolute), else $HOME/.cache/cudnn-doctor, else
// %LOCALAPPDATA%/cudnn-doctor. Returns an empty path if `env` names none of them.
std::filesystem::path cache_dir(const std::filesystem::path& configured,
                                const platform::Environment& env);

class HashCache {
public:
  static constexpr const char* k_file_name = "hashes-v1.json";

  // A cache that remembers nothing and writes nothing (--no-cache, or no cache directory).
  HashCache() = default;

  // Loads `dir`/hashes-v1.json. Never fails: a missing, unreadable or damaged file (not a regular
  // file, too large, not JSON, another schema, fields of the wrong type) counts as empty and is
  // rewritten by save(); a damaged entry is dropped.
  static HashCache open(const std::filesystem::path& dir);

  // True if the cache reads and writes a file.
  bool enabled() const { return !m_file.empty(); }

  // Returns the digest recorded for host file `path` with exactly this identity. An entry for the
  // same file with another identity is dropped.
  std::optional<std::string>
  find(const std::string& path, const FileIdentity& id, platform::HashAlgorithm algorithm);

  // Records `hex` as the digest of host file `path` with identity `id`.
  void store(const std::string& path,
             const FileIdentity& id,
             platform::HashAlgorithm algorithm,
             std::string hex);

  // Writes the cache if anything changed, first dropping entries whose file is gone or changed.
  // Returns an error if the directory or file cannot be written; the caller carries on without.
  Expected<void> save();

  // The number of entries held.
  std::size_t size() const { return m_entries.size(); }

  // One digest the cache holds.
  struct Entry {
    std::string path;
    FileIdentity id;
    platform::HashAlgorithm algorithm = platform::HashAlgorithm::sha256;
    std::string digest;
  };

private:
  static std::string
  key_of(const std::string& path, const FileIdentity& id, platform::HashAlgorithm algorithm);

  std::filesystem::path m_file;
  bool m_dirty = false;
  std::map<std::string, Entry> m_entries;
};

// A digest a package record gives for a file.
struct RecordedDigest {
  platform::HashAlgorithm algorithm = platform::HashAlgorithm::sha256;
  std::string hex; // lower case
  bool operator==(const RecordedDigest&) const = default;
};

// Converts pip RECORD's digest text (urlsafe base64 without padding, PEP 376) to lower-case hex.
// Returns nullopt if it is not valid base64.
std::optional<std::string> hex_from_pip_digest(std::string_view urlsafe_b64);

// Parses PackageFile::hash: "sha256=<urlsafe base64>" (pip), "sha256:<hex>" (conda) or
// "md5:<hex>" (dpkg). Returns nullopt for an empty hash (pip lists RECORD itself without one),
// another algorithm, or a digest of the wrong length.
std::optional<RecordedDigest> parse_recorded_digest(std::string_view hash);

} // namespace doctor::collect
