// SPDX-License-Identifier: MIT
// The answer of `explain`: the ranked causes as findings (texts and fixes from the knowledge
// base, params from the lines' captured fields), with their evidence lines, the consequences they
// explain, what the machine adds, and the lines that were recognised but are not causes.
#pragma once

#include <doctor/explain/analysis.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/finding.hpp>

#include <string>
#include <utility>
#include <vector>

namespace doctor::explain {

// What the machine the doctor examined says about one cause.
struct MachineNote {
  std::string text;
  std::string command;   // a fix step for this machine, or empty
  bool confirms = false; // the machine shows the same cause
};

// A finding named in the log that is not reported as a cause of its own.
struct Mention {
  std::string signature; // signature id
  std::string finding;   // findings.json id
  std::string title;
  CauseClass cause_class = CauseClass::other;
  std::size_t count = 0;
  std::vector<EvidenceLine> lines;
};

// Another cause the same evidence may have.
struct Alternative {
  std::string finding; // findings.json id
  std::string title;
  CauseClass cause_class = CauseClass::other;
  int confidence = 0;
  std::string tell; // the check that tells it apart
};

struct ExplainedCause {
  Finding finding; // id, severity, cause class, title, message, fixes; evidence = the lines
  int confidence = 0;
  bool from_symptoms = false;
  std::vector<std::string> signatures;                     // ids of the signatures that matched
  std::vector<std::pair<std::string, std::string>> fields; // captured from the first line
  std::vector<EvidenceLine> lines;
  std::size_t matches = 0; // lines matched in all
  std::vector<Mention> consequences;
  std::vector<MachineNote> machine;
  std::vector<Alternative> alternatives; // most likely first
  // How to confirm this cause, when it leads as the most likely cause of an ambiguous status.
  std::string confirm;
};

struct ExplainResult {
  std::vector<InputSummary> inputs;
  std::string log_platform; // "windows", "linux" or "" (the signatures that matched do not say)
  std::vector<ExplainedCause> causes;
  std::vector<Mention> symptoms;
  std::vector<Mention> noise;
  std::vector<Mention> context;
  // How the machine was used: "live", "snapshot FILE", or why not ("--no-machine", "the log is
  // from a Windows machine; this one runs Linux").
  std::string machine;
  bool machine_joined = false;
  std::size_t lines_matched = 0;
};

// Builds the result from a ranking. Fixes are chosen for the log's platform ("windows" or
// "linux" tags). Returns an error if a finding cannot be rendered (a knowledge-base bug).
Expected<ExplainResult>
build_result(const Analysis& analysis, const Ranking& ranking, const kb::KnowledgeBase& kb);

// "input:line" for an evidence line ("train.log:120", "train.log:120.2" for a syslog part).
std::string where(const ExplainResult& result, const EvidenceLine& line);

} // namespace doctor::explain
