// SPDX-License-Identifier: MIT
// The machine join of `explain` for a DLL a log names, on a Windows machine: every copy of it the
// facts record (the cuDNN installations' libraries, the paths the loader walk probed that exist,
// the binaries read), found without regard to case; which copy each loading context of the
// Windows loader model gets, or why it fails (error 126, error 193); and for zlibwapi.dll which
// cuDNN folder lacks it. A path the facts never recorded is "not known", never absent.
#pragma once

#include <doctor/explain/result.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/windows_frameworks.hpp>
#include <doctor/model/facts.hpp>

#include <string>
#include <vector>

namespace doctor::explain {

// Appends to `cause` what the Windows machine of `facts` says about `dll` (a DLL file name, any
// case). `contexts` is the loader walk replayed from the facts
// (checks::windows_loader_contexts); empty when the facts hold none, and then only the copies
// and PATH are used.
void join_windows_library(ExplainedCause& cause,
                          const std::string& dll,
                          const facts::Facts& facts,
                          const kb::KnowledgeBase& kb,
                          const std::vector<loader::WindowsLoadContext>& contexts);

} // namespace doctor::explain
