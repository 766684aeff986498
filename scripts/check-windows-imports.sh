#!/usr/bin/env bash
# Lists the DLLs a Windows executable imports (x86_64-w64-mingw32-objdump -p) and fails unless
# each one ships with every Windows 10 and 11 install, so that cudnn-doctor.exe runs on a machine
# with nothing installed: no MinGW runtime (libstdc++-6.dll, libgcc_s_seh-1.dll,
# libwinpthread-1.dll), no Visual C++ redistributable (vcruntime140.dll, msvcp140.dll), and no
# NVIDIA DLL (those are opened at run time with LoadLibrary, never imported).
#
#   scripts/check-windows-imports.sh build/windows-release/dist/cudnn-doctor.exe
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 FILE.exe" >&2
  exit 2
fi
exe=$1
objdump=${OBJDUMP:-x86_64-w64-mingw32-objdump}

# The allow-list, in lower case: system DLLs in System32 on every Windows 10/11 edition.
#   kernel32, advapi32 (registry, security), bcrypt (hashes), shell32, ole32, oleaut32, user32,
#   version (version resources), setupapi, cfgmgr32 (devices), wevtapi (event log), wintrust
#   (Authenticode), crypt32, psapi, dbghelp, ntdll, ws2_32, secur32, shlwapi, userenv;
#   msvcrt.dll, the C runtime mingw-w64 links by default (a system DLL since Windows XP);
#   the Universal CRT's API sets (api-ms-win-crt-*.dll, ucrtbase.dll), part of Windows 10 and
#   later, which a UCRT mingw-w64 toolchain links instead; and the api-ms-win-core-* sets.
allowed='^(kernel32|advapi32|bcrypt|shell32|ole32|oleaut32|user32|version|setupapi|cfgmgr32|wevtapi|wintrust|crypt32|psapi|dbghelp|ntdll|ws2_32|secur32|shlwapi|userenv|msvcrt|ucrtbase|api-ms-win-crt-[a-z0-9-]+|api-ms-win-core-[a-z0-9-]+)\.dll$'

if [ ! -f "$exe" ]; then
  echo "$0: $exe: no such file" >&2
  exit 2
fi
if ! dump=$("$objdump" -p "$exe"); then
  echo "$0: $objdump -p $exe failed" >&2
  exit 2
fi
dlls=$(printf '%s\n' "$dump" | sed -n 's/^[[:space:]]*DLL Name: //p' | tr -d '\r')
if [ -z "$dlls" ]; then
  echo "$0: $exe: no import table found (not a PE executable?)" >&2
  exit 2
fi

missing=()
while IFS= read -r dll; do
  if printf '%s\n' "$dll" | tr '[:upper:]' '[:lower:]' | grep -Eq "$allowed"; then
    echo "ok       $dll"
  else
    echo "NOT OK   $dll (does not ship with Windows)"
    missing+=("$dll")
  fi
done <<<"$dlls"
if [ ${#missing[@]} -ne 0 ]; then
  echo "$(basename "$0"): $exe imports DLLs that a plain Windows machine lacks: ${missing[*]}" >&2
  exit 1
fi
