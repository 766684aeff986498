// SPDX-License-Identifier: MIT
// What stands between the current user and LoadLibrary for each DLL the other collectors
// recorded: the user's effective read and execute rights (the file's DACL), the Mark of the Web
// (the Zone.Identifier stream a browser or unpacker leaves on a downloaded file, which Smart App
// Control and WDAC policies act on), and, with --verify, the Authenticode signature of NVIDIA's
// DLLs. Only on the live machine: a Windows disk mounted on Linux has no DACLs or streams to read
// as Windows would.
#include <doctor/collect/collect.hpp>
#include <doctor/collect/windows/windows_values.hpp>
#include <doctor/loader/windows_frameworks.hpp>
#include <doctor/loader/windows_search.hpp>
#include <doctor/platform/windows_system.hpp>
#include <doctor/util/strings.hpp>

#include <algorithm>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

// A Zone.Identifier stream is a few lines of text.
constexpr std::size_t k_zone_stream_bytes = 4096;
// Zones 3 (internet) and 4 (restricted sites) mark a file as downloaded; 1 and 2 (intranet,
// trusted sites) change nothing that loads a DLL.
constexpr std::uint32_t k_first_downloaded_zone = 3;

bool is_dll(std::string_view path) {
  return util::to_lower(loader::windows_file_name(path)).ends_with(".dll");
}

// NVIDIA signs its CUDA, cuDNN and driver DLLs; a framework's own DLLs and the Visual C++
// runtime are someone else's, and Authenticode hashes the whole file (cuDNN's are hundreds of
// MB), so only these are verified.
bool is_nvidia_dll(const BinaryInfo& b) {
  const loader::LibraryRole role = loader::windows_role_of(b.path);
  return (role != loader::LibraryRole::other && role != loader::LibraryRole::zlib)
         || util::to_lower(b.product_name).starts_with("nvidia");
}

// The entry for one DLL; `notable` says whether it has anything to say.
WindowsFileAccess examine(const BinaryInfo& b, bool verify, bool& notable) {
  WindowsFileAccess a;
  a.path = b.path;
  std::vector<std::string> sources;
  std::vector<std::string> details;
  if (auto rights = platform::file_rights(b.path)) {
    a.readable = rights->readable;
    a.executable = rights->executable;
    sources.push_back("api:" + rights->method);
    if (!rights->detail.empty()) {
      details.push_back(rights->detail);
    }
    notable = notable || !a.readable || !a.executable;
  } else {
    details.push_back("rights not known: " + rights.error().message);
  }
  if (auto stream =
          platform::read_alternate_stream(b.path, "Zone.Identifier", k_zone_stream_bytes)) {
    if (const auto zone = parse_zone_identifier(*stream)) {
      a.zone = *zone;
      sources.emplace_back("ads:Zone.Identifier");
      notable = notable || *zone >= k_first_downloaded_zone;
    }
  } else if (stream.error().code != ErrorCode::not_found) {
    details.push_back("Zone.Identifier not read: " + stream.error().message);
  }
  if (verify && is_nvidia_dll(b)) {
    if (auto result = platform::authenticode_result(b.path)) {
      a.authenticode = authenticode_verdict(*result);
      sources.emplace_back("api:WinVerifyTrust");
      notable = true;
    } else {
      details.push_back("signature not verified: " + result.error().message);
    }
  }
  a.source = util::join(sources, "+");
  a.detail = util::join(details, "; ");
  return a;
}

} // namespace

void collect_windows_file_access(const platform::SysRoot& root,
                                 const CollectOptions& options,
                                 Facts& facts) {
  if (!root.is_live()) {
    return; // an examined disk: no claim either way
  }
  std::vector<WindowsFileAccess> out;
  for (const BinaryInfo& b : facts.binaries) {
    if (!is_dll(b.path)) {
      continue;
    }
    bool notable = false;
    WindowsFileAccess a = examine(b, options.verify, notable);
    if (notable) {
      out.push_back(std::move(a));
    }
  }
  std::sort(out.begin(), out.end(), [](const WindowsFileAccess& x, const WindowsFileAccess& y) {
    return x.path < y.path;
  });
  facts.windows.file_access = std::move(out);
}

} // namespace doctor::collect
