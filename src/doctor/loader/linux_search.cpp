// SPDX-License-Identifier: MIT
#include <doctor/loader/linux_search.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

namespace doctor::loader {

// What the LD_LIBRARY_PATH part of a search gave for one name, started with nothing found or
// tried before it: that part is then the same for every caller of the same ELF class and
// machine (the list, the name and the files do not change during one analysis).
struct LdLibraryPathSegment {
  std::vector<SearchStep> steps; // folded (SearchStep::count)
  std::optional<Candidate> chosen;
  std::vector<Candidate> shadowed;
  bool unknown = false;
  unsigned fatal_error = 0;
  std::string fatal_message;
  std::string undetermined;
  bool list_over = false;
  std::unordered_set<std::string> tried;     // paths tried
  std::unordered_set<std::string> seen_real; // real paths of the loadable candidates met
};

// Hashes a std::string key and looks it up by std::string_view without a copy.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// One entry of an object's RPATH or RUNPATH as the search uses it: the folder it names for that
// object, or why it is skipped.
struct ListEntry {
  enum class Use { folder, no_origin, relative };
  std::string entry; // as written
  Use use = Use::folder;
  std::string dir; // Use::folder: the expanded, normalised folder
  // Whether dir/glibc-hwcaps is a directory, as the memo's probe answered; nullopt: not asked
  mutable std::optional<bool> hwcaps;
  // The memo's names absent from dir (SearchMemo::absent), once looked up; nullptr: not yet
  mutable std::unordered_set<std::string, StringHash, std::equal_to<>>* absent = nullptr;
};

// An object's RPATH or RUNPATH, expanded for the object at `origin` with the tokens of a config.
struct ExpandedList {
  std::vector<std::string> entries;
  std::string lib_token;
  std::string platform_token;
  std::vector<ListEntry> expanded;
};

struct SearchMemo {
  const FileProbe* probe = nullptr; // the probe the segments and hwcaps answers came from
  // name, ELF class and machine -> segment (node-based: a search keeps a pointer to its entry)
  std::unordered_map<std::string, LdLibraryPathSegment> segments;
  // $ORIGIN of the object -> its lists, expanded (the lists are compared, never trusted by
  // address: a caller's BinaryInfo may be a temporary)
  std::unordered_map<std::string, std::vector<ExpandedList>, StringHash, std::equal_to<>> lists;
  // folder -> whether folder/glibc-hwcaps is a directory, as `probe` answered
  std::unordered_map<std::string, bool, StringHash, std::equal_to<>> hwcaps;
  // folder -> the names `probe` found absent there (nothing, or a directory): a quiet search
  // skips them unasked (a tree's searches ask the same folders of an inherited RPATH for the
  // same few names again and again). Node-based: a ListEntry keeps a pointer to its set.
  std::unordered_map<std::string,
                     std::unordered_set<std::string, StringHash, std::equal_to<>>,
                     StringHash,
                     std::equal_to<>>
      absent;
  // ld.so.cache: name asked for -> the indexes of its entries, in order, for the cache whose
  // entries are at `cache_data` (`cache_size` of them); emptied for any other
  const facts::LdCacheEntry* cache_data = nullptr;
  std::size_t cache_size = 0;
  std::unordered_map<std::string, std::vector<std::uint32_t>, StringHash, std::equal_to<>>
      cache_names;
  // config.cache_lookup: name asked for -> its entries, for the lookup at `cache_lookup`
  const LdCacheLookup* cache_lookup = nullptr;
  std::unordered_map<std::string, std::vector<facts::LdCacheEntry>, StringHash, std::equal_to<>>
      cache_found;
};

namespace {

// The glibc-hwcaps subdirectories ld.so (glibc 2.33+) tries inside every search directory before
// the directory itself, best first, on x86-64 (ld.so --help: "Subdirectories of glibc-hwcaps
// directories, in priority order").
constexpr const char* k_hwcaps_x86_64[] = {"x86-64-v4", "x86-64-v3", "x86-64-v2"};

// The cache's architecture tag (ld_so_cache.cpp's names) for an ELF machine as BinaryInfo names
// it: the same words, except RISC-V. "" (machine unknown): every entry is taken as fitting.
std::string cache_arch_for(std::string_view machine) {
  if (machine == "riscv") {
    return "riscv64";
  }
  return std::string(machine);
}

// The size of the ELF header of a process's class: glibc's open_verify fails with "file too
// short" below it (elf/dl-load.c, fbp->len < sizeof (ElfW(Ehdr))).
std::uint64_t elf_header_size(unsigned bits) {
  return bits == 32 ? 52U : 64U;
}

// The label of the source of a step or candidate ("RPATH of /x/libtorch_cuda.so", "default
// (glibc-hwcaps x86-64-v3: used only on CPUs that support it)"), kept as its parts and written
// out only for a step that is recorded or a candidate that is kept: the search of a tree of
// dependencies tries thousands of folders and keeps the label of one.
struct SourceLabel {
  explicit SourceLabel(std::string_view label_prefix, std::string_view label_object = {})
      : prefix(label_prefix)
      , object(label_object) {}

  std::string_view prefix;      // "RPATH of ", "LD_LIBRARY_PATH", "default", …
  std::string_view object;      // the object whose list it is, or ""
  const char* hwcaps = nullptr; // the glibc-hwcaps subdirectory, or nullptr

  std::string text() const {
    std::string out;
    out.reserve(prefix.size() + object.size());
    out += prefix;
    out += object;
    if (hwcaps != nullptr) {
      out += fmt::format(" (glibc-hwcaps {}: used only on CPUs that support it)", hwcaps);
    }
    return out;
  }
};

class LinuxSearch {
public:
  LinuxSearch(std::string_view name,
              const std::vector<LoaderObject>& chain,
              const LinuxLoaderConfig& config,
              FileProbe& probe,
              bool use_preload,
              bool first_only = false,
              bool quiet = false)
      : m_name(name)
      , m_chain(chain)
      , m_config(config)
      , m_probe(probe)
      , m_use_preload(use_preload)
      , m_first_only(first_only)
      , m_quiet(quiet) {
    m_result.name = std::string(name);
    m_result.requested_by = chain.empty() ? std::string() : chain.front().path;
  }

  Resolution run();

private:
  const facts::BinaryInfo* caller() const {
    return m_chain.empty() ? nullptr : m_chain.front().binary;
  }
  // The process's ELF class and machine: the caller's, else the configured ones (glibc compares
  // with its own, ELFW(CLASS) and elf_machine_matches_host, which the caller shares).
  unsigned process_bits() const {
    const facts::BinaryInfo* me = caller();
    return me != nullptr && me->bits != 0 ? me->bits : m_config.elf_bits;
  }
  std::string_view process_machine() const {
    const facts::BinaryInfo* me = caller();
    return me != nullptr && !me->machine.empty() ? std::string_view(me->machine)
                                                 : std::string_view(m_config.elf_machine);
  }

  // Answers from an LD_PRELOAD object of this name or SONAME, if any.
  void try_preloaded();
  // A candidate that is no ELF file: dlopen fails there (the first time), or a note after that.
  void fail_at(const std::string& path,
               FoundVia via,
               const SourceLabel& source,
               std::string why,
               unsigned error);
  // A candidate that is a FIFO, socket or device.
  void not_a_file(const std::string& path,
                  FoundVia via,
                  const SourceLabel& source,
                  const std::string& kind);

  // Tries `dir`/name (after the glibc-hwcaps subdirectories of `dir` that exist); `entry`, the
  // list entry `dir` comes from (or nullptr), keeps the answer about glibc-hwcaps.
  void try_dir(const std::string& dir,
               FoundVia via,
               const SourceLabel& source,
               const ListEntry* entry = nullptr);
  // Returns true if the probe knows nothing loadable is there (absent, or a directory).
  bool try_file(const std::string& path, FoundVia via, const SourceLabel& source);
  // Records a step that is no candidate (nothing in a quiet search, which builds no text).
  void skip(FoundVia via, const SourceLabel& source, const std::string& what, std::string_view why);
  void search_list(const std::vector<std::string>& entries,
                   const std::string& object_path,
                   FoundVia via,
                   const SourceLabel& source);

  std::string_view m_name; // the caller's, alive for the search (run() is synchronous)
  // The candidate path being built: one buffer for every folder a search tries.
  std::string m_candidate;
  const std::vector<LoaderObject>& m_chain;
  const LinuxLoaderConfig& m_config;
  FileProbe& m_probe;
  bool m_use_preload = true;
  // Stop at the winner (resolve_linux_first): nothing after it is tried.
  bool m_first_only = false;
  bool done() const { return m_first_only && m_result.chosen.has_value(); }
  // Record no steps: the search decides exactly as it would, only without its account. Only a
  // search that ends at the winner is quiet.
  bool m_quiet = false;
  // Adds a step, folding it into a run of steps that differ only in the folder
  // (SearchStep::count) once the run is k_step_run long.
  void push(SearchStep step);
  // Adds the step of a loadable candidate (never folded).
  void push_found(SearchStep step) {
    if (!m_quiet) {
      m_result.steps.push_back(std::move(step));
    }
  }
  // The LD_LIBRARY_PATH part of the search (step 2).
  void search_ld_library_path();
  // The ld.so.cache entries for the name, in the cache's order (the memo keeps an index, or the
  // entries a LdCacheLookup gave).
  // Calls `visit` with each of them until it returns false.
  template<typename Visit>
  void visit_cache_entries_named(Visit&& visit) const;
  // What config.cache_lookup gave a search without a memo.
  mutable std::vector<facts::LdCacheEntry> m_cache_looked_up;
  // `entries` of an object at `object_path`, expanded: from the memo, or into `scratch`.
  const std::vector<ListEntry>& expand_list(const std::vector<std::string>& entries,
                                            const std::string& object_path,
                                            std::vector<ListEntry>& scratch) const;
  // Whether `dir`/glibc-hwcaps is a directory (the memo, or `entry` from it, keeps the probe's
  // answer).
  bool has_hwcaps(const std::string& dir, const ListEntry* entry);
  // The memo's names absent from `dir` (from `entry` where it has them), for a quiet search
  // through the memo's probe; nullptr otherwise.
  std::unordered_set<std::string, StringHash, std::equal_to<>>*
  absent_names(const std::string& dir, const ListEntry* entry);
  // Whether `path` was tried before in this search / `real` was met as a loadable candidate
  // before; then records it.
  bool first_try(const std::string& path);
  bool first_sighting(const std::string& real);

  Resolution m_result;
  std::unordered_set<std::string> m_seen_real;
  std::unordered_set<std::string> m_tried;
  // The LD_LIBRARY_PATH segment this search took from the memo (its tried and seen paths count
  // as this search's own), or nullptr.
  const LdLibraryPathSegment* m_segment = nullptr;
  // ld.so gave up the list being searched (a socket): its remaining entries are not tried. Each
  // source (an object's RPATH, LD_LIBRARY_PATH, RUNPATH, the default directories) is one list.
  bool m_list_over = false;
};

namespace {

std::string_view file_name_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Whether `b` continues the run `a` is in: the same source and outcome, the same file name in
// another folder, neither one a loadable candidate.
bool continues_run(const SearchStep& a, const SearchStep& b) {
  return !a.found && !b.found && !a.path.empty() && !b.path.empty() && a.via == b.via
         && a.source == b.source && a.outcome == b.outcome
         && file_name_of(a.path) == file_name_of(b.path);
}

} // namespace

void LinuxSearch::push(SearchStep step) {
  if (m_quiet) {
    return;
  }
  std::vector<SearchStep>& steps = m_result.steps;
  if (!steps.empty() && steps.back().count > 1 && continues_run(steps.back(), step)) {
    ++steps.back().count;
    steps.back().last_path = std::move(step.path);
    return;
  }
  std::size_t run = 0; // unfolded steps before `step` that it continues
  while (run < k_step_run - 1 && run < steps.size() && steps[steps.size() - 1 - run].count == 1
         && continues_run(steps[steps.size() - 1 - run], step)) {
    ++run;
  }
  if (run < k_step_run - 1) {
    steps.push_back(std::move(step));
    return;
  }
  const std::size_t first = steps.size() - run;
  steps[first].count = static_cast<std::uint32_t>(run + 1);
  steps[first].last_path = std::move(step.path);
  steps.resize(first + 1);
}

// A quiet search keeps neither record: it is kept only if it chose a file, and the first
// loadable file met before any failure is chosen at its first try and ends the search, so a path
// met again cannot change what it chooses (resolve_linux_first runs a search that chose nothing
// again with its account).
bool LinuxSearch::first_try(const std::string& path) {
  if (m_quiet) {
    return true;
  }
  if (m_segment != nullptr && m_segment->tried.contains(path)) {
    return false;
  }
  return m_tried.insert(path).second;
}

bool LinuxSearch::first_sighting(const std::string& real) {
  if (m_quiet) {
    return true;
  }
  if (m_segment != nullptr && m_segment->seen_real.contains(real)) {
    return false;
  }
  return m_seen_real.insert(real).second;
}

void LinuxSearch::skip(FoundVia via,
                       const SourceLabel& source,
                       const std::string& what,
                       std::string_view why) {
  if (!m_quiet) {
    push(SearchStep{via, source.text(), what, std::string(why), false});
  }
}

// glibc's open_verify (elf/dl-load.c) reads the header of every candidate. Too short for an ELF
// header ("file too short") or without the ELF magic ("invalid ELF header") is fatal: it signals
// the error and dlopen fails, although a good copy may come later. The model records the failure
// once and lists what the search would have met afterwards, so the report can name the good copy.
void LinuxSearch::fail_at(const std::string& path,
                          FoundVia via,
                          const SourceLabel& source,
                          std::string why,
                          unsigned error) {
  if (m_result.chosen || m_result.fatal_error != 0 || !m_result.undetermined.empty()) {
    skip(via, source, path, fmt::format("{} (dlopen would fail here)", why));
    return;
  }
  m_result.fatal_error = error;
  m_result.fatal_message = fmt::format("{}: {}", path, why);
  skip(via, source, path, fmt::format("{}: dlopen fails here and searches no further", why));
}

// A candidate that exists but is no regular file, judged from its kind alone: the doctor never
// opens it (a FIFO would block, a device's open() may act). What ld.so does with each, read from
// elf/dl-load.c (glibc 2.36) and checked with dlopen() on such files:
// - a FIFO: open_verify opens it O_RDONLY without O_NONBLOCK, which waits for a writer, so the
//   load never returns;
// - a socket (or a device without a driver): open() fails with ENXIO; open_path gives up the
//   rest of the list it is in ("the file exists and is readable, but something went wrong") and
//   _dl_map_object goes on with the next source (RUNPATH, ld.so.cache, the default directories);
// - a device: open() succeeds and open_verify reads it as a file; what it reads is no ELF header
//   ("file too short" from /dev/null, "invalid ELF header" from /dev/zero), which is fatal.
void LinuxSearch::not_a_file(const std::string& path,
                             FoundVia via,
                             const SourceLabel& source,
                             const std::string& kind) {
  if (kind == "fifo") {
    fail_at(path,
            via,
            source,
            "a FIFO, not a library: ld.so opens it without O_NONBLOCK and waits for a writer, so "
            "the load hangs here",
            k_error_blocks);
    return;
  }
  if (kind == "character_device" || kind == "block_device") {
    fail_at(path,
            via,
            source,
            fmt::format("a {} device, not a library: ld.so reads it as a file and finds no ELF "
                        "header (\"file too short\" or \"invalid ELF header\")",
                        kind == "character_device" ? "character" : "block"),
            k_error_not_elf);
    return;
  }
  m_list_over = true;
  skip(via,
       source,
       path,
       fmt::format("{}, not a library: open() fails (ENXIO), and ld.so gives up the rest of this "
                   "list",
                   kind == "socket" ? "a socket" : "not a regular file"));
}

// A candidate loads if it is a regular file whose ELF class and machine match the process's;
// otherwise ld.so moves on silently ("wrong ELF class": open_verify sets found_other_class and
// goes on; elf_machine_matches_host likewise), which is exactly why a 32-bit copy early on the
// path never explains itself at run time.
bool LinuxSearch::try_file(const std::string& path, FoundVia via, const SourceLabel& source) {
  if (!first_try(path)) {
    skip(via, source, path, "already tried");
    return false;
  }
  if (m_list_over) {
    skip(via, source, path, "not tried: ld.so gave up this list at the socket before");
    return false;
  }
  const PathState st = m_probe.probe(path);
  if (!st.known) {
    m_result.unknown = true;
    skip(via, source, path, "not recorded in the snapshot");
    return false;
  }
  if (!st.exists || st.is_dir) {
    skip(via, source, path, st.is_dir ? "a directory" : "absent");
    return true;
  }
  if (!st.kind.empty() && st.kind != "regular") {
    not_a_file(path, via, source, st.kind);
    return false;
  }
  const unsigned bits = process_bits();
  const std::string_view machine = process_machine();
  if (st.binary != nullptr) {
    const facts::BinaryInfo& b = *st.binary;
    if (b.read_error == "resource") {
      // The doctor ran out of memory or descriptors: this file says nothing, and any answer
      // after it would be a guess (ld.so itself may well load this very file).
      m_result.unknown = true;
      if (m_result.undetermined.empty() && !m_result.chosen && m_result.fatal_error == 0) {
        m_result.undetermined = b.read_error_message;
      }
      skip(via, source, path, "could not be examined: " + b.read_error_message);
      return false;
    }
    if (!b.read_error.empty()) {
      // open() fails (EACCES): open_path tries the next directory.
      skip(via, source, path, "cannot be read: " + b.read_error_message);
      return false;
    }
    if (!b.problems.empty() && b.problems.front().starts_with("cannot be read")) {
      skip(via, source, path, b.problems.front()); // a snapshot from before read_error
      return false;
    }
    // The length is tested before the magic. An ELF file of size 0 is one whose size was not
    // recorded (an empty file has no ELF magic): not judged.
    const bool elf = b.format == "elf";
    if (b.size < elf_header_size(bits) && (!elf || b.size != 0)) {
      fail_at(path, via, source, "file too short", k_error_not_elf);
      return false;
    }
    if (!elf) {
      fail_at(path, via, source, "invalid ELF header", k_error_not_elf);
      return false;
    }
    if (bits != 0 && b.bits != 0 && bits != b.bits) {
      skip(via, source, path, fmt::format("wrong ELF class: {}-bit", b.bits));
      return false;
    }
    if (!machine.empty() && !b.machine.empty() && machine != b.machine) {
      skip(via, source, path, fmt::format("wrong machine: {}", b.machine));
      return false;
    }
  }
  Candidate c{path, st.real_path.empty() ? path : st.real_path, via, source.text(), st.binary};
  if (!m_result.chosen && m_result.fatal_error == 0 && m_result.undetermined.empty()) {
    push_found(SearchStep{via, source.text(), path, "found", true});
    first_sighting(c.real_path);
    m_result.chosen = std::move(c);
    return false;
  }
  if (first_sighting(c.real_path)) {
    push_found(SearchStep{via,
                          source.text(),
                          path,
                          m_result.chosen ? "also here, but later in the order"
                          : !m_result.undetermined.empty()
                              ? "loadable, but an earlier candidate could "
                                "not be examined"
                              : "loadable, but the search failed before",
                          true});
    m_result.shadowed.push_back(std::move(c));
  } else {
    push_found(SearchStep{via, source.text(), path, "the same file again", true});
  }
  return false;
}

// glibc's rtld (elf/rtld.c, handle_preload_list -> do_preload) maps every LD_PRELOAD object
// before the program's own dependencies, searching a bare name as the main program would (the
// model: a program without RPATH or RUNPATH); one that fails to load is ignored with a warning.
// _dl_map_object (elf/dl-load.c) then answers any request whose name matches a loaded object's
// name (_dl_name_match_p) or its DT_SONAME before it searches anything.
void LinuxSearch::try_preloaded() {
  for (std::string_view entry : split_preload_list(m_config.ld_preload)) {
    const Resolution pre = LinuxSearch(entry, {}, m_config, m_probe, false).run();
    if (!pre.chosen) {
      continue;
    }
    const bool by_soname = pre.chosen->binary != nullptr && pre.chosen->binary->soname == m_name;
    if (!by_soname && entry != m_name && pre.chosen->path != m_name) {
      continue;
    }
    Candidate c = *pre.chosen;
    c.via = FoundVia::ld_preload;
    c.source = "LD_PRELOAD";
    push_found(SearchStep{FoundVia::ld_preload,
                          "LD_PRELOAD",
                          c.path,
                          by_soname ? "found: preloaded, and its SONAME is the name asked for"
                                    : "found: preloaded under this name",
                          true});
    first_sighting(c.real_path);
    m_result.chosen = std::move(c);
    return;
  }
}

void LinuxSearch::try_dir(const std::string& dir,
                          FoundVia via,
                          const SourceLabel& source,
                          const ListEntry* entry) {
  if (has_hwcaps(dir, entry)) {
    const std::string hwcaps = util::join_path(dir, "glibc-hwcaps");
    for (const char* sub : k_hwcaps_x86_64) {
      if (done()) {
        return;
      }
      SourceLabel in_sub = source;
      in_sub.hwcaps = sub;
      try_file(util::join_path(util::join_path(hwcaps, sub), m_name), via, in_sub);
    }
  }
  if (done()) {
    return;
  }
  // A quiet search keeps no step, so a file it has found absent here before changes nothing now.
  auto* absent = absent_names(dir, entry);
  if (absent != nullptr && absent->contains(std::string_view(m_name))) {
    return;
  }
  // try_file() copies what it keeps: the path is built in the search's one buffer.
  util::join_path_into(m_candidate, dir, m_name);
  if (try_file(m_candidate, via, source) && absent != nullptr) {
    absent->insert(std::string(m_name));
  }
}

std::unordered_set<std::string, StringHash, std::equal_to<>>*
LinuxSearch::absent_names(const std::string& dir, const ListEntry* entry) {
  SearchMemo* memo = m_config.memo.get();
  if (!m_quiet || memo == nullptr || (memo->probe != nullptr && memo->probe != &m_probe)) {
    return nullptr;
  }
  memo->probe = &m_probe;
  if (entry != nullptr && entry->absent != nullptr) {
    return entry->absent;
  }
  auto it = memo->absent.find(std::string_view(dir));
  if (it == memo->absent.end()) {
    it = memo->absent.emplace(dir, std::unordered_set<std::string, StringHash, std::equal_to<>>{})
             .first;
  }
  if (entry != nullptr) {
    entry->absent = &it->second;
  }
  return &it->second;
}

// A tree of dependencies asks for a few dozen names, each many times, of a cache of thousands:
// the entries of each name are found once, when it is first asked for.
template<typename Visit>
void LinuxSearch::visit_cache_entries_named(Visit&& visit) const {
  SearchMemo* memo = m_config.memo.get();
  if (m_config.cache_lookup) {
    const std::vector<facts::LdCacheEntry>* found = &m_cache_looked_up;
    if (memo != nullptr) {
      if (memo->cache_lookup != m_config.cache_lookup.get()) {
        memo->cache_found.clear();
        memo->cache_lookup = m_config.cache_lookup.get();
      }
      auto it = memo->cache_found.find(m_name);
      if (it == memo->cache_found.end()) {
        it = memo->cache_found
                 .emplace(std::string(m_name), m_config.cache_lookup->entries_named(m_name))
                 .first;
      }
      found = &it->second;
    } else {
      m_cache_looked_up = m_config.cache_lookup->entries_named(m_name);
    }
    for (const facts::LdCacheEntry& e : *found) {
      if (!visit(e)) {
        return;
      }
    }
    return;
  }
  const std::vector<facts::LdCacheEntry>& cache = *m_config.cache;
  const std::vector<std::uint32_t>* known = nullptr;
  if (memo != nullptr) {
    if (memo->cache_data != cache.data() || memo->cache_size != cache.size()) {
      memo->cache_names.clear();
      memo->cache_data = cache.data();
      memo->cache_size = cache.size();
    }
    if (const auto it = memo->cache_names.find(m_name); it != memo->cache_names.end()) {
      known = &it->second;
    }
  }
  std::vector<std::uint32_t> scanned;
  if (known == nullptr) {
    for (std::size_t i = 0; i < cache.size(); ++i) {
      if (cache[i].name == m_name) {
        scanned.push_back(static_cast<std::uint32_t>(i));
      }
    }
    known = memo == nullptr
                ? &scanned
                : &memo->cache_names.emplace(std::string(m_name), std::move(scanned)).first->second;
  }
  for (const std::uint32_t i : *known) {
    if (!visit(cache[i])) {
      return;
    }
  }
}

bool LinuxSearch::has_hwcaps(const std::string& dir, const ListEntry* entry) {
  SearchMemo* memo = m_config.memo.get();
  const bool memo_fits = memo != nullptr && (memo->probe == nullptr || memo->probe == &m_probe);
  if (memo_fits && entry != nullptr && entry->hwcaps) {
    return *entry->hwcaps;
  }
  std::optional<bool> is_dir;
  if (memo_fits) {
    if (const auto it = memo->hwcaps.find(std::string_view(dir)); it != memo->hwcaps.end()) {
      is_dir = it->second;
    }
  }
  if (!is_dir) {
    is_dir = m_probe.probe(util::join_path(dir, "glibc-hwcaps")).is_dir;
    if (memo_fits) {
      memo->probe = &m_probe;
      memo->hwcaps.emplace(dir, *is_dir);
    }
  }
  if (memo_fits && entry != nullptr) {
    entry->hwcaps = is_dir;
  }
  return *is_dir;
}

// An entry's folder depends only on the entry, the object's path and the config's tokens, so a
// list is expanded once per object and kept (the lists are compared on every use, as a caller's
// BinaryInfo may be a temporary at a reused address).
const std::vector<ListEntry>& LinuxSearch::expand_list(const std::vector<std::string>& entries,
                                                       const std::string& object_path,
                                                       std::vector<ListEntry>& scratch) const {
  SearchMemo* memo = m_config.memo.get();
  std::vector<ExpandedList>* known = nullptr;
  if (memo != nullptr) {
    auto it = memo->lists.find(std::string_view(object_path));
    if (it == memo->lists.end()) {
      it = memo->lists.emplace(object_path, std::vector<ExpandedList>{}).first;
    }
    known = &it->second;
    for (const ExpandedList& l : *known) {
      if (l.entries == entries && l.lib_token == m_config.lib_token
          && l.platform_token == m_config.platform_token) {
        return l.expanded;
      }
    }
  }
  scratch.clear();
  scratch.reserve(entries.size());
  for (const std::string& entry : entries) {
    ListEntry e;
    e.entry = entry;
    auto dir = expand_tokens(entry, object_path, m_config);
    if (!dir) {
      e.use = ListEntry::Use::no_origin;
    } else if (dir->empty() || dir->front() != '/') {
      e.use = ListEntry::Use::relative;
    } else {
      e.dir = util::normalize_path(*dir);
    }
    scratch.push_back(std::move(e));
  }
  if (known == nullptr) {
    return scratch;
  }
  known->push_back(
      ExpandedList{entries, m_config.lib_token, m_config.platform_token, std::move(scratch)});
  return known->back().expanded;
}

void LinuxSearch::search_list(const std::vector<std::string>& entries,
                              const std::string& object_path,
                              FoundVia via,
                              const SourceLabel& source) {
  std::vector<ListEntry> scratch;
  for (const ListEntry& e : expand_list(entries, object_path, scratch)) {
    if (done()) {
      return;
    }
    switch (e.use) {
    case ListEntry::Use::no_origin:
      skip(via, source, e.entry, "skipped: $ORIGIN has no value here (ld.so drops such entries)");
      break;
    case ListEntry::Use::relative:
      skip(via,
           source,
           e.entry,
           "skipped: relative to the process's current directory, which differs per run");
      break;
    case ListEntry::Use::folder:
      try_dir(e.dir, via, source, &e);
      break;
    }
  }
}

void LinuxSearch::search_ld_library_path() {
  const auto search = [&] {
    for (std::string_view entry : split_library_path(m_config.ld_library_path)) {
      if (done()) {
        return;
      }
      if (entry.empty()) {
        skip(FoundVia::ld_library_path,
             SourceLabel{"LD_LIBRARY_PATH"},
             ".",
             "an empty entry means the current directory, which differs per run");
        continue;
      }
      search_list(
          {std::string(entry)}, "", FoundVia::ld_library_path, SourceLabel{"LD_LIBRARY_PATH"});
    }
  };
  SearchMemo* memo = m_config.memo.get();
  const bool pristine = !m_result.chosen && m_result.fatal_error == 0
                        && m_result.undetermined.empty() && m_tried.empty() && m_seen_real.empty()
                        && m_segment == nullptr;
  if (memo == nullptr || !pristine || m_quiet
      || (memo->probe != nullptr && memo->probe != &m_probe)) {
    search();
    return;
  }
  memo->probe = &m_probe;
  const std::string key =
      fmt::format("{}\n{}\n{}\n{}", m_name, process_bits(), process_machine(), m_first_only);
  auto [it, fresh] = memo->segments.try_emplace(key);
  LdLibraryPathSegment& seg = it->second;
  if (fresh) {
    // A fold may reach back into the steps before this part: start it apart from them.
    std::vector<SearchStep> before = std::move(m_result.steps);
    m_result.steps.clear();
    search();
    seg.steps = std::move(m_result.steps);
    m_result.steps = std::move(before);
    seg.chosen = m_result.chosen;
    seg.shadowed = m_result.shadowed;
    seg.unknown = m_result.unknown;
    seg.fatal_error = m_result.fatal_error;
    seg.fatal_message = m_result.fatal_message;
    seg.undetermined = m_result.undetermined;
    seg.list_over = m_list_over;
    seg.tried = std::move(m_tried);
    seg.seen_real = std::move(m_seen_real);
    m_tried.clear();
    m_seen_real.clear();
  } else {
    m_result.chosen = seg.chosen;
    m_result.shadowed = seg.shadowed;
    m_result.unknown = m_result.unknown || seg.unknown;
    m_result.fatal_error = seg.fatal_error;
    m_result.fatal_message = seg.fatal_message;
    m_result.undetermined = seg.undetermined;
    m_list_over = seg.list_over;
  }
  m_result.steps.insert(m_result.steps.end(), seg.steps.begin(), seg.steps.end());
  m_segment = &seg;
}

Resolution LinuxSearch::run() {
  if (m_use_preload && !m_config.ld_preload.empty()) {
    try_preloaded();
  }
  if (m_name.find('/') != std::string_view::npos) {
    try_file(util::normalize_path(m_name), FoundVia::direct, SourceLabel{"path given"});
    return std::move(m_result);
  }
  const facts::BinaryInfo* me = caller();
  const bool caller_has_runpath = me != nullptr && !me->runpath.empty();

  // 1. DT_RPATH of the caller, then of each object that loaded it, up to the executable - but
  //    only if the caller has no DT_RUNPATH, and never from an object that has one.
  if (caller_has_runpath) {
    skip(FoundVia::rpath,
         SourceLabel{"RPATH"},
         "",
         "skipped: the caller has a RUNPATH, so no RPATH is used");
  } else {
    for (const LoaderObject& obj : m_chain) {
      if (done()) {
        break;
      }
      if (obj.binary == nullptr || obj.binary->rpath.empty()) {
        continue;
      }
      if (!obj.binary->runpath.empty()) {
        skip(FoundVia::rpath,
             SourceLabel{"RPATH of ", obj.path},
             "",
             "skipped: that object has a RUNPATH");
        continue;
      }
      m_list_over = false;
      search_list(
          obj.binary->rpath, obj.origin(), FoundVia::rpath, SourceLabel{"RPATH of ", obj.path});
    }
  }

  // 2. LD_LIBRARY_PATH: ':' or ';' separated; an empty entry is the current directory.
  if (done()) {
    return std::move(m_result);
  }
  m_list_over = false;
  if (m_config.ld_library_path_set) {
    search_ld_library_path();
  } else {
    skip(FoundVia::ld_library_path, SourceLabel{"LD_LIBRARY_PATH"}, "", "not set");
  }

  // 3. DT_RUNPATH of the caller only: it is not inherited by what the caller loads.
  if (done()) {
    return std::move(m_result);
  }
  m_list_over = false;
  if (caller_has_runpath) {
    search_list(me->runpath,
                m_chain.front().origin(),
                FoundVia::runpath,
                SourceLabel{"RUNPATH of ", m_chain.front().path});
  }

  // 4. /etc/ld.so.cache: the first entry of the right architecture (_dl_load_cache_lookup
  //    returns one). A caller with DF_1_NODEFLIB drops that entry if its path starts with one
  //    of the system directories (_dl_map_object: memcmp with each of system_dirs, which end in
  //    '/'), so also entries in their subdirectories, and then uses no other cache entry.
  const bool nodeflib = me != nullptr && me->nodeflib;
  if (done()) {
    return std::move(m_result);
  }
  m_list_over = false;
  if (!m_config.cache && !m_config.cache_lookup) {
    skip(FoundVia::ld_so_cache,
         SourceLabel{"ld.so.cache"},
         "/etc/ld.so.cache",
         "absent or unreadable");
  } else {
    const std::string arch = cache_arch_for(process_machine());
    bool any = false;
    visit_cache_entries_named([&](const facts::LdCacheEntry& e) {
      any = true;
      if (!arch.empty() && e.arch != arch) {
        skip(FoundVia::ld_so_cache,
             SourceLabel{"ld.so.cache"},
             e.path,
             fmt::format("skipped: built for {}", e.arch));
        return true; // the next entry
      }
      // Under one of the system directories: its path then starts with the directory and '/'.
      const bool in_system_dir = std::any_of(
          m_config.default_dirs.begin(), m_config.default_dirs.end(), [&](const std::string& dir) {
            return e.path.starts_with(dir)
                   && (dir.ends_with('/')
                       || (e.path.size() > dir.size() && e.path[dir.size()] == '/'));
          });
      if (nodeflib && in_system_dir) {
        skip(FoundVia::ld_so_cache,
             SourceLabel{"ld.so.cache"},
             e.path,
             "skipped: the caller has DF_1_NODEFLIB and this is under a default directory");
      } else if (util::is_normal_path(e.path)) {
        try_file(e.path, FoundVia::ld_so_cache, SourceLabel{"ld.so.cache"});
      } else {
        try_file(util::normalize_path(e.path), FoundVia::ld_so_cache, SourceLabel{"ld.so.cache"});
      }
      return false; // ld.so takes one cache entry
    });
    if (!any) {
      skip(FoundVia::ld_so_cache,
           SourceLabel{"ld.so.cache"},
           "/etc/ld.so.cache",
           "no entry for this name");
    }
  }

  // 5. The default directories, unless the caller has DF_1_NODEFLIB.
  if (done()) {
    return std::move(m_result);
  }
  if (nodeflib) {
    skip(FoundVia::default_dirs,
         SourceLabel{"default"},
         "",
         "skipped: the caller has DF_1_NODEFLIB");
  } else {
    m_list_over = false;
    for (const std::string& dir : m_config.default_dirs) {
      if (done()) {
        break;
      }
      try_dir(dir, FoundVia::default_dirs, SourceLabel{"default"});
    }
  }
  return std::move(m_result);
}

// uname -m's names and the ELF class and machine (BinaryInfo's names) of that machine's native
// processes. A machine not listed gets no class or machine check.
struct NativeElf {
  std::string_view uname_machine;
  unsigned bits;
  const char* machine;
};
constexpr NativeElf k_native_elf[] = {
    {"x86_64", 64, "x86-64"},
    {"aarch64", 64, "aarch64"},
    {"arm64", 64, "aarch64"},
    {"ppc64le", 64, "ppc64"},
    {"ppc64", 64, "ppc64"},
    {"s390x", 64, "s390"},
    {"riscv64", 64, "riscv"},
    {"i386", 32, "i386"},
    {"i486", 32, "i386"},
    {"i586", 32, "i386"},
    {"i686", 32, "i386"},
};

} // namespace

LinuxLoaderConfig linux_config_from(facts::Facts&& facts) {
  std::optional<std::vector<facts::LdCacheEntry>> cache;
  if (facts.linker.cache) {
    cache = std::move(facts.linker.cache.value());
  }
  return linux_config_from(facts, std::move(cache));
}

LinuxLoaderConfig linux_config_from(const facts::Facts& facts) {
  return linux_config_from(facts,
                           facts.linker.cache ? std::optional(*facts.linker.cache) : std::nullopt);
}

LinuxLoaderConfig linux_config_from(const facts::Facts& facts,
                                    std::optional<std::vector<facts::LdCacheEntry>> cache) {
  LinuxLoaderConfig c;
  // An empty LD_LIBRARY_PATH is no list at all: glibc's _dl_init_paths (elf/dl-load.c) takes
  // one only if `llp != NULL && *llp != '\0'` (checked with dlopen: LD_LIBRARY_PATH= does not
  // search the current directory, LD_LIBRARY_PATH=: does).
  if (const auto it = facts.environment.find("LD_LIBRARY_PATH");
      it != facts.environment.end() && !it->second.empty()) {
    c.ld_library_path = it->second;
    c.ld_library_path_set = true;
  }
  if (const auto it = facts.environment.find("LD_PRELOAD"); it != facts.environment.end()) {
    c.ld_preload = it->second;
  }
  c.cache = std::move(cache);
  c.default_dirs = facts.linker.default_dirs;
  // $LIB is the distribution's library directory name: the multiarch one on Debian-style
  // systems, lib64 elsewhere (glibc's DL_DST_LIB as distributions configure it).
  const std::string arch = facts.os.architecture.value_or("x86_64");
  const std::string triplet = arch == "aarch64"   ? "aarch64-linux-gnu"
                              : arch == "ppc64le" ? "powerpc64le-linux-gnu"
                                                  : "x86_64-linux-gnu";
  const bool multiarch = std::find(c.default_dirs.begin(), c.default_dirs.end(), "/lib/" + triplet)
                         != c.default_dirs.end();
  c.lib_token = multiarch ? "lib/" + triplet : "lib64";
  c.platform_token = arch;
  // The process's ELF class and machine, for callers whose own are unknown: ld.so runs in the
  // machine's native class (e_machine as elf/elf.h numbers it: EM_X86_64, EM_AARCH64, …).
  const auto native = std::find_if(std::begin(k_native_elf),
                                   std::end(k_native_elf),
                                   [&](const NativeElf& n) { return n.uname_machine == arch; });
  c.elf_bits = native != std::end(k_native_elf) ? native->bits : 0;
  c.elf_machine = native != std::end(k_native_elf) ? native->machine : "";
  c.memo = make_search_memo();
  return c;
}

namespace {

// glibc's is_dst (elf/dl-load.c): the length of token `ref` at `input` (just after a '$'), as
// "REF" or "{REF}", counting the braces; 0 if it is not there, not closed, or followed by a
// character that continues an identifier ("$ORIGINx", "$LIBX").
std::size_t dst_length(std::string_view input, std::string_view ref) {
  const bool curly = input.starts_with('{');
  if (curly) {
    input.remove_prefix(1);
  }
  if (!input.starts_with(ref)) {
    return 0;
  }
  const char next = input.size() > ref.size() ? input[ref.size()] : '\0';
  if (curly && next != '}') {
    return 0;
  }
  const bool identifier = (next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z')
                          || (next >= '0' && next <= '9') || next == '_';
  if (identifier) {
    return 0;
  }
  return curly ? ref.size() + 2 : ref.size();
}

} // namespace

// glibc's _dl_dst_substitute (elf/dl-load.c): a known token is replaced; a known token without
// a value discards the whole entry; any other '$' is copied as it is and the text after it too.
std::optional<std::string> expand_tokens(std::string_view entry,
                                         std::string_view object_path,
                                         const LinuxLoaderConfig& config) {
  std::string out;
  std::size_t i = 0;
  while (i < entry.size()) {
    if (entry[i] != '$') {
      out += entry[i++];
      continue;
    }
    const std::string_view rest = entry.substr(i + 1);
    const std::size_t origin_len = dst_length(rest, "ORIGIN");
    const std::size_t platform_len = origin_len != 0 ? 0 : dst_length(rest, "PLATFORM");
    const std::size_t lib_len = origin_len != 0 || platform_len != 0 ? 0 : dst_length(rest, "LIB");
    if (origin_len != 0) {
      if (object_path.empty()) {
        return std::nullopt;
      }
      out += util::parent_path(object_path);
    } else if (platform_len != 0) {
      out += config.platform_token;
    } else if (lib_len != 0) {
      out += config.lib_token;
    } else {
      out += '$';
    }
    i += 1 + origin_len + platform_len + lib_len;
  }
  return out;
}

std::vector<std::string_view> split_library_path(std::string_view value) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = value.find_first_of(":;", start);
    out.push_back(value.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) {
      return out;
    }
    start = end + 1;
  }
}

std::vector<std::string_view> split_preload_list(std::string_view value) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < value.size()) {
    const std::size_t end = std::min(value.find_first_of(" :", start), value.size());
    if (end > start) {
      out.push_back(value.substr(start, end - start));
    }
    start = end + 1;
  }
  return out;
}

std::shared_ptr<SearchMemo> make_search_memo() {
  return std::make_shared<SearchMemo>();
}

Resolution resolve_linux(std::string_view name,
                         const std::vector<LoaderObject>& chain,
                         const LinuxLoaderConfig& config,
                         FileProbe& probe) {
  return LinuxSearch(name, chain, config, probe, true).run();
}

Resolution resolve_linux_first(std::string_view name,
                               const std::vector<LoaderObject>& chain,
                               const LinuxLoaderConfig& config,
                               FileProbe& probe) {
  Resolution r = LinuxSearch(name, chain, config, probe, true, true, true).run();
  if (r.chosen) {
    return r;
  }
  // Not found, or failed: the same search again with its account of every path it considered.
  return LinuxSearch(name, chain, config, probe, true, true).run();
}

} // namespace doctor::loader
