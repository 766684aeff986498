// SPDX-License-Identifier: MIT
#include <doctor/collect/windows/windows_machine.hpp>
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/collect/windows_probe.hpp>
#include <doctor/loader/windows_search.hpp>

namespace doctor::collect {

using facts::BinaryInfo;
using facts::ProbedPath;

WindowsProbe::WindowsProbe(const platform::SysRoot& root, const facts::Facts& facts)
    : m_root(root) {
  for (const ProbedPath& p : facts.probed_paths) {
    m_probed.emplace(p.path, p);
  }
  for (const BinaryInfo& b : facts.binaries) {
    m_binaries.emplace(loader::windows_path_key(b.path), std::make_unique<BinaryInfo>(b));
  }
}

loader::PathState WindowsProbe::probe(const std::string& path) {
  auto it = m_probed.find(path);
  if (it == m_probed.end()) {
    it = m_probed.emplace(path, look(path)).first;
  }
  const ProbedPath& p = it->second;
  loader::PathState out;
  out.exists = p.exists;
  out.is_dir = p.kind == "directory";
  out.kind = p.exists ? p.kind : std::string();
  out.real_path = p.real_path;
  if (p.exists && p.kind == "regular") {
    out.binary = binary(p.real_path);
  }
  return out;
}

void WindowsProbe::store(facts::Facts& facts) const {
  facts.probed_paths.clear();
  for (const auto& [path, p] : m_probed) {
    facts.probed_paths.push_back(p);
  }
  facts.binaries.clear();
  for (const auto& [key, b] : m_binaries) {
    facts.binaries.push_back(*b);
  }
}

ProbedPath WindowsProbe::look(const std::string& path) {
  ProbedPath p;
  p.path = path;
  const auto inner = windows_inner(m_root, path);
  if (!inner) {
    return p;
  }
  std::string at = *inner;
  auto st = m_root.stat(at);
  if (!st && !m_root.is_live()) {
    // A Windows disk mounted on Linux keeps the case its files were created with, and the
    // model asks in lower case; Windows itself matches names without regard to case.
    if (auto any = m_root.find_any_case(at)) {
      at = std::move(*any);
      st = m_root.stat(at);
    }
  }
  if (!st) {
    return p;
  }
  p.exists = true;
  p.kind = std::string(platform::to_string(st->kind));
  auto real = m_root.resolve(at);
  p.real_path = windows_outer(m_root, real ? *real : at);
  // A DLL read before (by the cuDNN or driver collector) keeps the case it was listed with.
  if (auto b = m_binaries.find(loader::windows_path_key(p.real_path)); b != m_binaries.end()) {
    p.real_path = b->second->path;
  }
  return p;
}

const BinaryInfo* WindowsProbe::binary(const std::string& real_path) {
  const std::string key = loader::windows_path_key(real_path);
  auto it = m_binaries.find(key);
  if (it == m_binaries.end()) {
    auto info = read_windows_binary(m_root, real_path);
    if (!info) {
      return nullptr;
    }
    info->path = real_path;
    it = m_binaries.emplace(key, std::make_unique<BinaryInfo>(std::move(*info))).first;
  }
  return it->second.get();
}

std::optional<Version> cudnn_dll_version(const BinaryInfo& binary) {
  const auto major = cudnn_dll_major(loader::windows_file_name(binary.path));
  if (!major || binary.format != "pe") {
    return std::nullopt;
  }
  const std::string& text =
      binary.file_version.empty() ? binary.product_version : binary.file_version;
  auto v = version_resource_number(text);
  if (v && v->major() == *major) {
    return v;
  }
  return std::nullopt;
}

} // namespace doctor::collect
