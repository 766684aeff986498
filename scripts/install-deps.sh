#!/usr/bin/env bash
# Installs everything cudnn-doctor needs to build and test on Debian 12 (bookworm).
# Idempotent: packages already present are skipped. Needs root (or sudo).
set -euo pipefail

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

# Build and unit tests.
PKGS=(cmake g++ make ninja-build pkg-config python3 python3-jsonschema python3-venv
      libfmt-dev nlohmann-json3-dev libcli11-dev libexpected-dev libgtest-dev libgmock-dev
      libssl-dev zlib1g-dev)
# Windows cross build and its tests under wine.
PKGS+=(g++-mingw-w64-x86-64-posix wine wine64)
# 32-bit DLLs for the Windows loader scenarios (tests/winloader: error 193).
PKGS+=(gcc-mingw-w64-i686-posix)
# Real NVIDIA user-space libraries (Debian non-free) for the no-driver path.
PKGS+=(libnvidia-ml1)
# Real systemd journal files for the crash-evidence reader's tests (libsystemd is loaded at run
# time, never linked).
PKGS+=(systemd-journal-remote libsystemd0)
# Format check and clang-tidy.
PKGS+=(clang-format-14 clang-tidy-14)
# The compiler cache every build goes through (CMakeLists.txt).
PKGS+=(ccache)
# Offline Windows registry: the hives of a mounted Windows disk (check --sysroot), and the tests
# that build hives with hivexregedit (libwin-hivex-perl; tests/support/make_hive.py).
PKGS+=(libhivex-dev libhivex-bin libwin-hivex-perl)
# bench/bench_explain.py measures explain against ripgrep.
PKGS+=(ripgrep)
# bench/bench_resolve.py and tests/cli/test_resolve_libtree.py compare `resolve --tree` with libtree.
PKGS+=(libtree)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

# NVIDIA's user-space libraries live in Debian's contrib/non-free components.
src=/etc/apt/sources.list.d/cudnn-doctor-nonfree.sources
if [[ ! -f $src ]]; then
  $SUDO tee "$src" >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
