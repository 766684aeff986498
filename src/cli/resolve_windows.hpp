// SPDX-License-Identifier: MIT
#pragma once

#include "resolve.hpp"

#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <string>
#include <vector>

namespace doctor::cli {

// The collectors `resolve` needs on a Windows machine: the environment and the system
// directories, and for display (not --tree) the Python environments and cuDNN installations.
std::vector<std::string> windows_resolve_collectors(bool tree);

// The Windows path of a command-line argument: an absolute path as given, normalised; on the live
// machine a relative one is taken from the current directory.
std::string windows_argument_path(const platform::SysRoot& root, const std::string& arg);

// `resolve` on the Windows machine `root` (live, or a mounted Windows disk) whose `facts` were
// collected with windows_resolve_collectors: LoadLibraryW(NAME) in a process with the machine's
// PATH, the imports of a --from DLL or .pyd, the loads of a --python environment's frameworks, or
// the PE import tree of --tree NAME. Paths the facts lack are looked at on the machine. Prints the
// report and returns the exit status as run_resolve does.
int run_resolve_windows(const ResolveOptions& options,
                        const platform::SysRoot& root,
                        const facts::Facts& facts);

} // namespace doctor::cli
