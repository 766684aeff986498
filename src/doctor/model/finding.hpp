// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/cause_class.hpp>
#include <doctor/model/severity.hpp>
#include <doctor/util/shell.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace doctor {

// What was seen, and where: {"file:/proc/driver/nvidia/version", "NVRM version: …"}.
struct Evidence {
  std::string source;
  std::string value;
  bool operator==(const Evidence&) const = default;
};

// One step towards a fix. `command` is copy-pasteable and empty where no command is safe to
// suggest.
struct Fix {
  std::string text;
  std::string command;
  bool operator==(const Fix&) const = default;
};

// A judgement: a stable id from the knowledge base, how bad, which root-cause class, about what,
// what it means, the evidence and the fixes in the order to try them.
struct Finding {
  std::string id;
  Severity severity = Severity::info;
  CauseClass cause_class = CauseClass::other;
  std::string title;
  std::string subject;
  std::string message;
  std::vector<Evidence> evidence;
  std::vector<Fix> fixes;
  bool operator==(const Finding&) const = default;
};

// Named values a check passes to the knowledge base's message and fix templates.
using Params = std::vector<std::pair<std::string, std::string>>;

// Named commands (or starts of commands, "<prefix>/bin/python -m pip") a check builds for the
// knowledge base's fix commands; their values are quoted when the fix is rendered.
using CommandParams = std::vector<std::pair<std::string, util::Command>>;

// What a check reports; the runner turns it into a Finding with the knowledge base's texts.
struct FindingDraft {
  std::string id;
  std::string subject;
  Params params;
  // Placeholders of fix commands that stand for commands; a command's other placeholders take
  // `params`, each quoted as one word.
  CommandParams commands;
  // The shell of the fix commands whose template names none (Windows checks choose cmd.exe).
  util::Shell shell = util::Shell::posix;
  std::vector<Evidence> evidence;
  // Tags select the knowledge base's fixes that apply ("pip", "conda", "apt"); fixes without a
  // "when" always apply.
  std::vector<std::string> tags;
  // Raises the knowledge base's default severity; never lowers it.
  std::optional<Severity> severity;
};

// Orders findings for reports: most severe first, then by id, then by subject.
bool finding_order(const Finding& a, const Finding& b);

} // namespace doctor
