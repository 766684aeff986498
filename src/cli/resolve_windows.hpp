// SPDX-License-Identifier: MIT
#pragma once

#include "resolve.hpp"

#include <doctor/loader/file_probe.hpp>
#include <doctor/model/facts.hpp>

#include <string>
#include <vector>

namespace doctor::cli {

// The collectors `resolve` needs on a Windows machine: the environment and the system
// directories, and for display (not --tree) the Python environments and cuDNN installations.
std::vector<std::string> windows_resolve_collectors(bool tree);

// The Windows path of a command-line argument: an absolute path as given, normalised; on the live
// machine (`live`) a relative one is taken from the current directory.
std::string windows_argument_path(bool live, const std::string& arg);

// `resolve` on the Windows machine of `facts` (collected with windows_resolve_collectors from the
// live machine or a mounted disk, or read from a snapshot), looking at files through `probe` (a
// collect::WindowsProbe of the machine, or a loader::FactsProbe of the snapshot):
// LoadLibraryW(NAME) in a process with the machine's PATH, the imports of a --from DLL, .exe or
// .pyd, the loads of a --python environment's frameworks, or the PE import tree of --tree NAME.
// `live`: relative paths on the command line are taken from the current directory. Prints the
// report and returns the exit status as run_resolve does.
int run_resolve_windows(const ResolveOptions& options,
                        bool live,
                        const facts::Facts& facts,
                        loader::FileProbe& probe);

} // namespace doctor::cli
