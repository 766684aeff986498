// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/checks/check.hpp>

#include <span>
#include <vector>

namespace doctor::checks {

// Runs `checks` over `facts` and renders their drafts with the knowledge base. The runner is a
// firewall: a check that throws, emits an id it did not declare, or whose draft cannot be
// rendered becomes an internal.check_failed finding and the other checks still run. Returns the
// findings sorted worst first (finding_order), identical for identical facts.
std::vector<Finding> run_checks(const facts::Facts& facts,
                                const kb::KnowledgeBase& kb,
                                std::span<const CheckDef> checks);

} // namespace doctor::checks
