// SPDX-License-Identifier: MIT
//
// What the live Windows collector saw of each DLL's access (collect/windows/access_collector.cpp,
// facts.windows.file_access): a DLL this user may not read or execute (LoadLibrary error 5), one
// that carries the Mark of the Web (Smart App Control and WDAC refuse such a file unless it is
// signed: error 4551), and an NVIDIA DLL whose Authenticode signature does not verify (check
// --verify). A DLL that is merely unsigned makes no finding: repackaged DLLs often are.
#include <doctor/checks/checks.hpp>
#include <doctor/checks/helpers.hpp>
#include <doctor/loader/windows_analysis.hpp>
#include <doctor/loader/windows_frameworks.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::checks {

namespace ids = kb::ids;

namespace {

constexpr std::uint32_t k_internet_zone = 3;
constexpr std::uint32_t k_restricted_zone = 4;

const facts::BinaryInfo* binary_at(const facts::Facts& facts, const std::string& path) {
  const std::string key = loader::windows_path_key(path);
  for (const facts::BinaryInfo& b : facts.binaries) {
    if (loader::windows_path_key(b.path) == key) {
      return &b;
    }
  }
  return nullptr;
}

// The loader contexts whose walk loads `path`, as "torch 2.1.0 in C:\venv, …"; "" if none.
std::string
loaded_by(const facts::Facts& facts, const kb::KnowledgeBase& kb, const std::string& path) {
  const auto contexts = windows_loader_contexts(facts, kb);
  if (!contexts) {
    return {};
  }
  const std::string key = loader::windows_path_key(path);
  std::vector<std::string> out;
  for (const loader::WindowsLoadContext& ctx : *contexts) {
    for (const loader::WindowsLoadStep& step : ctx.steps) {
      if (step.resolution.chosen && loader::windows_path_key(step.resolution.chosen->path) == key) {
        out.push_back(ctx.description);
        break;
      }
    }
  }
  return util::join(out, ", ");
}

// Signed as far as the facts tell: WinVerifyTrust's answer where --verify asked it, else whether
// the PE holds a certificate table at all (a file without one is unsigned for certain).
bool lacks_valid_signature(const facts::WindowsFileAccess& a, const facts::BinaryInfo* b) {
  if (!a.authenticode.empty()) {
    return a.authenticode != "valid";
  }
  return b != nullptr && b->format == "pe" && b->read_error.empty() && !b->is_signed;
}

// How the mark-of-the-web finding describes the file's signature.
std::string
signature_state(const facts::WindowsFileAccess& a, const facts::BinaryInfo* b, bool unsigned_file) {
  if (unsigned_file) {
    return a.authenticode.empty() ? "carries no Authenticode signature"
                                  : "has no valid Authenticode signature (" + a.authenticode + ")";
  }
  if (a.authenticode == "valid") {
    return "has a valid Authenticode signature";
  }
  return b != nullptr && b->is_signed ? "carries an Authenticode signature"
                                      : "was not examined for a signature";
}

std::string zone_name(std::uint32_t zone) {
  if (zone == k_internet_zone) {
    return "Internet";
  }
  if (zone == k_restricted_zone) {
    return "Restricted sites";
  }
  return fmt::format("zone {}", zone);
}

bool is_nvidia_dll(const facts::WindowsFileAccess& a, const facts::BinaryInfo* b) {
  const loader::LibraryRole role = loader::windows_role_of(a.path);
  return (role != loader::LibraryRole::other && role != loader::LibraryRole::zlib)
         || (b != nullptr && util::to_lower(b->product_name).starts_with("nvidia"));
}

} // namespace

// DLLs this user may not read or execute, and DLLs marked as downloaded.
void check_windows_file_access(const facts::Facts& facts,
                               const kb::KnowledgeBase& kb,
                               FindingSink& out) {
  if (facts.collection.os_family != "windows") {
    return;
  }
  for (const facts::WindowsFileAccess& a : facts.windows.file_access) {
    const facts::BinaryInfo* b = binary_at(facts, a.path);
    const std::string source = a.source.empty() ? "windows.file_access" : a.source;
    if (!a.readable || !a.executable) {
      FindingDraft d;
      d.id = ids::k_windows_dll_access_denied;
      d.subject = a.path;
      d.shell = util::Shell::powershell;
      const std::string missing = !a.readable && !a.executable ? "read or execute it"
                                  : !a.readable                ? "read it"
                                                               : "execute it";
      const std::string by = loaded_by(facts, kb, a.path);
      d.params = {{"path", a.path},
                  {"missing", missing},
                  {"loaded_by", by.empty() ? "every program that loads it" : by}};
      d.commands = {
          {"grant",
           util::Command("icacls ").value(a.path).text(" /grant \"$($env:USERNAME):(RX)\"")}};
      d.evidence.push_back(Evidence{source,
                                    fmt::format("{}: read {}, execute {}",
                                                a.path,
                                                a.readable ? "allowed" : "denied",
                                                a.executable ? "allowed" : "denied")});
      if (!a.detail.empty()) {
        d.evidence.push_back(Evidence{source, a.detail});
      }
      if (b != nullptr && !b->read_error.empty()) {
        d.evidence.push_back(Evidence{"file:" + a.path, b->read_error_message});
      }
      out.add(std::move(d));
    }
    if (a.zone == k_internet_zone || a.zone == k_restricted_zone) {
      FindingDraft d;
      d.id = ids::k_windows_dll_marked_downloaded;
      d.subject = a.path;
      d.shell = util::Shell::powershell;
      const bool unsigned_file = lacks_valid_signature(a, b);
      d.params = {{"path", a.path},
                  {"zone", std::to_string(a.zone)},
                  {"zone_name", zone_name(a.zone)},
                  {"signed_state", signature_state(a, b, unsigned_file)}};
      d.commands = {{"unblock", util::Command("Unblock-File -LiteralPath ").value(a.path)}};
      d.evidence.push_back(
          Evidence{source, fmt::format("{}:Zone.Identifier: ZoneId={}", a.path, a.zone)});
      if (unsigned_file) {
        d.severity = Severity::warning;
        d.tags.emplace_back("unsigned");
        d.evidence.push_back(
            a.authenticode.empty()
                ? Evidence{"pe:" + a.path, "no Authenticode signature in the file"}
                : Evidence{"api:WinVerifyTrust", "Authenticode: " + a.authenticode});
      } else {
        d.tags.emplace_back("signed");
      }
      out.add(std::move(d));
    }
  }
}

// NVIDIA DLLs whose Authenticode signature WinVerifyTrust rejects (only asked under --verify).
void check_windows_signatures(const facts::Facts& facts,
                              const kb::KnowledgeBase&,
                              FindingSink& out) {
  if (facts.collection.os_family != "windows") {
    return;
  }
  for (const facts::WindowsFileAccess& a : facts.windows.file_access) {
    const facts::BinaryInfo* b = binary_at(facts, a.path);
    if (!a.authenticode.starts_with("invalid") || !is_nvidia_dll(a, b)) {
      continue;
    }
    FindingDraft d;
    d.id = ids::k_windows_dll_signature_invalid;
    d.subject = a.path;
    d.shell = util::Shell::powershell;
    const std::string after_colon = a.authenticode.substr(a.authenticode.find(':') + 1);
    const std::string result(util::trim(after_colon));
    d.params = {{"path", a.path}, {"result", result.empty() ? "invalid" : result}};
    // TRUST_E_BAD_DIGEST: the bytes are not the ones signed. Other results are about the
    // signature or its certificates.
    d.tags.emplace_back(result.find("TRUST_E_BAD_DIGEST") != std::string::npos ? "bad_digest"
                                                                               : "chain");
    d.evidence.push_back(Evidence{"api:WinVerifyTrust", a.path + ": " + a.authenticode});
    if (b != nullptr && !b->file_version.empty()) {
      d.evidence.push_back(
          Evidence{"pe:" + a.path, fmt::format("{} {}", b->product_name, b->file_version)});
    }
    out.add(std::move(d));
  }
}

} // namespace doctor::checks
