// SPDX-License-Identifier: MIT
#pragma once

#include "options.hpp"

#include <string>

namespace doctor::cli {

struct ResolveOptions {
  TargetOptions target;
  std::string name;     // the library asked for ("libcudnn_graph.so.9")
  std::string from;     // --from OBJECT: the object that asks (its RPATH/RUNPATH apply)
  std::string python;   // --python ENV: resolve a framework's whole CUDA/cuDNN set
  bool tree = false;    // --tree: NAME is an object; resolve its DT_NEEDED tree like libtree
  OutputOptions output; // --format text|json
};

// `resolve`: which copy the loader would pick, how it was found, every path considered in order,
// and every copy that lost. Returns 0 when everything asked for is found, 1 otherwise.
int run_resolve(const ResolveOptions& options);

} // namespace doctor::cli
