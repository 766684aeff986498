// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/file_probe.hpp>
#include <doctor/loader/windows_frameworks.hpp>
#include <doctor/model/facts.hpp>

#include <vector>

// The Windows counterpart of analyse_linux: every way of loading the GPU stack on the examined
// Windows machine, each a simulated process (windows_frameworks.hpp) built from the facts. The
// same walk runs while collecting (through a recording SysRootProbe) and in the checks (through a
// FactsProbe over the snapshot), so both ask the same questions and get the same answers.
namespace doctor::loader {

// The loader state of a process on the examined machine, from its facts: the Windows and system
// directories, KnownDLLs, SafeDllSearchMode and the PATH the doctor's own process had (the
// environment of the programs the user starts from the same console).
WindowsLoaderConfig windows_config_from(const facts::Facts& facts);

// The Python process of `env` as windows_frameworks models it: its prefix, site-packages, Python
// version, the directory of the python.exe that really runs (for a venv the base interpreter's,
// from the PEP 514 registrations when one matches its version, else the venv's Scripts folder)
// the environment variables the frameworks read, and the listings of its folders the collector
// made (facts.windows.dll_listings).
WindowsPythonProcess windows_python_process(const facts::Facts& facts, const facts::PythonEnv& env);

// Walks every loading context of the facts' Windows machine through `probe`: each framework of
// each Python environment (torch, TensorFlow, Paddle, ONNX Runtime), and a program that loads
// each cuDNN major found, and nvcuda.dll, by name. Returns nothing for a machine that is not
// Windows.
std::vector<WindowsLoadContext>
analyse_windows(const facts::Facts& facts, const kb::KnowledgeBase& kb, FileProbe& probe);

} // namespace doctor::loader
