// SPDX-License-Identifier: MIT
// Joins what a log says with what the doctor sees on a machine (the live one, or a snapshot):
// - a finding of `check` with the cause's cause class confirms it;
// - a library the log could not load, on Linux, is looked up the way the loader would, and among
//   every copy the facts know: found where the loader looks (another process had another path),
//   present in a directory the loader does not search (the exact path fix), or absent (install
//   it); on Windows, windows_join.hpp joins the DLL with the copies and the loader model's
//   contexts replayed from the facts;
// - driver and cuDNN causes get the machine's driver version and cuDNN copies.
// A confirmed cause gains k_confirm_bonus confidence. A log from one OS is not joined with a
// machine running another.
#pragma once

#include <doctor/explain/result.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/model/finding.hpp>

#include <string>
#include <vector>

namespace doctor::explain {

inline constexpr int k_confirm_bonus = 10;

// Adds MachineNotes to `result`'s causes, raises the confidence of confirmed ones and re-orders
// the causes. `machine_findings` are `check`'s findings on the same facts. `label` says which
// machine ("live", "snapshot FILE").
void join_machine(ExplainResult& result,
                  const facts::Facts& facts,
                  const kb::KnowledgeBase& kb,
                  const std::vector<Finding>& machine_findings,
                  const std::string& label);

} // namespace doctor::explain
