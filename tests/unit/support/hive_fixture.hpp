// SPDX-License-Identifier: MIT
#pragma once

// Real registry hive files for unit tests, built at test time by tests/support/make_hive.py (an
// empty hive, then Debian's hivexregedit --merge of .reg text), and the Windows disk trees that
// hold them.

#include "support/temp_tree.hpp"
#include "support/test_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

// Skips the test where hivexregedit, which builds the test hives, is not installed.
#define REQUIRE_HIVEXREGEDIT()                                                                     \
  if (!::doctor::test::hivexregedit_available()) {                                                 \
    GTEST_SKIP() << "hivexregedit is not installed (libwin-hivex-perl)";                           \
  }

namespace doctor::test {

// True if hivexregedit (libwin-hivex-perl) is installed.
inline bool hivexregedit_available() {
  static const bool k_available = std::system("command -v hivexregedit >/dev/null 2>&1") == 0;
  return k_available;
}

// Writes the hive of `reg` (regedit text whose keys are relative to the hive root: "[\\Select]")
// at host path `path`. Returns false if make_hive.py or hivexregedit fails.
inline bool make_hive(const std::filesystem::path& path, std::string_view reg) {
  const std::filesystem::path script =
      std::filesystem::path(test_data_dir()) / ".." / ".." / "support" / "make_hive.py";
  const std::filesystem::path reg_file = path.string() + ".reg";
  write_file(reg_file, std::string("Windows Registry Editor Version 5.00\n\n") + std::string(reg));
  const std::string cmd = "python3 '" + script.string() + "' '" + path.string() + "' '"
                          + reg_file.string() + "' >/dev/null 2>&1";
  const bool ok = std::system(cmd.c_str()) == 0;
  std::filesystem::remove(reg_file);
  return ok;
}

} // namespace doctor::test
