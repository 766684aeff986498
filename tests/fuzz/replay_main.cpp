// SPDX-License-Identifier: MIT
// Replays a fuzz target's corpus without libFuzzer (the gcc build): every file given on the
// command line, or every file in each directory given, is passed to LLVMFuzzerTestOneInput once.
// A crash, sanitizer report or hang fails the ctest that runs it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  int count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(p)) {
        if (e.is_regular_file()) {
          files.push_back(e.path());
        }
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        count += replay(f);
      }
    } else {
      count += replay(p);
    }
  }
  // An empty corpus means the test checks nothing: fail loudly.
  std::printf("replayed %d inputs\n", count);
  return count > 0 ? 0 : 1;
}
