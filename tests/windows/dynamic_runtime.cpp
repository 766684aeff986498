// SPDX-License-Identifier: MIT
// A program linked the mingw-w64 default way, without -static: it imports libstdc++-6.dll and
// libgcc_s_seh-1.dll, which no Windows machine has. windows.binary.imports_rejected holds
// scripts/check-windows-imports.sh to refusing it.
#include <cstdio>
#include <string>

int main(int argc, char** /*argv*/) {
  const std::string text(static_cast<std::size_t>(argc), 'x');
  std::puts(text.c_str());
  return 0;
}
