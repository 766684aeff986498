#!/usr/bin/env bash
# Builds the release cudnn-doctor.exe for 64-bit Windows with mingw-w64 (the `windows` preset,
# without the tests, in build/windows-release): one static executable with its manifest and
# version resource, stripped, then checked to import only DLLs that ship with Windows.
#
#   scripts/build-windows-release.sh      # writes build/windows-release/dist/cudnn-doctor.exe
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/windows-release
cmake --preset windows -B "$build" -DDOCTOR_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target cudnn-doctor -j "${JOBS:-$(nproc)}"
mkdir -p "$build/dist"
x86_64-w64-mingw32-strip --strip-all -o "$build/dist/cudnn-doctor.exe" "$build/src/cli/cudnn-doctor.exe"
./scripts/check-windows-imports.sh "$build/dist/cudnn-doctor.exe"
echo "$build/dist/cudnn-doctor.exe ($(stat -c %s "$build/dist/cudnn-doctor.exe") bytes)"
