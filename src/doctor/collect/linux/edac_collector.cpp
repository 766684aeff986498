// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/util/paths.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

// The memory error counters of Linux EDAC (Error Detection And Correction): each memory
// controller the EDAC driver of the platform registered (/sys/devices/system/edac/mc/mcN), its
// corrected and uncorrected error counts since boot, and the same per DIMM with the DIMM's label
// from the firmware (dimmN or rankN on current kernels, csrowN on older ones). The guide's RAM
// advice: a host whose memory corrects errors is a host that will one day corrupt a training run
// or crash, whatever the GPU does. Read through the SysRoot, so a fake tree tests it.
namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr const char* k_edac_dir = "/sys/devices/system/edac/mc";
constexpr std::size_t k_edac_max_file = 4096;
constexpr std::size_t k_edac_max_label = 128;
constexpr std::size_t k_edac_max_controllers = 256;
constexpr std::size_t k_edac_max_dimms = 1024; // per controller

std::optional<std::string> read_edac_text(const platform::SysRoot& root, const std::string& path) {
  auto text = root.read_file(path, k_edac_max_file, true);
  if (!text) {
    return std::nullopt;
  }
  return util::sanitize(util::trim(*text), k_edac_max_label);
}

// A counter file; nullopt when it is absent or holds no decimal count.
std::optional<std::uint64_t> read_edac_count(const platform::SysRoot& root,
                                             const std::string& path) {
  auto text = root.read_file(path, k_edac_max_file, true);
  return text ? util::parse_uint(util::trim(*text)) : std::nullopt;
}

bool edac_numbered(std::string_view name, std::string_view prefix) {
  return name.size() > prefix.size() && name.starts_with(prefix)
         && std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()),
                        name.end(),
                        [](char c) { return c >= '0' && c <= '9'; });
}

// "mc2" before "mc10": the letters, then the number.
bool edac_name_less(std::string_view a, std::string_view b) {
  const auto split = [](std::string_view s) {
    const auto digits = s.find_first_of("0123456789");
    const std::string_view head = s.substr(0, std::min(digits, s.size()));
    return std::pair(head, util::parse_uint(s.substr(head.size())).value_or(0));
  };
  return split(a) < split(b);
}

// The DIMMs of controller directory `mc`: dimmN/rankN with dimm_* files, or csrowN with its
// totals and the label of its first channel.
std::vector<EdacDimm> read_edac_dimms(const platform::SysRoot& root, const std::string& mc) {
  std::vector<EdacDimm> out;
  auto entries = root.list_dir(mc);
  if (!entries) {
    return out;
  }
  for (const platform::DirEntry& e : *entries) {
    const std::string dir = util::join_path(mc, e.name);
    EdacDimm d;
    d.name = e.name;
    std::optional<std::uint64_t> ce;
    std::optional<std::uint64_t> ue;
    if (edac_numbered(e.name, "dimm") || edac_numbered(e.name, "rank")) {
      ce = read_edac_count(root, dir + "/dimm_ce_count");
      ue = read_edac_count(root, dir + "/dimm_ue_count");
      d.label = read_edac_text(root, dir + "/dimm_label").value_or("");
    } else if (edac_numbered(e.name, "csrow")) {
      ce = read_edac_count(root, dir + "/ce_count");
      ue = read_edac_count(root, dir + "/ue_count");
      d.label = read_edac_text(root, dir + "/ch0_dimm_label").value_or("");
    } else {
      continue;
    }
    if (!ce && !ue) {
      continue;
    }
    d.ce_count = ce.value_or(0);
    d.ue_count = ue.value_or(0);
    out.push_back(std::move(d));
    if (out.size() == k_edac_max_dimms) {
      break;
    }
  }
  std::sort(out.begin(), out.end(), [](const EdacDimm& a, const EdacDimm& b) {
    return edac_name_less(a.name, b.name);
  });
  return out;
}

} // namespace

void collect_host_hardware(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  auto entries = root.list_dir(k_edac_dir);
  if (!entries) {
    facts.host_hardware.edac = Fact<std::vector<EdacController>>::unknown(
        entries.error().code == ErrorCode::not_found
            ? fmt::format("{} does not exist: no EDAC driver is loaded, so the kernel counts no "
                          "memory errors here (a virtual machine, or a platform without one)",
                          k_edac_dir)
            : fmt::format("cannot list {}: {}", k_edac_dir, entries.error().message));
    return;
  }
  std::vector<EdacController> controllers;
  for (const platform::DirEntry& e : *entries) {
    if (!edac_numbered(e.name, "mc") || controllers.size() == k_edac_max_controllers) {
      continue;
    }
    const std::string dir = util::join_path(k_edac_dir, e.name);
    EdacController mc;
    mc.name = e.name;
    mc.mc_name = read_edac_text(root, dir + "/mc_name").value_or("");
    mc.ce_count = read_edac_count(root, dir + "/ce_count").value_or(0);
    mc.ue_count = read_edac_count(root, dir + "/ue_count").value_or(0);
    mc.dimms = read_edac_dimms(root, dir);
    controllers.push_back(std::move(mc));
  }
  std::sort(controllers.begin(), controllers.end(), [](const auto& a, const auto& b) {
    return edac_name_less(a.name, b.name);
  });
  facts.host_hardware.edac = Fact<std::vector<EdacController>>::known(
      std::move(controllers), fmt::format("dir:{}", k_edac_dir));
}

} // namespace doctor::collect
