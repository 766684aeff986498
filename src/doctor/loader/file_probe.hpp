// SPDX-License-Identifier: MIT
#pragma once

#include <doctor/model/facts.hpp>

#include <string>

namespace doctor::loader {

// What the loader model learns about one path.
struct PathState {
  bool known = true; // false: a snapshot that never recorded this path (cannot say)
  bool exists = false;
  bool is_dir = false;
  std::string kind; // of what the path points to: "regular", "directory", "fifo", "socket",
                    // "character_device", "block_device", "other"; "" where not recorded
  std::string real_path;
  const facts::BinaryInfo* binary = nullptr; // regular files: the headers, if read
};

// How the loader model looks at files: on the live machine (through a SysRoot, recording every
// look for the snapshot) or in a snapshot (answering from the recording). The model itself never
// touches the machine, so its answers are the same in both.
class FileProbe {
public:
  FileProbe() = default;
  FileProbe(const FileProbe&) = delete;
  FileProbe& operator=(const FileProbe&) = delete;
  virtual ~FileProbe() = default;

  // Looks at `path`, a normalised absolute inner path.
  virtual PathState probe(const std::string& path) = 0;
};

} // namespace doctor::loader
