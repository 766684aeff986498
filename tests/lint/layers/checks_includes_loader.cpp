// SPDX-License-Identifier: MIT
// Must compile: checks use the loader model. The control for the files that must not compile.
#include <doctor/loader/facts_probe.hpp>
