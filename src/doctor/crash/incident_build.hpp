// SPDX-License-Identifier: MIT
// One observation read through the catalogues: the incident before folding and correlation.
#pragma once

#include <doctor/crash/incident.hpp>
#include <doctor/crash/observation.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <string>

namespace doctor::crash {

// Returns the incident `obs` makes on its own: its catalogue name and meaning, the finding whose
// texts and fixes apply (fixes for the observation's platform only), title, subject, cause
// class and evidence. Never fails: an unknown code gets the generic finding of its kind.
Incident
make_incident(const Observation& obs, const kb::KnowledgeBase& kb, const MachineContext& machine);

// The platform an observation kind belongs to: "windows" for bug checks, TDRs, Windows events
// and user-mode crashes, "linux" for the rest.
std::string platform_of(ObservationKind kind);

// "file, line 42" for an origin.
std::string origin_label(const Origin& origin);

} // namespace doctor::crash
