// SPDX-License-Identifier: MIT
#include <doctor/collect/linux/journal.hpp>
#include <doctor/platform/dynlib.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

namespace doctor::collect {

namespace {

// The slice of libsystemd's sd-journal C ABI used here (systemd/sd-journal.h, stable since
// systemd 187; sd_journal_open_files since 205). Declared here rather than included: the doctor
// never links libsystemd and must build where its headers are not installed.
struct SdJournal; // opaque sd_journal
struct SdId128 {  // sd_id128_t: 16 bytes, passed by pointer
  std::uint8_t bytes[16];
};

constexpr int k_sd_journal_local_only = 1 << 0;
constexpr int k_sd_journal_system = 1 << 2;
constexpr std::size_t k_hard_max_lines = std::size_t{1} << 20;
constexpr std::string_view k_library = "libsystemd.so.0";

struct JournalApi {
  int (*open)(SdJournal**, int) = nullptr;
  int (*open_files)(SdJournal**, const char**, int) = nullptr;
  int (*add_match)(SdJournal*, const void*, std::size_t) = nullptr;
  int (*seek_tail)(SdJournal*) = nullptr;
  int (*previous)(SdJournal*) = nullptr;
  int (*get_data)(SdJournal*, const char*, const void**, std::size_t*) = nullptr;
  int (*get_realtime_usec)(SdJournal*, std::uint64_t*) = nullptr;
  int (*get_monotonic_usec)(SdJournal*, std::uint64_t*, SdId128*) = nullptr;
  void (*close)(SdJournal*) = nullptr;
  // Optional: missing in very old releases; the lines then carry no cursor or no threshold.
  int (*get_cursor)(SdJournal*, char**) = nullptr;
  int (*set_data_threshold)(SdJournal*, std::size_t) = nullptr;
};

template<typename Fn>
bool bind(const platform::DynamicLibrary& lib, Fn& slot, const char* name) {
  slot = reinterpret_cast<Fn>(lib.symbol(name));
  return slot != nullptr;
}

// Binds every function, naming the first required one the library lacks.
Expected<JournalApi> bind_api(const platform::DynamicLibrary& lib) {
  JournalApi api;
  const char* missing = nullptr;
  const auto need = [&](auto& slot, const char* name) {
    if (!bind(lib, slot, name) && missing == nullptr) {
      missing = name;
    }
  };
  need(api.open, "sd_journal_open");
  need(api.open_files, "sd_journal_open_files");
  need(api.add_match, "sd_journal_add_match");
  need(api.seek_tail, "sd_journal_seek_tail");
  need(api.previous, "sd_journal_previous");
  need(api.get_data, "sd_journal_get_data");
  need(api.get_realtime_usec, "sd_journal_get_realtime_usec");
  need(api.get_monotonic_usec, "sd_journal_get_monotonic_usec");
  need(api.close, "sd_journal_close");
  bind(lib, api.get_cursor, "sd_journal_get_cursor");
  bind(lib, api.set_data_threshold, "sd_journal_set_data_threshold");
  if (missing != nullptr) {
    return make_error(ErrorCode::unsupported, fmt::format("{} lacks {}", lib.path(), missing));
  }
  return api;
}

// sd-journal returns negative errno values.
Error journal_error(int rc, std::string_view what) {
  const int e = -rc;
  ErrorCode code = ErrorCode::io;
  if (e == ENOENT) {
    code = ErrorCode::not_found;
  } else if (e == EACCES || e == EPERM) {
    code = ErrorCode::permission_denied;
  }
  return Error{code, fmt::format("{}: {}", what, util::to_lower(std::strerror(e)))};
}

bool is_journal_file(std::string_view name) {
  return name.ends_with(".journal") || name.ends_with(".journal~");
}

// Adds the journal files of `dir` and of its subdirectories (one level: the machine-id folder of
// /var/log/journal) to `files`, at most k_max_journal_files in all.
Expected<void> add_directory(const std::string& dir, int depth, std::vector<std::string>& files) {
  auto entries = platform::list_directory(dir);
  if (!entries) {
    return tl::unexpected(entries.error());
  }
  for (const platform::DirEntry& e : *entries) {
    if (files.size() >= k_max_journal_files) {
      break;
    }
    const std::string path = dir + "/" + e.name;
    if (e.kind == platform::FileKind::directory && depth > 0) {
      if (auto sub = add_directory(path, depth - 1, files); !sub) {
        return sub;
      }
    } else if ((e.kind == platform::FileKind::regular || e.kind == platform::FileKind::symlink)
               && is_journal_file(e.name)) {
      files.push_back(path);
    }
  }
  return {};
}

// The host paths of the journal files `inner_paths` names inside `root`: every file resolved
// inside the root first.
Expected<std::vector<std::string>> journal_files(const platform::SysRoot& root,
                                                 const std::vector<std::string>& inner_paths) {
  std::vector<std::string> files;
  const auto add_file = [&](const std::string& inner) -> Expected<void> {
    auto real = root.resolve(inner);
    if (!real) {
      return make_error(real.error().code, fmt::format("journal: {}", real.error().message));
    }
    files.push_back(root.host_path(*real).string());
    return {};
  };
  // Adds the journal files of directory `dir` and, `depth` levels down, of its subdirectories.
  const auto add_dir = [&](const auto& self, const std::string& dir, int depth) -> Expected<void> {
    auto entries = root.list_dir(dir);
    if (!entries) {
      return make_error(entries.error().code, fmt::format("journal: {}", entries.error().message));
    }
    for (const platform::DirEntry& e : *entries) {
      if (files.size() >= k_max_journal_files) {
        break;
      }
      const std::string inner = dir + "/" + e.name;
      const bool is_dir = e.kind == platform::FileKind::directory
                          || (e.kind == platform::FileKind::symlink && root.is_dir(inner));
      if (is_dir && depth > 0) {
        if (auto sub = self(self, inner, depth - 1); !sub) {
          return sub;
        }
      } else if (!is_dir && is_journal_file(e.name)
                 && (e.kind == platform::FileKind::regular || root.is_file(inner))) {
        if (auto added = add_file(inner); !added) {
          return added;
        }
      }
    }
    return {};
  };
  for (const std::string& p : inner_paths) {
    if (!root.is_dir(p)) {
      if (auto added = add_file(p); !added) {
        return tl::unexpected(added.error());
      }
      continue;
    }
    const std::size_t before = files.size();
    if (auto added = add_dir(add_dir, p, 1); !added) {
      return tl::unexpected(added.error());
    }
    if (files.size() == before) {
      return make_error(ErrorCode::not_found, fmt::format("journal: no journal files in {}", p));
    }
  }
  return files;
}

Expected<std::vector<std::string>> journal_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    auto kind = platform::kind_of(p);
    if (!kind) {
      return make_error(kind.error().code, fmt::format("journal: {}", kind.error().message));
    }
    if (*kind != platform::FileKind::directory) {
      files.push_back(p);
      continue;
    }
    const std::size_t before = files.size();
    if (auto added = add_directory(p, 1, files); !added) {
      return make_error(added.error().code, fmt::format("journal: {}", added.error().message));
    }
    if (files.size() == before) {
      return make_error(ErrorCode::not_found, fmt::format("journal: no journal files in {}", p));
    }
  }
  return files;
}

// Returns the value of `field` of the current entry ("MESSAGE=text" -> "text"), or nullopt.
std::optional<std::string_view>
field(const JournalApi& api, SdJournal* j, const char* name, std::size_t name_len) {
  const void* data = nullptr;
  std::size_t size = 0;
  if (api.get_data(j, name, &data, &size) < 0 || data == nullptr || size <= name_len) {
    return std::nullopt;
  }
  const std::string_view all(static_cast<const char*>(data), size);
  if (all.substr(0, name_len) != name || all[name_len] != '=') {
    return std::nullopt;
  }
  return all.substr(name_len + 1);
}

std::string boot_text(const SdId128& id) {
  if (std::all_of(
          std::begin(id.bytes), std::end(id.bytes), [](std::uint8_t b) { return b == 0; })) {
    return {};
  }
  std::string out;
  out.reserve(32);
  for (const std::uint8_t b : id.bytes) {
    out += fmt::format("{:02x}", b);
  }
  return out;
}

int priority(std::optional<std::string_view> value) {
  if (value && value->size() == 1 && (*value)[0] >= '0' && (*value)[0] <= '7') {
    return (*value)[0] - '0';
  }
  return -1;
}

// Reads the current entry into a line; false when it has no MESSAGE.
bool read_entry(const JournalApi& api, SdJournal* j, const std::string& source, JournalLine& line) {
  const auto message = field(api, j, "MESSAGE", 7);
  if (!message) {
    return false;
  }
  std::string_view text = message->substr(0, k_max_journal_text);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  line.text = std::string(text);
  line.level = priority(field(api, j, "PRIORITY", 8));
  std::uint64_t usec = 0;
  if (api.get_realtime_usec(j, &usec) >= 0 && usec <= INT64_MAX) {
    line.when.utc_usec = static_cast<std::int64_t>(usec);
  }
  SdId128 boot{};
  if (api.get_monotonic_usec(j, &usec, &boot) >= 0 && usec <= INT64_MAX) {
    line.when.uptime_usec = static_cast<std::int64_t>(usec);
    line.when.boot = boot_text(boot);
  }
  if (line.when.boot.empty()) {
    if (const auto id = field(api, j, "_BOOT_ID", 8); id && id->size() <= 64) {
      line.when.boot = std::string(*id);
    }
  }
  line.origin.source = source;
  char* cursor = nullptr;
  if (api.get_cursor != nullptr && api.get_cursor(j, &cursor) >= 0 && cursor != nullptr) {
    line.origin.locator = "cursor " + util::sanitize(cursor, 512);
    std::free(cursor); // allocated by libsystemd with malloc
  }
  return true;
}

// Reads the kernel messages of the journal files `files` (host paths; empty: the local system
// journal), labelling the lines with `source`.
Expected<JournalRead> read_files(const platform::DynamicLibrary& lib,
                                 const JournalApi& api,
                                 const std::vector<std::string>& files,
                                 const std::string& source,
                                 std::size_t max_lines) {
  SdJournal* raw = nullptr;
  int rc = 0;
  if (files.empty()) {
    rc = api.open(&raw, k_sd_journal_local_only | k_sd_journal_system);
  } else {
    std::vector<const char*> argv;
    argv.reserve(files.size() + 1);
    for (const std::string& f : files) {
      argv.push_back(f.c_str());
    }
    argv.push_back(nullptr);
    rc = api.open_files(&raw, argv.data(), 0);
  }
  if (rc < 0 || raw == nullptr) {
    return tl::unexpected(
        journal_error(rc < 0 ? rc : -EIO,
                      files.empty() ? "cannot open the system journal"
                                    : fmt::format("cannot open {}", util::join(files, ", "))));
  }
  const auto closer = [close = api.close](SdJournal* j) { close(j); };
  const std::unique_ptr<SdJournal, decltype(closer)> journal(raw, closer);
  if (api.set_data_threshold != nullptr) {
    api.set_data_threshold(raw, k_max_journal_text + 16);
  }
  constexpr std::string_view k_match = "_TRANSPORT=kernel";
  if (rc = api.add_match(raw, k_match.data(), k_match.size()); rc < 0) {
    return tl::unexpected(journal_error(rc, "cannot filter the journal"));
  }
  if (rc = api.seek_tail(raw); rc < 0) {
    return tl::unexpected(journal_error(rc, "cannot seek in the journal"));
  }

  // Walk backwards from the newest entry, so that only the kept lines are read.
  JournalRead out;
  out.library = lib.path();
  const std::size_t limit = std::min(max_lines, k_hard_max_lines);
  // Entries without MESSAGE are skipped, but not without end.
  std::size_t skipped = 0;
  while (out.lines.size() < limit && skipped <= limit) {
    rc = api.previous(raw);
    if (rc < 0) {
      return tl::unexpected(journal_error(rc, "cannot read the journal"));
    }
    if (rc == 0) {
      break;
    }
    JournalLine line;
    if (read_entry(api, raw, source, line)) {
      out.lines.push_back(std::move(line));
    } else {
      ++skipped;
    }
  }
  std::reverse(out.lines.begin(), out.lines.end());
  for (const JournalLine& l : out.lines) {
    if (!l.when.boot.empty()
        && std::find(out.boots.begin(), out.boots.end(), l.when.boot) == out.boots.end()) {
      out.boots.push_back(l.when.boot);
    }
  }
  return out;
}

// Opens libsystemd and binds the functions used here.
Expected<std::pair<platform::DynamicLibrary, JournalApi>> open_library() {
  auto lib = platform::DynamicLibrary::open(std::string(k_library));
  if (!lib) {
    return make_error(ErrorCode::unsupported,
                      fmt::format("cannot load {}: {}", k_library, lib.error().message));
  }
  auto api = bind_api(*lib);
  if (!api) {
    return tl::unexpected(api.error());
  }
  return std::pair{std::move(*lib), *api};
}

} // namespace

Expected<JournalRead> read_journal(const std::vector<std::string>& paths, std::size_t max_lines) {
  auto lib = open_library();
  if (!lib) {
    return tl::unexpected(lib.error());
  }
  std::vector<std::string> files;
  if (!paths.empty()) {
    auto found = journal_files(paths);
    if (!found) {
      return tl::unexpected(found.error());
    }
    files = std::move(*found);
  }
  const std::string source = paths.empty() ? std::string("journal") : util::join(paths, ", ");
  return read_files(lib->first, lib->second, files, source, max_lines);
}

Expected<JournalRead> read_journal(const platform::SysRoot& root,
                                   const std::vector<std::string>& inner_paths,
                                   std::size_t max_lines) {
  auto lib = open_library();
  if (!lib) {
    return tl::unexpected(lib.error());
  }
  auto files = journal_files(root, inner_paths);
  if (!files) {
    return tl::unexpected(files.error());
  }
  if (files->empty()) {
    return make_error(ErrorCode::not_found, "journal: no journal files");
  }
  return read_files(lib->first, lib->second, *files, util::join(inner_paths, ", "), max_lines);
}

} // namespace doctor::collect
