// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace doctor::collect {

// A disk `smartctl --scan --json` lists: its device path and -d type.
struct ScannedDisk {
  std::string name; // "/dev/sda"
  std::string type; // "sat"
};

// The most disks asked about; more are left out with a note.
inline constexpr std::size_t k_max_disks = 32;

// The disks in the output of `smartctl --scan --json` (its "devices" array); a name that is not
// an absolute path of printable ASCII, or a type that is not a short word, is left out (the
// names become arguments of the next smartctl run). Never more than k_max_disks. Malformed
// text gives an empty list.
std::vector<ScannedDisk> smartctl_scan_devices(std::string_view json);

// One disk's health from the output of `smartctl --json -H -A -i` for `disk`, checked: every
// value of the wrong type or out of range is left out, text is made printable and cut. A text
// that is not a JSON object gives a DiskHealth whose `passed` is unknown with that reason.
facts::DiskHealth
disk_health_from_json(const ScannedDisk& disk, std::string_view json, int exit_status);

// Where smartctl is installed on the live machine (the usual sbin and bin directories, not
// PATH: root's tools are often not on a user's PATH); empty when it is not.
std::filesystem::path find_smartctl(const platform::SysRoot& root);

// Runs smartctl (found by find_smartctl) once to list the disks and once per disk, each run a
// child process of its own session with `timeout` (a hung disk ends that run, not the doctor),
// and stores what it said in facts.host_hardware.disks; unknown with why where smartctl is not
// installed, this is not the live machine, or the scan fails.
void collect_disk_health(const platform::SysRoot& root,
                         std::chrono::milliseconds timeout,
                         facts::Facts& facts);

} // namespace doctor::collect
