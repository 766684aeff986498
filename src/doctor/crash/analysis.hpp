// SPDX-License-Identifier: MIT
// From observations to incidents: each observation read through the knowledge base's catalogues
// (Xid, bug check, exception code, module) and findings, then folded and linked on a timeline.
#pragma once

#include <doctor/crash/incident.hpp>
#include <doctor/crash/observation.hpp>
#include <doctor/kb/knowledge_base.hpp>

#include <string>
#include <vector>

namespace doctor::crash {

// Turns `observations` into a timeline of incidents:
//  - order: events with an absolute time by time, the others after them in the order read;
//  - bursts: the same kind and code on the same subject within a second (or, without times,
//    adjacent in one source) fold into one incident with a count;
//  - one Windows crash seen as a dump, a BugCheck 1001 and a Kernel-Power 41 (same code, within
//    30 minutes) is one incident; a 6008 joins the crash or power loss it belongs to;
//  - "caused by previous Xid N", secondary Xids (43, 45) after another Xid on the same GPU, and a
//    fallen-off-the-bus message after Xid 79 link to their root (consequence_of);
//  - patterns across incidents become notes: the same application Xid on one GPU from several
//    processes (suspect the GPU), repeated TDRs with the machine's TDR settings, different bug
//    check codes on consecutive crashes (suspect memory, overclock, power), PCIe errors before a
//    GPU was lost, the driver's own recovery action (Xid 154).
// Pure: reads nothing but its arguments.
std::vector<Incident> analyse(std::vector<Observation> observations,
                              const kb::KnowledgeBase& kb,
                              const MachineContext& machine);

// The findings.json ids incidents can name: each observation kind's, those the Xid catalogue of
// `kb` names, and crash.no_persistent_log (the knowledge base's registry test checks that each
// exists and that every finding is used by someone). Sorted.
std::vector<std::string> incident_finding_ids(const kb::KnowledgeBase& kb);

} // namespace doctor::crash
