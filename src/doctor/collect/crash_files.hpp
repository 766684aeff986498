// SPDX-License-Identifier: MIT
// Private to crash evidence collection: one file's bytes, typed by content and parsed into
// observations.
#pragma once

#include <doctor/collect/crash_evidence.hpp>
#include <doctor/collect/linux/journal.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace doctor::collect {

// The most of a file that is read: a dump's header and triage data, an event log, a kernel log;
// also the most of a gzip-compressed log's text that is inflated (a gzip bomb stops there).
inline constexpr std::size_t k_max_dump_bytes = std::size_t{256} << 20U;
inline constexpr std::size_t k_max_log_bytes = std::size_t{256} << 20U;
// The newest kernel messages kept from a journal.
inline constexpr std::size_t k_max_journal_lines = 500000;

// Appends a SourceStatus to `out`.
void add_source(crash::Collected& out,
                std::string source,
                std::string status,
                std::string detail,
                std::size_t events = 0);

// What a file holds, from its first bytes.
enum class FileType { kernel_dump, minidump, evtx, journal, gzip, text, binary };

// Types `head` (the first bytes of a file; 16 are enough for every binary format).
FileType sniff(std::string_view head);

// Parses `bytes` (the contents of `source`) by their type and appends the observations and one
// SourceStatus to `out`. `boot` labels kernel-log observations without their own boot id
// ("pstore", "kdump", a boot id). `truncated` says the file was longer than what was read.
void ingest(std::string_view bytes,
            const std::string& source,
            const std::string& boot,
            bool truncated,
            const kb::KnowledgeBase& kb,
            crash::Collected& out);

// Reads the host file `path` (at most the size its type needs) and ingests it: a file the user
// named (--from). A file that cannot be read becomes a source with status "unreadable".
void ingest_file(const std::string& path,
                 const std::string& boot,
                 const kb::KnowledgeBase& kb,
                 crash::Collected& out);

// Reads the file `inner` of the examined system `root` and ingests it under its inner name. Every
// link on the way is followed inside the root (SysRoot::read_file, SysRoot::resolve) before a
// host path is formed: an absolute link in an image's /var/log names a file of the image, never
// one of the host. A file that cannot be read becomes a source with status "unreadable".
void ingest_inner(const platform::SysRoot& root,
                  const std::string& inner,
                  const std::string& boot,
                  const kb::KnowledgeBase& kb,
                  crash::Collected& out);

// Appends the kernel messages of a journal read as observations, with one SourceStatus named
// `source` ("journal, N kernel message(s), M boot(s)").
void add_journal(const JournalRead& journal, const std::string& source, crash::Collected& out);

} // namespace doctor::collect
