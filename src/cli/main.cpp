// SPDX-License-Identifier: MIT
#include "run.hpp"

int main(int argc, char** argv) {
  return doctor::cli::run(argc, argv);
}
