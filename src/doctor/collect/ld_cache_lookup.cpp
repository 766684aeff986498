// SPDX-License-Identifier: MIT
#include <doctor/collect/ld_cache_lookup.hpp>
#include <doctor/formats/ld_so_cache.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace doctor::collect {

namespace {

constexpr std::size_t k_max_ld_so_cache = std::size_t{64} * 1024 * 1024;

// The cache's records as views into the mapping, in cache order. ldconfig writes them sorted by
// glibc's _dl_cache_libcmp, descending (elf/cache.c, compare), and ld.so looks a name up by
// binary search (elf/dl-cache.c); a cache found sorted is searched the same way, any other one
// record by record, so that both answer as a scan of every record would.
class MappedLdCache final : public loader::LdCacheLookup {
public:
  // A record as offsets into the mapping (at most k_max_ld_so_cache bytes): 20 bytes where two
  // views take 40 (the records of a cache of thousands are touched page by page every run).
  struct Record {
    std::uint32_t name_at = 0;
    std::uint32_t name_size = 0;
    std::uint32_t path_at = 0;
    std::uint32_t path_size = 0;
    std::int32_t flags = 0;
  };

  MappedLdCache(platform::MappedFile file, std::vector<Record> records)
      : m_file(std::move(file))
      , m_records(std::move(records)) {
    m_sorted =
        std::is_sorted(m_records.begin(), m_records.end(), [&](const Record& a, const Record& b) {
          return formats::ld_cache_libcmp(name_of(a), name_of(b)) > 0;
        });
  }

  std::vector<facts::LdCacheEntry> entries_named(std::string_view name) const override {
    auto first = m_records.begin();
    auto last = m_records.end();
    if (m_sorted) {
      // The records that compare equal to `name` (among them every one that is `name`) are
      // together, after every greater one.
      first = std::partition_point(first, last, [&](const Record& r) {
        return formats::ld_cache_libcmp(name_of(r), name) > 0;
      });
      last = std::partition_point(first, last, [&](const Record& r) {
        return formats::ld_cache_libcmp(name_of(r), name) == 0;
      });
    }
    std::vector<facts::LdCacheEntry> out;
    for (auto it = first; it != last; ++it) {
      if (name_of(*it) == name) {
        out.push_back(
            facts::LdCacheEntry{std::string(name_of(*it)),
                                std::string(m_file.data().substr(it->path_at, it->path_size)),
                                formats::ld_cache_arch(it->flags)});
      }
    }
    return out;
  }

private:
  std::string_view name_of(const Record& r) const {
    return m_file.data().substr(r.name_at, r.name_size);
  }

  platform::MappedFile m_file; // what the records' offsets are into
  std::vector<Record> m_records;
  bool m_sorted = false;
};

} // namespace

Expected<platform::MappedFile> map_ld_so_cache(const platform::SysRoot& root) {
  auto data = root.map_file("/etc/ld.so.cache");
  if (!data) {
    return make_error(data.error().code,
                      data.error().code == ErrorCode::not_found
                          ? "/etc/ld.so.cache does not exist (ldconfig never ran in this system)"
                          : fmt::format("cannot read /etc/ld.so.cache: {}", data.error().message));
  }
  if (data->data().size() > k_max_ld_so_cache) {
    return make_error(ErrorCode::too_large,
                      fmt::format("cannot read /etc/ld.so.cache: /etc/ld.so.cache: larger than {} "
                                  "bytes",
                                  k_max_ld_so_cache));
  }
  return data;
}

Expected<std::shared_ptr<const loader::LdCacheLookup>>
open_ld_cache(const platform::SysRoot& root) {
  auto file = map_ld_so_cache(root);
  if (!file) {
    return tl::unexpected(file.error());
  }
  std::vector<MappedLdCache::Record> records;
  auto visited = formats::visit_ld_so_cache(file->data(), [&](const formats::LdCacheView& r) {
    if (records.empty()) {
      records.reserve(r.count);
    }
    const auto at = [&](std::string_view part) {
      return static_cast<std::uint32_t>(part.data() - file->data().data());
    };
    const auto size = [](std::string_view part) { return static_cast<std::uint32_t>(part.size()); };
    records.push_back(
        MappedLdCache::Record{at(r.name), size(r.name), at(r.path), size(r.path), r.flags});
  });
  if (!visited) {
    return make_error(ErrorCode::parse,
                      fmt::format("/etc/ld.so.cache is damaged: {}", visited.error().message));
  }
  return std::make_shared<const MappedLdCache>(std::move(*file), std::move(records));
}

} // namespace doctor::collect
