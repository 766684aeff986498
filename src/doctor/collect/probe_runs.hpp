// SPDX-License-Identifier: MIT
// The parent's side of the driver API, cuDNN and cuBLAS children: which library each loads (the
// loader model's answer), and their reports, or their crash, hang or bad exit, turned into facts.
#pragma once

#include <doctor/collect/collect.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/loader/file_probe.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/platform/process.hpp>
#include <doctor/platform/sysroot.hpp>

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace doctor::collect {

// The probes that load a library the parent chose, in the order they run: "cuda", "cudnn",
// "cublas" (rows of probe/children.cpp).
std::span<const std::string_view> library_probes();

// Which file probe `probe` loads: the copy the first loading context of the loader model
// (frameworks, then programs) loads, or else what a program without RPATH or RUNPATH would load
// by the default search (libcuda.so.1; libcudnn.so.N for each cuDNN major found, newest first,
// then 9 and 8; libcublas.so.13, 12, 11). For a Windows machine (facts.collection.os_family) the
// Windows model answers with `files` a probe of Windows path keys (probe_file_probe): a
// framework's own folder first, then LoadLibraryW by name with the machine's PATH (nvcuda.dll;
// cudnn64_N.dll; cublas64_13.dll, 12, 11). `override_path`, when not empty, wins (--lib). None
// found: `path` is empty and `searched` lists every path the search considered.
facts::ProbeLibrary choose_probe_library(std::string_view probe,
                                         const facts::Facts& facts,
                                         const kb::KnowledgeBase& kb,
                                         loader::FileProbe& files,
                                         const std::string& override_path);

// The file probe choose_probe_library needs for `root`: a WindowsProbe (starting from `facts`'
// recorded paths) for a Windows machine, a SysRootProbe otherwise.
std::unique_ptr<loader::FileProbe> probe_file_probe(const platform::SysRoot& root,
                                                    const facts::Facts& facts);

// Turns what child `probe` printed and how it ended into its facts: a crash, hang or exit
// without a report keeps the signal or status and the tail of standard error; every value the
// child reports is checked (versions within the ranges the libraries use, text printable and
// bounded) before it becomes a fact.
facts::ProbeRun probe_run_from_report(std::string_view probe,
                                      const facts::ProbeLibrary& library,
                                      const platform::ProcessResult& result);

// The CUDA driver API's name for a CUresult the library did not name (NVIDIA's stub names none):
// "CUDA_ERROR_STUB_LIBRARY" for 34; "" for a code the table lacks.
std::string_view cuda_result_name(std::int64_t result);

// Runs the driver API, cuDNN and cuBLAS children on the live machine and stores their runs in
// facts.probe (ran = true), then asks smartctl about the disks (collect_disk_health, with the
// same time limit per run). `overrides` maps a probe's name to the file it must load (--lib).
void collect_probes(const platform::SysRoot& root,
                    const CollectOptions& options,
                    const kb::KnowledgeBase& kb,
                    const std::map<std::string, std::string>& overrides,
                    facts::Facts& facts);

} // namespace doctor::collect
