// SPDX-License-Identifier: MIT
#include <doctor/collect/crash_files.hpp>
#include <doctor/crash/dump_observations.hpp>
#include <doctor/crash/kernel_events.hpp>
#include <doctor/crash/windows_events.hpp>
#include <doctor/formats/event_xml.hpp>
#include <doctor/formats/evtx.hpp>
#include <doctor/formats/gzip.hpp>
#include <doctor/formats/kernel_dump.hpp>
#include <doctor/formats/kernel_log.hpp>
#include <doctor/formats/minidump.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/platform/file.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/util/text_decode.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace doctor::collect {

namespace {

constexpr std::string_view k_journal_magic = "LPKSHHRH";

bool valid_utf8_plain(std::string_view s) {
  // Fast path for the usual kernel log: ASCII or valid UTF-8, no BOM, no NUL.
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) {
      return false;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t need = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
    } else {
      return false;
    }
    if (i + need >= s.size()) {
      return false;
    }
    for (std::size_t k = 1; k <= need; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0U) != 0x80U) {
        return false;
      }
    }
    i += need + 1;
  }
  return true;
}

// UTF-8 text of a file in any encoding the input layer knows (UTF-16 exports, GBK, BOMs): `bytes`
// itself when it already is plain UTF-8, else the decoded copy kept in `decoded`.
std::string_view as_utf8(std::string_view bytes, std::string& decoded, std::string& encoding) {
  const bool bom =
      bytes.size() >= 2
      && ((bytes[0] == '\xFF' && bytes[1] == '\xFE') || (bytes[0] == '\xFE' && bytes[1] == '\xFF')
          || (bytes.size() >= 3 && bytes.substr(0, 3) == "\xEF\xBB\xBF"));
  if (!bom && valid_utf8_plain(bytes)) {
    encoding = "utf-8";
    return bytes;
  }
  util::DecodedText lines = util::decode_all(bytes);
  encoding = std::string(util::encoding_name(lines.info.encoding));
  decoded.clear();
  decoded.reserve(bytes.size());
  std::size_t last_number = 0;
  for (const util::TextLine& line : lines.lines) {
    // Expanded syslog pieces share their physical line: keep them on one line with #012, the
    // way the kernel-log reader expects them.
    if (line.part > 0 && line.number == last_number) {
      decoded += "#012";
    } else if (!decoded.empty() || last_number != 0) {
      decoded += '\n';
    }
    decoded += line.text;
    last_number = line.number;
  }
  return decoded;
}

bool looks_binary(std::string_view head) {
  const std::size_t n = std::min<std::size_t>(head.size(), 4096);
  std::size_t odd = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(head[i]);
    if (c < 0x09 || (c > 0x0D && c < 0x20 && c != 0x1B)) {
      ++odd;
    }
  }
  return n > 0 && odd * 10 > n;
}

bool looks_like_event_xml(std::string_view text) {
  const std::string_view head = text.substr(0, std::min<std::size_t>(text.size(), 65536));
  return head.find("<Event") != std::string_view::npos
         && (head.find("schemas.microsoft.com/win/2004/08/events/event") != std::string_view::npos
             || head.find("<EventID") != std::string_view::npos);
}

// Streams the lines through the event scanner: a large log is never held as lines.
void ingest_kernel_text(std::string_view text,
                        const std::string& source,
                        const std::string& boot,
                        const std::string& note,
                        crash::Collected& out) {
  crash::KernelEventScanner scanner;
  std::size_t lines = 0;
  formats::read_kernel_log(text, source, [&](formats::KernelLine&& line) {
    if (line.when.boot.empty()) {
      line.when.boot = boot;
    }
    scanner.add(line);
    ++lines;
  });
  std::vector<crash::Observation> obs = scanner.take();
  const std::size_t n = obs.size();
  for (crash::Observation& o : obs) {
    out.observations.push_back(std::move(o));
  }
  add_source(out, source, "read", fmt::format("kernel log, {} message(s){}", lines, note), n);
}

} // namespace

namespace {

// Reads a file through `read` (at most the bytes asked for) and ingests it as `source`; a journal
// file is read through `journal` instead, which libsystemd reads itself.
template<typename Read, typename Journal>
void ingest_read(const std::string& source,
                 const std::string& boot,
                 const kb::KnowledgeBase& kb,
                 crash::Collected& out,
                 Read read,
                 Journal journal) {
  auto head = read(16);
  if (!head) {
    add_source(out, source, "unreadable", head.error().message, 0);
    return;
  }
  const FileType type = sniff(*head);
  if (type == FileType::journal) {
    auto lines = journal();
    if (!lines) {
      add_source(out, source, "invalid", "journal: " + lines.error().message, 0);
      return;
    }
    add_journal(*lines, source, out);
    out.earlier_boots_covered = true;
    return;
  }
  const std::size_t cap = type == FileType::kernel_dump || type == FileType::minidump
                              ? k_max_dump_bytes
                              : k_max_log_bytes;
  auto bytes = read(cap + 1);
  if (!bytes) {
    add_source(out, source, "unreadable", bytes.error().message, 0);
    return;
  }
  const bool truncated = bytes->size() > cap;
  if (truncated) {
    bytes->resize(cap);
  }
  ingest(*bytes, source, boot, truncated, kb, out);
}

} // namespace

void add_source(crash::Collected& out,
                std::string source,
                std::string status,
                std::string detail,
                std::size_t events) {
  out.sources.push_back(
      crash::SourceStatus{std::move(source), std::move(status), std::move(detail), events});
}

FileType sniff(std::string_view head) {
  if (head.size() >= 8 && (head.substr(0, 8) == "PAGEDU64" || head.substr(0, 8) == "PAGEDUMP")) {
    return FileType::kernel_dump;
  }
  if (head.size() >= 4 && head.substr(0, 4) == "MDMP") {
    return FileType::minidump;
  }
  if (head.size() >= 8 && head.substr(0, 8) == std::string_view("ElfFile\0", 8)) {
    return FileType::evtx;
  }
  if (head.size() >= 8 && head.substr(0, 8) == k_journal_magic) {
    return FileType::journal;
  }
  if (head.size() >= 2 && head[0] == '\x1F' && head[1] == '\x8B') {
    return FileType::gzip;
  }
  const bool utf16 =
      head.size() >= 2
      && ((head[0] == '\xFF' && head[1] == '\xFE') || (head[0] == '\xFE' && head[1] == '\xFF'));
  if (!utf16 && looks_binary(head)) {
    // UTF-16 text without a BOM has NULs at every other byte: let the decoder judge it.
    std::size_t nul_odd = 0;
    const std::size_t n = std::min<std::size_t>(head.size(), 4096);
    for (std::size_t i = 1; i < n; i += 2) {
      nul_odd += head[i] == '\0' ? 1 : 0;
    }
    if (n < 8 || nul_odd * 2 < n / 2) {
      return FileType::binary;
    }
  }
  return FileType::text;
}

void ingest(std::string_view bytes,
            const std::string& source,
            const std::string& boot,
            bool truncated,
            const kb::KnowledgeBase& kb,
            crash::Collected& out) {
  const std::string cut =
      truncated ? fmt::format("; only the first {} MiB were read", bytes.size() >> 20U) : "";
  switch (sniff(bytes.substr(0, std::min<std::size_t>(bytes.size(), 4096)))) {
  case FileType::kernel_dump: {
    auto dump = formats::parse_kernel_dump(bytes);
    if (!dump) {
      add_source(out, source, "invalid", "kernel dump: " + dump.error().message, 0);
      return;
    }
    std::optional<unsigned> address;
    if (const kb::BugCheckEntry* e = kb.crash().bugcheck(formats::masked_code(dump->bugcheck_code));
        e != nullptr && e->address_param > 0) {
      address = e->address_param;
    }
    out.observations.push_back(
        crash::observe_kernel_dump(*dump, formats::Origin{source, "header"}, address));
    std::string detail =
        fmt::format("kernel dump (type {}), {} driver(s)", dump->dump_type, dump->modules.size());
    for (const std::string& w : dump->warnings) {
      detail += "; " + w;
    }
    add_source(out, source, "read", detail + cut, 1);
    out.earlier_boots_covered = true;
    return;
  }
  case FileType::minidump: {
    auto dump = formats::parse_minidump(bytes);
    if (!dump) {
      add_source(out, source, "invalid", "minidump: " + dump.error().message, 0);
      return;
    }
    std::string detail = fmt::format("user-mode minidump, {} module(s)", dump->modules.size());
    for (const std::string& w : dump->warnings) {
      detail += "; " + w;
    }
    if (!dump->exception_code) {
      // A dump taken on request, or one too damaged to hold its exception: no crash to report.
      const bool damaged = dump->modules.empty() && !dump->warnings.empty();
      add_source(out,
                 source,
                 damaged ? "invalid" : "read",
                 (damaged ? "damaged " : "") + detail + "; no exception record" + cut,
                 0);
      return;
    }
    out.observations.push_back(crash::observe_minidump(*dump, formats::Origin{source, ""}));
    add_source(out, source, "read", detail + cut, 1);
    out.earlier_boots_covered = true;
    return;
  }
  case FileType::evtx: {
    auto log = formats::parse_evtx(bytes, source);
    if (!log) {
      add_source(out, source, "invalid", "event log: " + log.error().message, 0);
      return;
    }
    std::vector<crash::Observation> obs = crash::observe_events(log->records);
    std::string detail = fmt::format("event log, {} record(s)", log->records.size());
    for (std::size_t i = 0; i < log->warnings.size() && i < 5; ++i) {
      detail += "; " + log->warnings[i];
    }
    if (log->warnings.size() > 5) {
      detail += fmt::format("; {} more warning(s)", log->warnings.size() - 5);
    }
    add_source(out, source, "read", detail + cut, obs.size());
    for (crash::Observation& o : obs) {
      out.observations.push_back(std::move(o));
    }
    out.earlier_boots_covered = true;
    return;
  }
  case FileType::journal:
    add_source(out,
               source,
               "invalid",
               "a systemd journal file inside another file: give the .journal file itself",
               0);
    return;
  case FileType::gzip: {
    // Inflated as a stream up to the plain log's cap: a file that expands past it (a gzip bomb)
    // keeps its first k_max_log_bytes, cut after their last whole line, and says so.
    auto unpacked = formats::gunzip_prefix(bytes, k_max_log_bytes);
    if (!unpacked) {
      add_source(out, source, "invalid", "gzip: " + unpacked.error().message, 0);
      return;
    }
    std::string_view kept = unpacked->data;
    std::string note = ", gzip" + cut;
    if (unpacked->truncated) {
      const std::size_t lf = kept.rfind('\n');
      kept = kept.substr(0, lf == std::string_view::npos ? 0 : lf + 1);
      note += fmt::format("; truncated: only the first {} MiB of its uncompressed text were read",
                          k_max_log_bytes >> 20U);
    }
    if (sniff(kept.substr(0, 4096)) != FileType::text) {
      add_source(out,
                 source,
                 "invalid",
                 "a compressed file that holds no text log (only kernel logs are read from .gz)",
                 0);
      return;
    }
    std::string encoding;
    std::string decoded;
    const std::string_view text = as_utf8(kept, decoded, encoding);
    ingest_kernel_text(text, source, boot, note, out);
    out.earlier_boots_covered = true;
    return;
  }
  case FileType::binary:
    add_source(out,
               source,
               "invalid",
               "not a crash dump, event log, journal or text log (unrecognised binary data)",
               0);
    return;
  case FileType::text:
    break;
  }
  std::string encoding;
  std::string decoded;
  const std::string_view text = as_utf8(bytes, decoded, encoding);
  if (looks_like_event_xml(text)) {
    auto records = formats::parse_event_xml(text, source);
    if (!records) {
      add_source(out, source, "invalid", "event XML: " + records.error().message, 0);
      return;
    }
    std::vector<crash::Observation> obs = crash::observe_events(*records);
    add_source(out,
               source,
               "read",
               fmt::format("event XML ({}), {} event(s){}", encoding, records->size(), cut),
               obs.size());
    for (crash::Observation& o : obs) {
      out.observations.push_back(std::move(o));
    }
    out.earlier_boots_covered = true;
    return;
  }
  ingest_kernel_text(text, source, boot, encoding == "utf-8" ? cut : ", " + encoding + cut, out);
}

void add_journal(const JournalRead& journal, const std::string& source, crash::Collected& out) {
  std::vector<crash::Observation> obs = crash::observe_kernel_lines(journal.lines);
  add_source(out,
             source,
             "read",
             fmt::format("journal, {} kernel message(s), {} boot(s)",
                         journal.lines.size(),
                         journal.boots.size()),
             obs.size());
  for (crash::Observation& o : obs) {
    out.observations.push_back(std::move(o));
  }
}

void ingest_file(const std::string& path,
                 const std::string& boot,
                 const kb::KnowledgeBase& kb,
                 crash::Collected& out) {
  ingest_read(
      path,
      boot,
      kb,
      out,
      [&](std::size_t max) { return platform::read_file(platform::u8path(path), max, true); },
      [&] { return read_journal({path}, k_max_journal_lines); });
}

void ingest_inner(const platform::SysRoot& root,
                  const std::string& inner,
                  const std::string& boot,
                  const kb::KnowledgeBase& kb,
                  crash::Collected& out) {
  ingest_read(
      inner,
      boot,
      kb,
      out,
      [&](std::size_t max) { return root.read_file(inner, max, true); },
      [&] { return read_journal(root, {inner}, k_max_journal_lines); });
}

} // namespace doctor::collect
