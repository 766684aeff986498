// SPDX-License-Identifier: MIT
#include <doctor/collect/hash_cache.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/file_stat.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <system_error>
#include <vector>

namespace doctor::collect {

namespace fs = std::filesystem;

namespace {

// 2: entries carry ctime_ns. A file of schema 1 is rewritten whole.
constexpr const char* k_schema = "cudnn-doctor-hashes/2";
constexpr const char* k_dir_name = "cudnn-doctor";
// A cache of every GPU library of a big machine is a few hundred KB (about 300 bytes an entry);
// anything larger is not ours, and parsing it would cost many times its size.
constexpr std::size_t k_max_cache_file = std::size_t{8} * 1024 * 1024;

std::size_t hex_length(platform::HashAlgorithm algorithm) {
  return algorithm == platform::HashAlgorithm::sha256 ? 64 : 32;
}

bool is_lower_hex(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::optional<platform::HashAlgorithm> algorithm_named(std::string_view name) {
  if (name == "sha256") {
    return platform::HashAlgorithm::sha256;
  }
  if (name == "md5") {
    return platform::HashAlgorithm::md5;
  }
  return std::nullopt;
}

// Returns the value of base64 digit `c`, accepting both the urlsafe and the standard alphabet.
int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') {
    return c - 'A';
  }
  if (c >= 'a' && c <= 'z') {
    return c - 'a' + 26;
  }
  if (c >= '0' && c <= '9') {
    return c - '0' + 52;
  }
  if (c == '-' || c == '+') {
    return 62;
  }
  if (c == '_' || c == '/') {
    return 63;
  }
  return -1;
}

// A random suffix for the temporary file, so that two doctors saving at once do not write into
// the same one; the rename makes the last one win whole.
std::string temp_suffix() {
  std::random_device rd;
  return fmt::format(".tmp-{:08x}{:08x}", rd(), rd());
}

// One entry of the file, or nullopt for one of the wrong shape: every field present with its
// type (unsigned where a negative number means nothing), a known algorithm, a digest of its
// length in lower-case hex.
std::optional<HashCache::Entry> entry_from_json(const nlohmann::json& e) {
  if (!e.is_object()) {
    return std::nullopt;
  }
  auto string_field = [&](const char* name) -> const std::string* {
    const auto it = e.find(name);
    return it != e.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
  };
  auto unsigned_field = [&](const char* name, std::uint64_t& out) {
    const auto it = e.find(name);
    if (it == e.end() || !it->is_number_unsigned()) {
      return false;
    }
    out = it->get<std::uint64_t>();
    return true;
  };
  auto signed_field = [&](const char* name, std::int64_t& out) {
    const auto it = e.find(name);
    if (it == e.end() || !it->is_number_integer()
        || (it->is_number_unsigned()
            && it->get<std::uint64_t>()
                   > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      return false;
    }
    out = it->get<std::int64_t>();
    return true;
  };
  const std::string* path = string_field("path");
  const std::string* algorithm = string_field("algorithm");
  const std::string* digest = string_field("digest");
  if (path == nullptr || algorithm == nullptr || digest == nullptr) {
    return std::nullopt;
  }
  const auto alg = algorithm_named(*algorithm);
  if (!alg || digest->size() != hex_length(*alg) || !is_lower_hex(*digest)) {
    return std::nullopt;
  }
  HashCache::Entry entry{*path, {}, *alg, *digest};
  if (!unsigned_field("device", entry.id.device) || !unsigned_field("inode", entry.id.inode)
      || !unsigned_field("size", entry.id.size) || !signed_field("mtime_ns", entry.id.mtime_ns)
      || !signed_field("ctime_ns", entry.id.ctime_ns)) {
    return std::nullopt;
  }
  return entry;
}

} // namespace

FileIdentity identity_of(const platform::FileStat& st) {
  return FileIdentity{st.device, st.inode, st.size, st.mtime_ns, st.ctime_ns};
}

fs::path cache_dir(const fs::path& configured, const platform::Environment& env) {
  if (!configured.empty()) {
    return configured;
  }
  // The variables hold UTF-8 text (C:\Users\张伟\AppData\Local on Windows): platform::u8path.
  if (auto xdg = env.get("XDG_CACHE_HOME"); xdg && platform::u8path(*xdg).is_absolute()) {
    return platform::u8path(*xdg) / k_dir_name;
  }
  if (auto home = env.get("HOME"); home && !home->empty()) {
    return platform::u8path(*home) / ".cache" / k_dir_name;
  }
  if (auto local = env.get("LOCALAPPDATA"); local && !local->empty()) {
    return platform::u8path(*local) / k_dir_name;
  }
  return {};
}

std::string HashCache::key_of(const std::string& path,
                              const FileIdentity& id,
                              platform::HashAlgorithm algorithm) {
  if (id.inode != 0) {
    return fmt::format("{}:{}:{}", id.device, id.inode, platform::to_string(algorithm));
  }
  return fmt::format("path:{}:{}", path, platform::to_string(algorithm));
}

HashCache HashCache::open(const fs::path& dir) {
  HashCache cache;
  if (dir.empty()) {
    return cache;
  }
  cache.m_file = dir / k_file_name;
  // Only a regular file is read, and only one of a cache's size: a FIFO put there would block
  // the read, a device or a huge file would cost its length. Whatever else lies there is
  // replaced by the next save (a rename replaces a FIFO or a link, never what it points to).
  const auto st = platform::lstat_path(cache.m_file);
  if (!st) {
    return cache; // none yet
  }
  if (st->kind != platform::FileKind::regular || st->size > k_max_cache_file) {
    cache.m_dirty = true;
    return cache;
  }
  auto text = platform::read_file(cache.m_file, k_max_cache_file);
  const auto doc = text ? nlohmann::json::parse(*text, nullptr, false)
                        : nlohmann::json(nlohmann::json::value_t::discarded);
  const auto schema = doc.is_object() ? doc.find("schema") : doc.end();
  const auto entries = doc.is_object() ? doc.find("entries") : doc.end();
  if (schema == doc.end() || !schema->is_string() || *schema != k_schema || entries == doc.end()
      || !entries->is_array()) {
    cache.m_dirty = true; // rewrite what cannot be read
    return cache;
  }
  for (const auto& e : *entries) {
    if (auto entry = entry_from_json(e)) {
      const std::string key = key_of(entry->path, entry->id, entry->algorithm);
      cache.m_entries.insert_or_assign(key, std::move(*entry));
    } else {
      cache.m_dirty = true; // drop it from the file too
    }
  }
  return cache;
}

std::optional<std::string> HashCache::find(const std::string& path,
                                           const FileIdentity& id,
                                           platform::HashAlgorithm algorithm) {
  if (!enabled()) {
    return std::nullopt;
  }
  const auto it = m_entries.find(key_of(path, id, algorithm));
  if (it == m_entries.end()) {
    return std::nullopt;
  }
  if (it->second.id != id) {
    m_entries.erase(it);
    m_dirty = true;
    return std::nullopt;
  }
  return it->second.digest;
}

void HashCache::store(const std::string& path,
                      const FileIdentity& id,
                      platform::HashAlgorithm algorithm,
                      std::string hex) {
  if (!enabled()) {
    return;
  }
  m_entries.insert_or_assign(key_of(path, id, algorithm),
                             Entry{path, id, algorithm, std::move(hex)});
  m_dirty = true;
}

Expected<void> HashCache::save() {
  if (!enabled() || !m_dirty) {
    return {};
  }
  for (auto it = m_entries.begin(); it != m_entries.end();) {
    const auto st = platform::stat_path(it->second.path);
    const bool same =
        st && st->kind == platform::FileKind::regular && identity_of(*st) == it->second.id;
    it = same ? std::next(it) : m_entries.erase(it);
  }
  nlohmann::ordered_json doc;
  doc["schema"] = k_schema;
  doc["entries"] = nlohmann::ordered_json::array();
  for (const auto& [key, e] : m_entries) {
    doc["entries"].push_back({{"path", e.path},
                              {"device", e.id.device},
                              {"inode", e.id.inode},
                              {"size", e.id.size},
                              {"mtime_ns", e.id.mtime_ns},
                              {"ctime_ns", e.id.ctime_ns},
                              {"algorithm", platform::to_string(e.algorithm)},
                              {"digest", e.digest}});
  }
  std::error_code ec;
  fs::create_directories(m_file.parent_path(), ec);
  if (ec) {
    return tl::unexpected(platform::error_from(ec, m_file.parent_path().string()));
  }
  fs::path temp = m_file;
  temp += temp_suffix();
  if (auto written = platform::write_file(temp, doc.dump(1) + "\n"); !written) {
    fs::remove(temp, ec);
    return written;
  }
  fs::rename(temp, m_file, ec);
  if (ec) {
    const Error err = platform::error_from(ec, m_file.string());
    fs::remove(temp, ec);
    return tl::unexpected(err);
  }
  m_dirty = false;
  return {};
}

std::optional<std::string> hex_from_pip_digest(std::string_view urlsafe_b64) {
  while (!urlsafe_b64.empty() && urlsafe_b64.back() == '=') {
    urlsafe_b64.remove_suffix(1);
  }
  if (urlsafe_b64.empty() || urlsafe_b64.size() % 4 == 1) {
    return std::nullopt;
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : urlsafe_b64) {
    const int v = base64_value(c);
    if (v < 0) {
      return std::nullopt;
    }
    bits = (bits << 6U) | static_cast<std::uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      const auto byte = static_cast<unsigned>((bits >> static_cast<unsigned>(count)) & 0xffU);
      out.push_back(k_hex[byte >> 4U]);
      out.push_back(k_hex[byte & 0xfU]);
    }
  }
  return out;
}

std::optional<RecordedDigest> parse_recorded_digest(std::string_view hash) {
  const auto sep = hash.find_first_of("=:");
  if (sep == std::string_view::npos) {
    return std::nullopt;
  }
  const auto algorithm = algorithm_named(util::to_lower(hash.substr(0, sep)));
  if (!algorithm) {
    return std::nullopt;
  }
  std::string_view value = hash.substr(sep + 1);
  std::optional<std::string> hex;
  if (hash[sep] == '=') {
    hex = hex_from_pip_digest(value);
  } else {
    hex = util::to_lower(util::trim(value));
  }
  if (!hex || hex->size() != hex_length(*algorithm) || !is_lower_hex(*hex)) {
    return std::nullopt;
  }
  return RecordedDigest{*algorithm, std::move(*hex)};
}

} // namespace doctor::collect
