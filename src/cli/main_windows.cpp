// SPDX-License-Identifier: MIT
// The Windows entry point (linked with -municode): the arguments come as UTF-16, as Windows holds
// them, and are passed on as UTF-8. main(argc, char**) would get them in the ANSI code page,
// where "张伟" on a Western system (or "Gérard" on a Chinese one) is already lost.
#include "run.hpp"

#include <doctor/platform/windows/wide.hpp>

#include <string>
#include <vector>

int wmain(int argc, wchar_t** argv) {
  std::vector<std::string> args;
  args.reserve(static_cast<std::size_t>(argc));
  for (int i = 0; i < argc; ++i) {
    args.push_back(doctor::platform::windows::narrow(argv[i]));
  }
  std::vector<char*> pointers;
  pointers.reserve(args.size() + 1);
  for (std::string& a : args) {
    pointers.push_back(a.data());
  }
  pointers.push_back(nullptr);
  return doctor::cli::run(argc, pointers.data());
}
