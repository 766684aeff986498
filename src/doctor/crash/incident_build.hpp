// SPDX-License-Identifier: MIT
// One observation read through the catalogues: the incident before folding and correlation.
#pragma once

#include <doctor/crash/incident.hpp>
#include <doctor/crash/observation.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <string>

namespace doctor::crash {

// Returns the incident `obs` makes on its own: its catalogue name and meaning, the finding whose
// texts and fixes apply (the Xid catalogue's for an Xid, else the kind's; fixes for the
// observation's own platform only), title, subject, cause class and evidence, read by the
// kind's row of the observation-kind table. Never fails: an unknown code gets the generic finding
// of its kind.
Incident
make_incident(const Observation& obs, const kb::KnowledgeBase& kb, const MachineContext& machine);

// "file, line 42" for an origin.
std::string origin_label(const Origin& origin);

} // namespace doctor::crash
