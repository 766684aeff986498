// SPDX-License-Identifier: MIT
// Reads Windows .evtx files (the event log's own format) without Windows, so logs copied from a
// crashed machine can be read anywhere.
//
// Layout (libyal's "Windows XML Event Log (EVTX)" document): a 4096-byte file header
// ("ElfFile\0"), then 64 KiB chunks ("ElfChnk\0", a 512-byte header), each holding records
// ("**\0\0", size, record id, written time, Binary XML, size again). Every chunk that follows
// the header is read, whatever the header's chunk count says: a log that was not closed cleanly
// ("dirty") has records past it. CRC fields are not checked, so logs with zeroed CRCs read.
#pragma once

#include <doctor/formats/event_record.hpp>
#include <doctor/util/error.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace doctor::formats {

struct EvtxRead {
  std::vector<EventRecord> records;
  std::vector<std::string> warnings; // "chunk 3: bad magic, skipped"; at most 100, then a count
};

// Reads every record of an .evtx file into EventRecords (channel from the record's <Channel>,
// origin `source` and "record N" with the record id). Returns an error if the file does not start
// with "ElfFile\0"; a damaged chunk or record becomes a warning and reading goes on. A chunk of
// zeros (never used) is skipped silently.
Expected<EvtxRead> parse_evtx(std::string_view bytes, const std::string& source);

} // namespace doctor::formats
