#!/usr/bin/env bash
# Installs what is needed, builds everything and runs the whole default test suite:
#   1. the Linux CI build (warnings as errors) and every ctest test except the labels
#      gpu, realistic and fuzz-campaign (see docs/testing.md for those);
#   2. the Windows cross build (mingw-w64) and its platform-neutral unit tests under wine;
#   3. clang-tidy over src/ (naming rules and bug-prone patterns, as errors);
#   4. the unit tests (in one process), golden and fuzz-replay tests again under AddressSanitizer
#      and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

./scripts/install-deps.sh

stage() { echo "== $1 (at ${SECONDS} s)"; }

stage "Linux build and tests"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"
ctest --preset ci -j "$jobs"

stage "clang-tidy"
./scripts/lint.sh build/ci

stage "Windows cross build and unit tests under wine"
export WINEDEBUG=-all
cmake --preset windows-ci >/dev/null
cmake --build --preset windows-ci -j "$jobs"
ctest --preset windows-ci

stage "Sanitizers (unit and golden tests)"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# The unit tests in one process: ctest starts one process per test, and starting the sanitized
# binary some 700 times was most of this stage's time.
build/asan/tests/unit/doctor_unit_tests --gtest_brief=1
ctest --test-dir build/asan -L 'golden|fuzz' -j "$jobs" --output-on-failure
echo "== all tests passed (in ${SECONDS} s)"
