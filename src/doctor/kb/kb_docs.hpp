// SPDX-License-Identifier: MIT
// Private to kb/: the parsers of the files that load() reads as documents already in their tape
// form (json_tape.hpp): the embedded knowledge base's compiled files, or edited text parsed once.
// The public parse functions that take text (compat.hpp, signatures.hpp, crash_catalog.hpp)
// parse it and call these, so both paths run the same validation.
#pragma once

#include <doctor/kb/compat.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/json_tape.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/kb/signatures.hpp>

#include <string>
#include <vector>

namespace doctor::kb {

// One knowledge-base file as a document: its name ("gpus.json", in error messages) and root.
struct KbDoc {
  std::string name;
  JsonView root;
};

// Texts parsed into documents: the tapes own the bytes the documents refer to.
struct ParsedTexts {
  std::vector<std::string> tapes;
  std::vector<KbDoc> docs;
};

// Parses each of `files` ({name, JSON text}). Returns the error "FILE: not JSON (…)" of the first
// that is not JSON.
Expected<ParsedTexts> parse_texts(const std::vector<std::pair<std::string, std::string>>& files);

// The compatibility tables of `docs` (files of the four compat kinds, each kind at most once).
Expected<CompatTables> parse_compat_docs(const std::vector<KbDoc>& docs);

// The signatures of `doc`, whose findings must be rows of `findings`.
Expected<std::vector<Signature>> parse_signatures_doc(const KbDoc& doc,
                                                      const std::vector<FindingTemplate>& findings);

// The crash catalogues of `xid` and `bugchecks`; either may be null (an empty catalogue).
Expected<CrashCatalog> parse_crash_docs(const KbDoc* xid, const KbDoc* bugchecks);

} // namespace doctor::kb
