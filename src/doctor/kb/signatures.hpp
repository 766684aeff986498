// SPDX-License-Identifier: MIT
// Error signatures (data/kb/signatures.json): the messages `explain` recognises in a log, each
// mapped to a finding of findings.json. Parsed and validated here; matched in explain/.
#pragma once

#include <doctor/kb/knowledge_base.hpp>
#include <doctor/util/error.hpp>
#include <doctor/util/regex.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace doctor::kb {

// What a matching line says about the failure.
enum class SignatureRole {
  cause,   // names a root cause
  symptom, // an umbrella message or a consequence; the cause only when nothing better matched
  noise,   // known harmless: never the cause
  context, // informative (versions loaded, devices created): shown as what the log says
};

std::string_view to_string(SignatureRole role);

// The shortest literal every pattern must have at its top level, for the prefilter.
inline constexpr std::size_t k_min_signature_literal = 4;

// Another cause a match may have, and the one check that tells it apart from the first.
struct SignatureAlternative {
  std::string finding; // a findings.json id
  int confidence = 0;  // below the signature's own
  std::string tell;    // "`nvidia-smi` shows other processes holding memory"
  // "" for any platform; "windows", "linux" or "macos" for a cause only that platform has: it is
  // left out when the log says it comes from another (explain's platform vote).
  std::string platform;
};

// What a context line says about an ambiguous cause ("prefers" on a context row): a cause whose
// finding is `over` and whose signature names `finding` among its alternatives gives way to
// `finding` when the context line is in the report ("in a docker" makes "driver version is
// insufficient" a driver the container does not reach rather than a driver too old). `tell` is
// how to tell `over` apart, shown when it becomes the alternative.
struct ContextPreference {
  std::string finding; // a findings.json id without params
  std::string over;    // a findings.json id
  std::string tell;
};

// A row of the loader decision table ("loader_rules"): a library that failed to load, as
// explain/loader_message.hpp reads it from any runtime's message, matches the row when the
// identity of the library it names (the missing one when the message says, else the one that
// failed) is one of `roles`, the error kind one of `kinds`, the failed library's name starts with
// one of `names` and the platform agrees. Empty lists match anything. The first matching row wins.
struct LoaderRule {
  std::vector<std::string> roles; // LibraryRole names: "cudnn_sublibrary", "driver", ...
  std::vector<std::string> kinds; // LoadErrorKind names: "not_found", "procedure_missing", ...
  std::vector<std::string> names; // lower-case prefixes of the failed library's file name
  unsigned cudnn_major = 0;       // 0 for any
  // "8.3": the row holds only while the report names no cuDNN of cudnn_major older than this
  // (explain's ranking checks the versions the report names); empty for always.
  std::string cudnn_since;
};

// The names loader rules may use (explain/loader_message.hpp defines their meaning).
const std::vector<std::string_view>& loader_role_names();
const std::vector<std::string_view>& loader_kind_names();
// The params a loader rule's match supplies; a rule's finding may use only these.
const std::vector<std::string_view>& loader_fields();

struct Signature {
  std::string id;      // "tf.dso_load_failed.windows"
  std::string finding; // a findings.json id
  SignatureRole role = SignatureRole::cause;
  int confidence = 50;  // 1..100: how surely a match names the cause
  std::string platform; // "windows", "linux" or "any"
  std::vector<Regex> patterns;
  std::vector<std::pair<std::string, std::string>> values; // constant params
  std::vector<std::string> explained_by;                   // finding ids
  std::vector<std::string> examples;                       // lines the patterns must match
  std::vector<SignatureAlternative> alternatives;          // most likely first, at most two
  // A symptom row's most likely cause (a finding without params), named first when the symptom
  // stands in as the cause: CUDNN_STATUS_NOT_INITIALIZED alone is most often a GPU out of memory.
  std::optional<SignatureAlternative> likely;
  std::vector<ContextPreference> prefers; // context rows only
  std::optional<LoaderRule> loader;       // a loader_rules row (no patterns): matched structurally
  std::string source;
};

// Parses signatures.json. Every pattern must compile, carry a top-level literal of at least
// k_min_signature_literal bytes, and supply (by named groups or "values") every param of its
// finding; "finding" and "explained_by" must name rows of `findings`. The error names the file,
// the row and the field.
Expected<std::vector<Signature>> parse_signatures(std::string_view text,
                                                  const std::string& file,
                                                  const std::vector<FindingTemplate>& findings);

// Returns the examples of `signatures` that none of their own patterns match, as
// "id: example" lines (empty when all match). Loader rules' examples are checked in explain/.
std::vector<std::string> unmatched_examples(const std::vector<Signature>& signatures);

} // namespace doctor::kb
