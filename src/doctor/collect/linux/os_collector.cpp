// SPDX-License-Identifier: MIT
#include <doctor/collect/collect.hpp>
#include <doctor/collect/read_failure.hpp>
#include <doctor/collect/read_limits.hpp>
#include <doctor/formats/text_formats.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

constexpr std::size_t k_max_libc = std::size_t{32} * 1024 * 1024;

// Where glibc's libc.so.6 lives on the distributions we know, with the architecture each
// directory implies. The first existing one wins.
struct LibcCandidate {
  const char* path;
  const char* arch;
};
constexpr LibcCandidate k_libc_candidates[] = {
    {"/lib/x86_64-linux-gnu/libc.so.6", "x86_64"},
    {"/usr/lib/x86_64-linux-gnu/libc.so.6", "x86_64"},
    {"/lib/aarch64-linux-gnu/libc.so.6", "aarch64"},
    {"/usr/lib/aarch64-linux-gnu/libc.so.6", "aarch64"},
    {"/lib/powerpc64le-linux-gnu/libc.so.6", "ppc64le"},
    {"/usr/lib/powerpc64le-linux-gnu/libc.so.6", "ppc64le"},
    {"/lib64/libc.so.6", ""},
    {"/usr/lib64/libc.so.6", ""},
    {"/lib/libc.so.6", ""},
    {"/usr/lib/libc.so.6", ""},
};

// ELF e_machine values of the architectures CUDA supports.
std::string arch_from_elf(std::string_view head) {
  if (head.size() < 20 || head.substr(0, 4) != "\x7f" "ELF") {
    return {};
  }
  const auto lo = static_cast<unsigned char>(head[18]);
  const auto hi = static_cast<unsigned char>(head[19]);
  const unsigned machine = head[5] == 2 ? (lo << 8U) | hi : lo | (hi << 8U);
  switch (machine) {
  case 62:
    return "x86_64";
  case 183:
    return "aarch64";
  case 21:
    return "ppc64le";
  case 3:
    return "i386";
  default:
    return {};
  }
}

// glibc embeds "GNU C Library (…) stable release version 2.36." in libc.so.6 (the text that
// running it as a program prints). Reading it avoids executing anything from the examined tree.
std::optional<Version> glibc_version_from(std::string_view libc) {
  constexpr std::string_view k_marker = "release version ";
  std::size_t pos = libc.find("GNU C Library");
  while (pos != std::string_view::npos) {
    const auto line_end = libc.find('\0', pos);
    const std::string_view text = libc.substr(
        pos, line_end == std::string_view::npos ? std::string_view::npos : line_end - pos);
    const auto marker = text.find(k_marker);
    if (marker != std::string_view::npos) {
      if (auto v = Version::parse_prefix(text.substr(marker + k_marker.size()))) {
        return v;
      }
    }
    pos = libc.find("GNU C Library", pos + 1);
  }
  return std::nullopt;
}

void collect_os_release(const platform::SysRoot& root, OsInfo& os) {
  ReadFailure failure;
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    auto text = root.read_file(path, k_max_small_file);
    if (!text) {
      failure.note(text.error());
      continue;
    }
    const auto fields = formats::parse_os_release(*text);
    const std::string source = fmt::format("file:{}", path);
    auto get = [&](const char* key) {
      const auto it = fields.find(key);
      return it != fields.end() && !it->second.empty()
                 ? Fact<std::string>::known(util::sanitize(it->second, 200), source)
                 : Fact<std::string>::unknown(fmt::format("{} has no {}", path, key));
    };
    os.pretty_name = get("PRETTY_NAME");
    os.id = get("ID");
    os.version_id = get("VERSION_ID");
    return;
  }
  const std::string why =
      "neither /etc/os-release nor /usr/lib/os-release can be read" + failure.suffix();
  os.pretty_name = Fact<std::string>::unknown(why);
  os.id = Fact<std::string>::unknown(why);
  os.version_id = Fact<std::string>::unknown(why);
}

// What of libc.so.6 a collector reads: its ELF header (the architecture, all the loader model
// needs) or the glibc release, which is a search through the middle of the file.
enum class LibcPart { architecture, glibc_version };

void collect_libc(const platform::SysRoot& root, OsInfo& os, LibcPart part) {
  ReadFailure failure; // why a libc.so.6 that is there could not be read
  for (const LibcCandidate& c : k_libc_candidates) {
    if (part == LibcPart::architecture) {
      // The ELF header alone: 20 bytes read where a mapping of the whole file would cost a
      // mapping, a page fault and an unmapping (every `resolve` asks).
      auto real = root.resolve(c.path);
      auto file = real ? root.open_resolved(*real)
                       : Expected<platform::InputFile>(tl::unexpected(real.error()));
      if (!file) {
        failure.note(file.error());
        continue;
      }
      if (file->stat().size > k_max_libc) {
        continue;
      }
      std::string head(64, '\0');
      const auto n = file->read_at(0, head.data(), head.size());
      head.resize(n ? *n : 0);
      const std::string source = fmt::format("file:{}", c.path);
      const std::string arch = arch_from_elf(head);
      if (!arch.empty()) {
        os.architecture = Fact<std::string>::known(arch, source + " (ELF header)");
      } else if (c.arch[0] != '\0') {
        os.architecture = Fact<std::string>::known(c.arch, source + " (directory name)");
      }
      return;
    }
    // Mapped, not read: the release string sits near the middle of a 2 MB file, and only the
    // pages the search passes are touched.
    auto mapped = root.map_file(c.path);
    if (!mapped) {
      failure.note(mapped.error());
      continue;
    }
    if (mapped->data().size() > k_max_libc) {
      continue;
    }
    const std::string_view data = mapped->data();
    const std::string source = fmt::format("file:{}", c.path);
    if (auto v = glibc_version_from(data)) {
      os.glibc_version = Fact<Version>::known(*v, source);
    } else {
      os.glibc_version = Fact<Version>::unknown(
          fmt::format("{} has no glibc release string (not glibc, or damaged)", c.path));
    }
    return;
  }
  if (part == LibcPart::architecture) {
    return; // the caller's "unknown" stands
  }
  os.glibc_version = Fact<Version>::unknown(
      "no libc.so.6 in the usual directories (a musl-based system, or not a Linux root)"
      + failure.suffix());
}

} // namespace

void collect_os(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  OsInfo& os = facts.os;
  collect_os_release(root, os);

  if (auto text = root.read_file("/proc/sys/kernel/osrelease", k_max_small_file)) {
    os.kernel_release = Fact<std::string>::known(util::sanitize(util::trim(*text), 100),
                                                 "file:/proc/sys/kernel/osrelease");
  } else {
    os.kernel_release = Fact<std::string>::unknown(
        root.is_live()
            ? fmt::format("cannot read /proc/sys/kernel/osrelease ({})", text.error().message)
            : "the examined tree has no /proc/sys/kernel/osrelease: an image at rest has no "
              "running kernel");
  }
  collect_libc(root, os, LibcPart::glibc_version);

  if (auto text = root.read_file("/proc/cpuinfo", 8 * k_max_small_file)) {
    const formats::CpuInfo cpu = formats::parse_cpuinfo(*text);
    os.cpu_model = cpu.model.empty()
                       ? Fact<std::string>::unknown("/proc/cpuinfo names no CPU model")
                       : Fact<std::string>::known(cpu.model, "file:/proc/cpuinfo");
    os.cpu_count = cpu.count == 0 ? Fact<std::uint64_t>::unknown("/proc/cpuinfo lists no processor")
                                  : Fact<std::uint64_t>::known(cpu.count, "file:/proc/cpuinfo");
  } else {
    os.cpu_model = Fact<std::string>::unknown("cannot read /proc/cpuinfo");
    os.cpu_count = Fact<std::uint64_t>::unknown("cannot read /proc/cpuinfo");
  }

  auto meminfo = root.read_file("/proc/meminfo", k_max_small_file);
  const auto fields =
      meminfo ? formats::parse_meminfo(*meminfo) : std::map<std::string, std::uint64_t>{};
  auto mem = [&](const char* key) {
    if (!meminfo) {
      return Fact<std::uint64_t>::unknown("cannot read /proc/meminfo");
    }
    const auto it = fields.find(key);
    return it == fields.end()
               ? Fact<std::uint64_t>::unknown(fmt::format("/proc/meminfo has no {}", key))
               : Fact<std::uint64_t>::known(it->second, "file:/proc/meminfo");
  };
  os.memory_total = mem("MemTotal");
  os.memory_available = mem("MemAvailable");
  os.swap_total = mem("SwapTotal");
  os.swap_free = mem("SwapFree");
}

void collect_architecture(const platform::SysRoot& root, const CollectOptions&, Facts& facts) {
  facts.os.architecture = Fact<std::string>::unknown(
      "no libc.so.6 with a known ELF machine type or multiarch directory was found");
  collect_libc(root, facts.os, LibcPart::architecture);
}

} // namespace doctor::collect
