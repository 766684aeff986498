// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/collect/linux/journal.hpp>
#include <doctor/formats/kernel_log.hpp>
#include <doctor/model/facts.hpp>
#include <doctor/platform/sysroot.hpp>
#include <doctor/util/error.hpp>

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace doctor::collect {

// Counts the machine checks among `lines` (the kernel messages of one boot, in log order) with
// the crash module's kernel-log scanner (crash/kernel_events.cpp): each "CPU N: Machine Check: …
// Bank B: STATUS" record is an event, corrected or uncorrected by its MCi_STATUS bits; a "Machine
// check events logged" notice is an event of its own (unclassified) unless a record was logged
// next to it, within two seconds. `log` names where the lines came from.
facts::MachineChecks count_machine_checks(std::span<const formats::KernelLine> lines,
                                          const std::string& log);

// Where collect_machine_checks reads kernel logs; tests replace them. `journal` reads the
// journal directories `dirs` of `root` (empty: the live machine's own journal), `kmsg` the live
// kernel's ring buffer.
struct KernelLogReaders {
  std::function<Expected<JournalRead>(const platform::SysRoot& root,
                                      const std::vector<std::string>& dirs)>
      journal;
  std::function<Expected<std::string>()> kmsg;
};

// The readers of the running system: libsystemd's journal and /dev/kmsg.
KernelLogReaders system_kernel_log_readers();

// Stores the machine checks of the current boot in facts.host_hardware.machine_checks. The live
// machine: the journal's kernel messages of this boot (/proc/sys/kernel/random/boot_id), else
// /dev/kmsg; a --sysroot tree: the newest boot its journal holds. Unknown, with why each source
// failed, where none could be read (reading either needs root or the systemd-journal group, or
// kernel.dmesg_restrict=0), and on Windows (WHEA counts machine checks there).
void collect_machine_checks(const platform::SysRoot& root,
                            const KernelLogReaders& readers,
                            facts::Facts& facts);

// The same with system_kernel_log_readers().
void collect_machine_checks(const platform::SysRoot& root, facts::Facts& facts);

} // namespace doctor::collect
