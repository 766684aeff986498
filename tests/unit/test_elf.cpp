// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/formats/elf.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <stdio.h>    // popen
#include <sys/mman.h> // mmap, mprotect: views whose neighbouring pages fault
#include <unistd.h>   // sysconf

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace doctor {
namespace {

using formats::ElfInfo;
using formats::ElfObject;
using formats::ElfVersionNeed;
using formats::parse_elf;
using formats::read_elf_objects;
using Strings = std::vector<std::string>;

constexpr std::uint64_t k_dt_needed = 1;
constexpr std::uint64_t k_dt_strsz = 10;
constexpr std::uint64_t k_dt_verdefnum = 0x6ffffffd;
constexpr std::uint64_t k_df_1_nodeflib = 0x800;

// ---------------------------------------------------------------------------------------------
// ELF files written byte by byte from the gABI layouts, so the reader is tested against the
// format rather than against itself.

struct Spec {
  bool is64 = true;
  bool big = false;
  unsigned machine = 62;
  unsigned type = 3;
  std::string interp;
  Strings needed;
  std::string soname;
  std::string rpath;
  std::string runpath;
  std::uint64_t flags = 0;
  std::uint64_t flags_1 = 0;
  Strings verdefs; // the first is the base entry
  std::vector<std::pair<std::string, Strings>> verneeds;
  std::string build_id; // raw bytes
  bool phdrs = true;
  bool sections = true;
  bool far_dynstr = false;       // .dynstr in its own PT_LOAD, far away, as in libcudnn_graph
  bool extended_numbers = false; // e_shnum = 0 and e_shstrndx = SHN_XINDEX, real values in [0]
};

class Image {
public:
  std::string bytes;
  std::map<std::string, std::uint64_t> at; // file offsets: "dynamic", "phdrs", "shdrs", …
  bool is64 = true;
  bool big = false;

  void put(std::uint64_t offset, std::uint64_t value, unsigned width) {
    if (bytes.size() < offset + width) {
      bytes.resize(offset + width);
    }
    for (unsigned i = 0; i < width; ++i) {
      const unsigned shift = 8 * (big ? width - 1 - i : i);
      bytes[offset + i] = static_cast<char>((value >> shift) & 0xFFU);
    }
  }

  void word(std::uint64_t offset, std::uint64_t value) { put(offset, value, is64 ? 8 : 4); }

  std::uint64_t get(std::uint64_t offset, unsigned width) const {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < width; ++i) {
      const unsigned idx = big ? i : width - 1 - i;
      v = (v << 8U) | static_cast<unsigned char>(bytes.at(offset + idx));
    }
    return v;
  }

  // The file offset of the value of the first dynamic entry with `tag`.
  std::uint64_t dynamic_value(std::uint64_t tag) const {
    const unsigned w = is64 ? 8 : 4;
    for (std::uint64_t e = at.at("dynamic");; e += 2 * w) {
      if (get(e, w) == tag) {
        return e + w;
      }
      if (get(e, w) == 0) {
        throw std::runtime_error("no such dynamic tag");
      }
    }
  }
};

std::uint64_t align_to(std::uint64_t v, std::uint64_t a) {
  return (v + a - 1) / a * a;
}

Image build(const Spec& spec) {
  Image img;
  img.is64 = spec.is64;
  img.big = spec.big;
  const unsigned w = spec.is64 ? 8 : 4;
  const std::uint64_t ehsize = spec.is64 ? 64 : 52;
  const std::uint64_t phentsize = spec.is64 ? 56 : 32;
  const std::uint64_t shentsize = spec.is64 ? 64 : 40;
  const std::uint64_t base = 0x400000;
  const std::uint64_t far_base = 0x800000;

  std::string dynstr(1, '\0');
  std::map<std::string, std::uint64_t> str;
  const auto add = [&](const std::string& s) {
    if (!s.empty() && !str.contains(s)) {
      str[s] = dynstr.size();
      dynstr += s;
      dynstr.push_back('\0');
    }
    return s.empty() ? 0 : str[s];
  };
  for (const auto& s : spec.needed) {
    add(s);
  }
  add(spec.soname);
  add(spec.rpath);
  add(spec.runpath);
  for (const auto& s : spec.verdefs) {
    add(s);
  }
  for (const auto& [file, versions] : spec.verneeds) {
    add(file);
    for (const auto& v : versions) {
      add(v);
    }
  }

  // Blobs: built in a scratch image of the same byte order, then placed.
  Image scratch = img;
  std::string verdef;
  for (std::size_t i = 0; i < spec.verdefs.size(); ++i) {
    scratch.bytes.clear();
    scratch.put(0, 1, 2);
    scratch.put(2, i == 0 ? 1 : 0, 2);
    scratch.put(4, i + 1, 2);
    scratch.put(6, 1, 2);
    scratch.put(8, 0x1234, 4);
    scratch.put(12, 20, 4);
    scratch.put(16, i + 1 == spec.verdefs.size() ? 0 : 28, 4);
    scratch.put(20, str[spec.verdefs[i]], 4);
    scratch.put(24, 0, 4);
    verdef += scratch.bytes;
  }
  std::string verneed;
  for (std::size_t i = 0; i < spec.verneeds.size(); ++i) {
    const auto& [file, versions] = spec.verneeds[i];
    scratch.bytes.clear();
    scratch.put(0, 1, 2);
    scratch.put(2, versions.size(), 2);
    scratch.put(4, str[file], 4);
    scratch.put(8, 16, 4);
    scratch.put(12, i + 1 == spec.verneeds.size() ? 0 : 16 + 16 * versions.size(), 4);
    for (std::size_t k = 0; k < versions.size(); ++k) {
      const std::uint64_t a = 16 + 16 * k;
      scratch.put(a, 0x5678, 4);
      scratch.put(a + 4, 0, 2);
      scratch.put(a + 6, 10 + k, 2);
      scratch.put(a + 8, str[versions[k]], 4);
      scratch.put(a + 12, k + 1 == versions.size() ? 0 : 16, 4);
    }
    verneed += scratch.bytes;
  }
  std::string note;
  if (!spec.build_id.empty()) {
    scratch.bytes.clear();
    scratch.put(0, 4, 4);
    scratch.put(4, spec.build_id.size(), 4);
    scratch.put(8, 3, 4);
    note = scratch.bytes + std::string("GNU\0", 4) + spec.build_id;
    note.resize(align_to(note.size(), 4));
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tags;
  for (const auto& s : spec.needed) {
    tags.emplace_back(k_dt_needed, str[s]);
  }
  if (!spec.soname.empty()) {
    tags.emplace_back(14, str[spec.soname]);
  }
  if (!spec.rpath.empty()) {
    tags.emplace_back(15, str[spec.rpath]);
  }
  if (!spec.runpath.empty()) {
    tags.emplace_back(29, str[spec.runpath]);
  }
  tags.emplace_back(5, 0); // DT_STRTAB, patched below
  tags.emplace_back(k_dt_strsz, dynstr.size());
  if (spec.flags != 0) {
    tags.emplace_back(30, spec.flags);
  }
  if (spec.flags_1 != 0) {
    tags.emplace_back(0x6ffffffb, spec.flags_1);
  }
  if (!verdef.empty()) {
    tags.emplace_back(0x6ffffffc, 0);
    tags.emplace_back(k_dt_verdefnum, spec.verdefs.size());
  }
  if (!verneed.empty()) {
    tags.emplace_back(0x6ffffffe, 0);
    tags.emplace_back(0x6fffffff, spec.verneeds.size());
  }
  tags.emplace_back(0, 0);

  // Layout.
  std::vector<std::pair<std::string, std::string>> blobs;
  if (!spec.interp.empty()) {
    blobs.emplace_back(".interp", spec.interp + '\0');
  }
  if (!note.empty()) {
    blobs.emplace_back(".note.gnu.build-id", note);
  }
  if (!verdef.empty()) {
    blobs.emplace_back(".gnu.version_d", verdef);
  }
  if (!verneed.empty()) {
    blobs.emplace_back(".gnu.version_r", verneed);
  }
  blobs.emplace_back(".dynamic", std::string(tags.size() * 2 * w, '\0'));
  blobs.emplace_back(".dynstr", dynstr);
  const std::size_t nph =
      spec.phdrs ? 2 + !spec.interp.empty() + !note.empty() + spec.far_dynstr : 0;
  std::uint64_t off = ehsize + nph * phentsize;
  std::map<std::string, std::uint64_t> where;
  std::uint64_t main_end = 0;
  for (const auto& [name, data] : blobs) {
    if (name == ".dynstr" && spec.far_dynstr) {
      main_end = off;
      off = align_to(off, 0x1000) + 0x3000; // a gap, like .bss in the real library
    }
    off = align_to(off, 8);
    where[name] = off;
    off += data.size();
  }
  if (!spec.far_dynstr) {
    main_end = off;
  }
  const auto vaddr = [&](const std::string& name) {
    return (spec.far_dynstr && name == ".dynstr" ? far_base : base) + where[name];
  };
  const std::uint64_t shstrtab_at = off;
  std::string shstrtab(1, '\0');
  std::map<std::string, std::uint64_t> shname;
  for (const auto& [name, data] : blobs) {
    shname[name] = shstrtab.size();
    shstrtab += name + '\0';
  }
  shname[".shstrtab"] = shstrtab.size();
  shstrtab += std::string(".shstrtab") + '\0';
  off += shstrtab.size();
  const std::uint64_t shoff = align_to(off, 8);
  const std::uint64_t shnum = spec.sections ? blobs.size() + 2 : 0;

  img.bytes.assign(ehsize, '\0');
  img.bytes.replace(0,
                    4,
                    "\x7f"
                    "ELF");
  img.bytes[4] = static_cast<char>(spec.is64 ? 2 : 1);
  img.bytes[5] = static_cast<char>(spec.big ? 2 : 1);
  img.bytes[6] = 1;
  img.put(16, spec.type, 2);
  img.put(18, spec.machine, 2);
  img.put(20, 1, 4);
  const std::uint64_t h = spec.is64 ? 0 : 12; // 32-bit fields after e_entry come 12 bytes earlier
  img.word(spec.is64 ? 32 : 28, spec.phdrs ? ehsize : 0);
  img.word(spec.is64 ? 40 : 32, spec.sections ? shoff : 0);
  img.put(52 - h, ehsize, 2);
  img.put(54 - h, phentsize, 2);
  img.put(56 - h, nph, 2);
  img.put(58 - h, shentsize, 2);
  img.put(60 - h, spec.extended_numbers ? 0 : shnum, 2);
  img.put(62 - h, spec.extended_numbers ? 0xffff : shnum - 1, 2);
  img.at["phdrs"] = ehsize;
  img.at["shdrs"] = shoff;
  img.at["shstrtab"] = shstrtab_at;

  for (const auto& [name, data] : blobs) {
    img.bytes.resize(std::max<std::uint64_t>(img.bytes.size(), where[name]));
    img.bytes.replace(where[name], data.size(), data);
    img.at[name.substr(1)] = where[name]; // "dynamic", "dynstr", "gnu.version_d", …
  }
  img.bytes.resize(shstrtab_at);
  img.bytes += shstrtab;
  img.bytes.resize(spec.sections ? shoff + shnum * shentsize : img.bytes.size());

  // Dynamic entries, with addresses of the tables they point to.
  std::uint64_t e = where[".dynamic"];
  for (auto [tag, value] : tags) {
    value = tag == 5            ? vaddr(".dynstr")
            : tag == 0x6ffffffc ? vaddr(".gnu.version_d")
            : tag == 0x6ffffffe ? vaddr(".gnu.version_r")
                                : value;
    img.word(e, tag);
    img.word(e + w, value);
    e += 2 * w;
  }

  std::uint64_t ph = ehsize;
  const auto phdr =
      [&](std::uint64_t type, std::uint64_t offset, std::uint64_t va, std::uint64_t sz) {
        img.put(ph, type, 4);
        if (spec.is64) {
          img.put(ph + 4, 4, 4);
          img.put(ph + 8, offset, 8);
          img.put(ph + 16, va, 8);
          img.put(ph + 24, va, 8);
          img.put(ph + 32, sz, 8);
          img.put(ph + 40, sz, 8);
          img.put(ph + 48, type == 1 ? 0x1000 : 4, 8);
        } else {
          img.put(ph + 4, offset, 4);
          img.put(ph + 8, va, 4);
          img.put(ph + 12, va, 4);
          img.put(ph + 16, sz, 4);
          img.put(ph + 20, sz, 4);
          img.put(ph + 24, 4, 4);
          img.put(ph + 28, type == 1 ? 0x1000 : 4, 4);
        }
        ph += phentsize;
      };
  if (spec.phdrs) {
    phdr(1, 0, base, main_end);
    if (spec.far_dynstr) {
      phdr(1, where[".dynstr"], vaddr(".dynstr"), dynstr.size());
    }
    if (!spec.interp.empty()) {
      phdr(3, where[".interp"], vaddr(".interp"), spec.interp.size() + 1);
    }
    phdr(2, where[".dynamic"], vaddr(".dynamic"), tags.size() * 2 * w);
    if (!note.empty()) {
      phdr(4, where[".note.gnu.build-id"], vaddr(".note.gnu.build-id"), note.size());
    }
  }

  if (spec.sections) {
    std::uint64_t sh = shoff + shentsize;
    std::uint64_t index = 1;
    std::uint64_t dynstr_index = 0;
    for (const auto& [name, data] : blobs) {
      dynstr_index = name == ".dynstr" ? index : dynstr_index;
      ++index;
    }
    if (spec.extended_numbers) {
      img.word(shoff + (spec.is64 ? 32 : 20), shnum);       // sh_size
      img.put(shoff + (spec.is64 ? 40 : 24), shnum - 1, 4); // sh_link
    }
    const auto shdr = [&](const std::string& name,
                          std::uint64_t type,
                          std::uint64_t flags,
                          std::uint64_t addr,
                          std::uint64_t offset,
                          std::uint64_t size,
                          std::uint64_t link,
                          std::uint64_t info) {
      img.put(sh, shname[name], 4);
      img.put(sh + 4, type, 4);
      img.word(sh + 8, flags);
      img.word(sh + (spec.is64 ? 16 : 12), addr);
      img.word(sh + (spec.is64 ? 24 : 16), offset);
      img.word(sh + (spec.is64 ? 32 : 20), size);
      img.put(sh + (spec.is64 ? 40 : 24), link, 4);
      img.put(sh + (spec.is64 ? 44 : 28), info, 4);
      img.word(sh + (spec.is64 ? 48 : 32), 4);
      sh += shentsize;
    };
    for (const auto& [name, data] : blobs) {
      const std::uint64_t type = name == ".interp"              ? 1
                                 : name == ".note.gnu.build-id" ? 7
                                 : name == ".gnu.version_d"     ? 0x6ffffffd
                                 : name == ".gnu.version_r"     ? 0x6ffffffe
                                 : name == ".dynamic"           ? 6
                                                                : 3;
      const std::uint64_t info = name == ".gnu.version_d"   ? spec.verdefs.size()
                                 : name == ".gnu.version_r" ? spec.verneeds.size()
                                                            : 0;
      const bool linked = type == 6 || type == 0x6ffffffd || type == 0x6ffffffe;
      shdr(name, type, 2, vaddr(name), where[name], data.size(), linked ? dynstr_index : 0, info);
    }
    shdr(".shstrtab", 3, 0, 0, shstrtab_at, shstrtab.size(), 0, 0);
  }
  return img;
}

const std::string k_build_id = std::string("\x01\x23\x45\x67\x89\xab\xcd\xef\x10\x32", 10);

Spec full_spec() {
  Spec s;
  s.interp = "/lib/ld-test.so.1";
  s.needed = {"libcudnn_graph.so.9", "libz.so.1"};
  s.soname = "libcudnn_test.so.9";
  s.rpath = "$ORIGIN/../lib:/opt/a";
  s.runpath = "$ORIGIN::/opt/b";
  s.flags = 0x8;
  s.flags_1 = k_df_1_nodeflib;
  s.verdefs = {"libcudnn_test.so.9", "CUDNN_9"};
  s.verneeds = {{"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.34"}}, {"libz.so.1", {"ZLIB_1.2.9"}}};
  s.build_id = k_build_id;
  return s;
}

void expect_full(const ElfInfo& info, const Spec& spec) {
  EXPECT_EQ(info.elf_class, spec.is64 ? 64U : 32U);
  EXPECT_EQ(info.big_endian, spec.big);
  EXPECT_EQ(info.machine, spec.machine);
  EXPECT_EQ(info.type, spec.type);
  EXPECT_EQ(info.soname, "libcudnn_test.so.9");
  EXPECT_EQ(info.needed, (Strings{"libcudnn_graph.so.9", "libz.so.1"}));
  EXPECT_EQ(info.rpath, (Strings{"$ORIGIN/../lib", "/opt/a"}));
  EXPECT_EQ(info.runpath, (Strings{"$ORIGIN", "", "/opt/b"})); // empty: the current directory
  EXPECT_EQ(info.flags, 0x8U);
  EXPECT_TRUE(info.nodeflib());
  EXPECT_EQ(info.version_definitions, (Strings{"libcudnn_test.so.9", "CUDNN_9"}));
  EXPECT_EQ(info.version_needs,
            (std::vector<ElfVersionNeed>{{"libc.so.6", {"GLIBC_2.2.5", "GLIBC_2.34"}},
                                         {"libz.so.1", {"ZLIB_1.2.9"}}}));
  EXPECT_EQ(info.build_id, "0123456789abcdef1032");
}

bool has_problem(const ElfInfo& info, std::string_view fragment) {
  return std::any_of(info.problems.begin(), info.problems.end(), [&](const std::string& p) {
    return p.find(fragment) != std::string::npos;
  });
}

std::string problems_of(const ElfInfo& info) {
  std::string out;
  for (const auto& p : info.problems) {
    out += "  " + p + "\n";
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Views whose neighbouring pages are inaccessible, so that a read outside the view faults even
// in a build without sanitizers.

std::size_t page_size() {
  return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

class GuardedView {
public:
  // Copies `bytes` so that they end exactly where an inaccessible page starts; the page before
  // them is inaccessible too.
  explicit GuardedView(std::string_view bytes) {
    const std::size_t page = page_size();
    const std::size_t body = align_to(std::max<std::size_t>(bytes.size(), 1), page);
    m_length = body + 2 * page;
    void* p = ::mmap(nullptr, m_length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      throw std::runtime_error("mmap failed");
    }
    m_base = static_cast<char*>(p);
    char* body_start = m_base + page;
    ::mprotect(body_start, body, PROT_READ | PROT_WRITE);
    char* start = body_start + body - bytes.size();
    std::memcpy(start, bytes.data(), bytes.size());
    ::mprotect(body_start, body, PROT_READ);
    m_view = std::string_view(start, bytes.size());
  }
  GuardedView(const GuardedView&) = delete;
  GuardedView& operator=(const GuardedView&) = delete;
  ~GuardedView() { ::munmap(m_base, m_length); }

  std::string_view view() const { return m_view; }

private:
  char* m_base = nullptr;
  std::size_t m_length = 0;
  std::string_view m_view;
};

// ---------------------------------------------------------------------------------------------
// Host tools, used only to build fixtures and to cross-check the reader.

std::string run_capture(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) {
    return out;
  }
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    out.append(buffer, n);
  }
  ::pclose(pipe);
  return out;
}

bool readelf_available() {
  static const bool k_available = std::system("readelf --version >/dev/null 2>&1") == 0;
  return k_available;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string bracketed(const std::string& line) {
  const auto open = line.find('[');
  const auto close = line.rfind(']');
  return open == std::string::npos || close == std::string::npos || close < open
             ? ""
             : line.substr(open + 1, close - open - 1);
}

std::string after(const std::string& line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string::npos) {
    return "";
  }
  std::istringstream rest(line.substr(at + key.size()));
  std::string word;
  rest >> word;
  return word;
}

Strings split_colons(const std::string& s) {
  Strings out;
  std::size_t start = 0;
  while (!s.empty()) {
    const auto colon = s.find(':', start);
    out.push_back(s.substr(start, colon - start));
    if (colon == std::string::npos) {
      break;
    }
    start = colon + 1;
  }
  return out;
}

// What readelf says about the fields parse_elf reads.
ElfInfo readelf_facts(const std::filesystem::path& path) {
  ElfInfo r;
  const std::string file = "'" + path.string() + "'";
  std::istringstream dyn(run_capture("readelf -dW " + file));
  for (std::string line; std::getline(dyn, line);) {
    if (line.find("(NEEDED)") != std::string::npos) {
      r.needed.push_back(bracketed(line));
    } else if (line.find("(SONAME)") != std::string::npos) {
      r.soname = bracketed(line);
    } else if (line.find("(RPATH)") != std::string::npos) {
      r.rpath = split_colons(bracketed(line));
    } else if (line.find("(RUNPATH)") != std::string::npos) {
      r.runpath = split_colons(bracketed(line));
    } else if (line.find("(FLAGS_1)") != std::string::npos
               && line.find("NODEFLIB") != std::string::npos) {
      r.flags_1 |= k_df_1_nodeflib;
    }
  }
  std::istringstream ver(run_capture("readelf -VW " + file));
  enum { none, defs, needs } part = none;
  for (std::string line; std::getline(ver, line);) {
    if (line.starts_with("Version definition section")) {
      part = defs;
    } else if (line.starts_with("Version needs section")) {
      part = needs;
    } else if (line.starts_with("Version symbols section")) {
      part = none;
    } else if (part == defs && line.find("Name: ") != std::string::npos) {
      r.version_definitions.push_back(after(line, "Name: "));
    } else if (part == needs && line.find("File: ") != std::string::npos) {
      r.version_needs.push_back({after(line, "File: "), {}});
    } else if (part == needs && line.find("Name: ") != std::string::npos
               && !r.version_needs.empty()) {
      r.version_needs.back().versions.push_back(after(line, "Name: "));
    }
  }
  std::istringstream notes(run_capture("readelf -nW " + file));
  for (std::string line; std::getline(notes, line);) {
    if (line.find("Build ID: ") != std::string::npos && r.build_id.empty()) {
      r.build_id = after(line, "Build ID: ");
    }
  }
  std::istringstream segs(run_capture("readelf -lW " + file));
  for (std::string line; std::getline(segs, line);) {
    if (line.find("Requesting program interpreter: ") != std::string::npos) {
      const auto key = line.find(": ") + 2;
      r.interpreter = line.substr(key, line.rfind(']') - key);
    }
  }
  return r;
}

// The layout readelf reports: the header tables and every section and segment.
struct Layout {
  struct Range {
    std::string name; // a section name or a segment type
    std::string type;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
  };
  std::uint64_t phoff = 0, phentsize = 0, phnum = 0, shoff = 0, shentsize = 0, shnum = 0;
  std::vector<Range> sections;
  std::vector<Range> segments;
  Strings section_names;

  // The end of the last byte any header points to.
  std::uint64_t referenced_end() const {
    std::uint64_t end = std::max(phoff + phnum * phentsize, shoff + shnum * shentsize);
    for (const auto& s : sections) {
      end = s.type == "NOBITS" ? end : std::max(end, s.offset + s.size);
    }
    for (const auto& p : segments) {
      end = std::max(end, p.offset + p.size);
    }
    return end;
  }
};

Layout readelf_layout(const std::filesystem::path& path) {
  Layout l;
  std::istringstream out(run_capture("readelf -hlSW '" + path.string() + "'"));
  const auto number = [](const std::string& line) {
    const auto colon = line.find(':');
    return std::stoull(line.substr(colon + 1), nullptr, 0);
  };
  for (std::string line; std::getline(out, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (line.find("Start of program headers:") != std::string::npos) {
      l.phoff = number(line);
    } else if (line.find("Size of program headers:") != std::string::npos) {
      l.phentsize = number(line);
    } else if (line.find("Number of program headers:") != std::string::npos) {
      l.phnum = number(line);
    } else if (line.find("Start of section headers:") != std::string::npos) {
      l.shoff = number(line);
    } else if (line.find("Size of section headers:") != std::string::npos) {
      l.shentsize = number(line);
    } else if (line.find("Number of section headers:") != std::string::npos) {
      l.shnum = number(line);
    } else if (line.starts_with("  [") && line.find(']') != std::string::npos
               && line.find("Nr]") == std::string::npos) {
      std::istringstream rest(line.substr(line.find(']') + 1));
      Layout::Range r;
      std::string addr, off, size;
      if (line.find("[ 0]") == std::string::npos) {
        rest >> r.name;
      }
      rest >> r.type >> addr >> off >> size;
      r.offset = std::stoull(off, nullptr, 16);
      r.size = std::stoull(size, nullptr, 16);
      l.sections.push_back(r);
      l.section_names.push_back(r.name);
    } else if (first == "LOAD" || first == "DYNAMIC" || first == "NOTE" || first == "INTERP") {
      Layout::Range r;
      std::string off, vaddr, paddr, filesz;
      words >> off >> vaddr >> paddr >> filesz;
      r.name = first;
      r.type = first;
      r.offset = std::stoull(off, nullptr, 16);
      r.size = std::stoull(filesz, nullptr, 16);
      l.segments.push_back(r);
    }
  }
  return l;
}

void expect_matches_readelf(const ElfInfo& info, const std::filesystem::path& path) {
  const ElfInfo want = readelf_facts(path);
  EXPECT_EQ(info.soname, want.soname);
  EXPECT_EQ(info.needed, want.needed);
  EXPECT_EQ(info.rpath, want.rpath);
  EXPECT_EQ(info.runpath, want.runpath);
  EXPECT_EQ(info.nodeflib(), want.nodeflib());
  EXPECT_EQ(info.version_definitions, want.version_definitions);
  EXPECT_EQ(info.version_needs, want.version_needs);
  EXPECT_EQ(info.build_id, want.build_id);
  EXPECT_EQ(info.interpreter, want.interpreter);
  EXPECT_EQ(info.section_names, readelf_layout(path).section_names);
}

// Libraries built once for the suite with the system gcc.
struct GccFixtures {
  std::unique_ptr<test::TempDir> dir;
  bool ok = false;
  std::filesystem::path dep, with_rpath, with_runpath, executable;
};

bool sh(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

const GccFixtures& gcc_fixtures() {
  static const GccFixtures k_fixtures = [] {
    GccFixtures f;
    if (!test::gcc_available()) {
      return f;
    }
    f.dir = std::make_unique<test::TempDir>();
    const auto& d = f.dir->path();
    f.dir->write("dep.c", "int f(void) { return 42; }\n");
    f.dir->write("dep.map", "MYLIB_1.0 { global: f; local: *; };\n");
    f.dir->write("main.c", "int f(void);\nint g(void) { return f(); }\n");
    f.dir->write("exe.c", "int main(void) { return 0; }\n");
    f.dep = d / "libdep.so.1";
    f.with_rpath = d / "libwithrpath.so";
    f.with_runpath = d / "libwithrunpath.so";
    f.executable = d / "exe";
    const std::string cd = "cd '" + d.string() + "' && ";
    // GNU ld spells DF_1_NODEFLIB "-z nodefaultlib"; it ignores lld's "-z nodeflib" with a warning.
    f.ok = sh(cd + "gcc -shared -fPIC -Wl,-soname,libdep.so.1 -Wl,--version-script=dep.map "
                   "-Wl,--build-id=sha1 -o libdep.so.1 dep.c")
           && sh(cd + "gcc -shared -fPIC -Wl,-soname,libwithrpath.so.2 -o libwithrpath.so main.c "
                      "-L. -l:libdep.so.1 -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../lib' "
                      "-Wl,--build-id=sha1")
           && sh(cd + "gcc -shared -fPIC -Wl,-soname,libwithrunpath.so.3 -o libwithrunpath.so "
                      "main.c -L. -l:libdep.so.1 "
                      "-Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib:/opt/cudnn/lib' "
                      "-Wl,-z,nodefaultlib -Wl,--build-id=sha1")
           && sh(cd + "gcc -o exe exe.c -L. -l:libdep.so.1 -Wl,--build-id=sha1");
    return f;
  }();
  return k_fixtures;
}

#define REQUIRE_GCC_FIXTURES()                                                                     \
  if (!gcc_fixtures().ok) {                                                                        \
    GTEST_SKIP() << "gcc cannot build the ELF fixtures here";                                      \
  }

ElfInfo parse_file(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  const GuardedView view(bytes);
  auto info = parse_elf(view.view());
  if (!info) {
    ADD_FAILURE() << path << ": " << info.error().message;
    return {};
  }
  return *info;
}

const std::filesystem::path k_cuda_lib = "/usr/local/cuda/lib64";

// ---------------------------------------------------------------------------------------------

TEST(elf, is_elf_checks_the_magic_only) {
  EXPECT_TRUE(
      formats::is_elf("\x7f"
                      "ELF"));
  EXPECT_TRUE(formats::is_elf(build(full_spec()).bytes));
  EXPECT_FALSE(formats::is_elf(""));
  EXPECT_FALSE(
      formats::is_elf("\x7f"
                      "EL"));
  EXPECT_FALSE(formats::is_elf("MZ\x90"));
}

TEST(elf, rejects_non_elf_data_and_truncated_headers_with_a_parse_error) {
  std::string ident = build(full_spec()).bytes.substr(0, 64);
  for (const std::string_view bad : {std::string_view(""),
                                     std::string_view("\x7f"
                                                      "ELF"),
                                     std::string_view("MZ not elf"),
                                     std::string_view(ident).substr(0, 15),
                                     std::string_view(ident).substr(0, 63)}) {
    const GuardedView view(bad);
    const auto info = parse_elf(view.view());
    ASSERT_FALSE(info) << bad.size();
    EXPECT_EQ(info.error().code, ErrorCode::parse);
  }
  ident[4] = 3; // no such class
  EXPECT_FALSE(parse_elf(ident));
  ident[4] = 2;
  ident[5] = 0; // no such encoding
  EXPECT_FALSE(parse_elf(ident));
}

TEST(elf, machine_names_follow_ldconfig_spelling) {
  EXPECT_EQ(formats::elf_machine_name(62), "x86-64");
  EXPECT_EQ(formats::elf_machine_name(183), "aarch64");
  EXPECT_EQ(formats::elf_machine_name(3), "i386");
  EXPECT_EQ(formats::elf_machine_name(21), "ppc64");
  EXPECT_EQ(formats::elf_machine_name(0x1234), "machine 0x1234");
}

TEST(elf, reads_every_field_in_both_classes_and_byte_orders) {
  for (const bool is64 : {true, false}) {
    for (const bool big : {false, true}) {
      SCOPED_TRACE(fmt::format("{}-bit {}", is64 ? 64 : 32, big ? "big endian" : "little endian"));
      Spec spec = full_spec();
      spec.is64 = is64;
      spec.big = big;
      spec.machine = big ? 21 : (is64 ? 62 : 3);
      const Image img = build(spec);
      const GuardedView view(img.bytes);
      const auto info = parse_elf(view.view());
      ASSERT_TRUE(info) << info.error().message;
      expect_full(*info, spec);
      EXPECT_EQ(info->interpreter, "/lib/ld-test.so.1");
      EXPECT_EQ(info->machine_name, big ? "ppc64" : (is64 ? "x86-64" : "i386"));
      EXPECT_EQ(info->section_names,
                (Strings{"",
                         ".interp",
                         ".note.gnu.build-id",
                         ".gnu.version_d",
                         ".gnu.version_r",
                         ".dynamic",
                         ".dynstr",
                         ".shstrtab"}));
      EXPECT_TRUE(info->problems.empty()) << problems_of(*info);
    }
  }
}

TEST(elf, maps_a_far_dynstr_through_its_own_pt_load_segment) {
  // libcudnn_graph.so.9 keeps .dynstr in a third PT_LOAD after .bss; without section headers
  // only the segments can say where it lies.
  Spec spec = full_spec();
  spec.far_dynstr = true;
  spec.sections = false;
  const Image img = build(spec);
  ASSERT_GT(img.at.at("dynstr") - img.at.at("dynamic"), 0x2000U);
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  expect_full(*info, spec);
  EXPECT_TRUE(info->section_names.empty());
  EXPECT_TRUE(info->problems.empty()) << problems_of(*info);
}

TEST(elf, falls_back_to_section_headers_without_program_headers) {
  Spec spec = full_spec();
  spec.phdrs = false;
  const auto info = parse_elf(build(spec).bytes);
  ASSERT_TRUE(info);
  expect_full(*info, spec);
  EXPECT_EQ(info->interpreter, ""); // PT_INTERP only
  EXPECT_TRUE(info->problems.empty()) << problems_of(*info);
}

TEST(elf, falls_back_to_section_headers_when_the_program_header_table_is_outside_the_file) {
  Spec spec = full_spec();
  spec.far_dynstr = true;
  Image img = build(spec);
  img.word(img.is64 ? 32 : 28, 0x7fff0000); // e_phoff
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  expect_full(*info, spec);
  EXPECT_TRUE(has_problem(*info, "program header table at offset 2147418112"))
      << problems_of(*info);
  EXPECT_TRUE(has_problem(*info, "past the end of the")) << problems_of(*info);
}

TEST(elf, maps_through_sections_and_says_so_when_no_pt_load_covers_an_address) {
  Spec spec = full_spec();
  spec.far_dynstr = true;
  Image img = build(spec);
  // Point the second PT_LOAD (the one holding .dynstr) somewhere else.
  const std::uint64_t second = img.at.at("phdrs") + 56;
  img.put(second + 16, 0x10000000, 8);
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  expect_full(*info, spec);
  EXPECT_TRUE(
      has_problem(*info, fmt::format("DT_STRTAB address {:#x}", 0x800000 + img.at.at("dynstr"))))
      << problems_of(*info);
  EXPECT_TRUE(has_problem(*info, "is in no PT_LOAD segment; mapped through sections"))
      << problems_of(*info);
}

TEST(elf, reads_extended_section_numbering_from_section_zero) {
  Spec spec = full_spec();
  spec.extended_numbers = true;
  const auto info = parse_elf(build(spec).bytes);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->section_names.size(), 8U);
  EXPECT_EQ(info->section_names.back(), ".shstrtab");
  EXPECT_TRUE(info->problems.empty()) << problems_of(*info);
}

TEST(elf, reports_entries_smaller_than_their_structure) {
  Image img = build(full_spec());
  img.put(54, 20, 2); // e_phentsize
  img.put(58, 30, 2); // e_shentsize
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  EXPECT_TRUE(has_problem(*info,
                          "program header table entries are 20 bytes, smaller than the "
                          "56-byte structure"))
      << problems_of(*info);
  EXPECT_TRUE(has_problem(*info, "section header table entries are 30 bytes"))
      << problems_of(*info);
  EXPECT_TRUE(info->section_names.empty());
  EXPECT_TRUE(info->soname.empty()); // neither table can locate .dynamic
}

TEST(elf, reports_an_out_of_range_e_shstrndx_and_keeps_reading) {
  Image img = build(full_spec());
  img.put(62, 99, 2);
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  EXPECT_TRUE(has_problem(*info, "e_shstrndx 99 is out of range (8 sections)"))
      << problems_of(*info);
  EXPECT_EQ(info->section_names, Strings(8, ""));
  EXPECT_EQ(info->soname, "libcudnn_test.so.9");
}

TEST(elf, reports_sections_and_segments_past_the_end_of_the_file) {
  Image img = build(full_spec());
  // .dynstr (section 6) grows past the end; so does the PT_LOAD segment.
  const std::uint64_t dynstr_header = img.at.at("shdrs") + 6 * 64;
  img.put(dynstr_header + 32, 1 << 20, 8);
  img.put(img.at.at("phdrs") + 32, 1 << 20, 8);
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  EXPECT_TRUE(has_problem(*info, "section 6 (.dynstr) ends at")) << problems_of(*info);
  EXPECT_TRUE(has_problem(*info, "PT_LOAD segment 0 ends at")) << problems_of(*info);
}

// cuDNN 8.9's sub-libraries (nvidia-cudnn-cu11 8.9.6.50) have a PT_NOTE whose bytes are a stale
// program header: glibc loads them, so a malformed note inside the file is no damage.
TEST(elf, a_malformed_note_inside_the_file_is_not_damage) {
  Image img = build(full_spec());
  const std::uint64_t note = img.at.at("note.gnu.build-id");
  img.put(note, 1, 4);             // namesz
  img.put(note + 4, 0x56a6000, 4); // descsz far past the note area, still a 4-byte field
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->problems.empty()) << problems_of(*info);
  EXPECT_TRUE(info->build_id.empty());
  EXPECT_EQ(info->soname, "libcudnn_test.so.9");
}

TEST(elf, reports_string_offsets_outside_the_table_and_unterminated_strings) {
  Image img = build(full_spec());
  img.word(img.dynamic_value(k_dt_needed), 5000);
  // Cut DT_STRSZ inside the last string (a version need name).
  const std::uint64_t strsz = img.get(img.dynamic_value(k_dt_strsz), 8);
  img.word(img.dynamic_value(k_dt_strsz), strsz - 3);
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  EXPECT_TRUE(has_problem(*info, "DT_NEEDED: string offset 5000 is outside the"))
      << problems_of(*info);
  EXPECT_TRUE(has_problem(*info, "is not terminated inside the")) << problems_of(*info);
  EXPECT_EQ(info->needed, Strings{"libz.so.1"});
  ASSERT_EQ(info->version_needs.size(), 2U);
  EXPECT_TRUE(info->version_needs[1].versions.empty()); // "ZLIB_1.2.9" was the cut string
}

TEST(elf, a_huge_vd_next_ends_the_chain_instead_of_wrapping_around) {
  Image img = build(full_spec());
  const std::uint64_t first = img.at.at("gnu.version_d");
  img.put(first + 16, 0xffffffff, 4); // vd_next
  img.word(img.dynamic_value(k_dt_verdefnum), 0xffffffff);
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->version_definitions, Strings{"libcudnn_test.so.9"});
  EXPECT_TRUE(has_problem(*info, "version definition 1 at offset")) << problems_of(*info);
}

TEST(elf, caps_version_chains_and_the_problem_list) {
  // 120 000 chained verdef entries without names: the reader stops at 100 000.
  Spec spec = full_spec();
  spec.verdefs.clear();
  spec.sections = false;
  Image img = build(spec);
  const std::uint64_t chain = align_to(img.bytes.size(), 8);
  constexpr std::uint64_t k_entries = 120000;
  img.bytes.resize(chain + k_entries * 20);
  for (std::uint64_t i = 0; i < k_entries; ++i) {
    img.put(chain + i * 20, 1, 2);
    img.put(chain + i * 20 + 16, i + 1 == k_entries ? 0 : 20, 4);
  }
  // A DT_VERDEF pointing at it, in place of DT_FLAGS_1; the PT_LOAD covers the whole file.
  const std::uint64_t flags_1 = img.dynamic_value(0x6ffffffb);
  img.word(flags_1 - 8, 0x6ffffffc);
  img.word(flags_1, 0x400000 + chain);
  img.put(img.at.at("phdrs") + 32, img.bytes.size(), 8);
  const auto info = parse_elf(img.bytes);
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->version_definitions.empty());
  EXPECT_TRUE(has_problem(*info, "over 100000 version entries")) << problems_of(*info);

  // 300 sections past the end: 64 problems listed, the rest counted.
  Image many = build(full_spec());
  const std::uint64_t shoff = many.bytes.size();
  many.bytes.resize(shoff + 300 * 64);
  for (std::uint64_t i = 1; i < 300; ++i) {
    many.put(shoff + i * 64 + 4, 1, 4);          // SHT_PROGBITS
    many.put(shoff + i * 64 + 24, 1U << 30U, 8); // sh_offset
    many.put(shoff + i * 64 + 32, 16, 8);        // sh_size
  }
  many.put(40, shoff, 8);
  many.put(60, 300, 2);
  many.put(62, 0, 2);
  const auto capped = parse_elf(many.bytes);
  ASSERT_TRUE(capped);
  EXPECT_EQ(capped->problems.size(), 65U);
  EXPECT_EQ(capped->problems.back(), "235 more problems not listed");
}

TEST(elf, bounds_a_dynamic_segment_that_claims_more_than_the_file) {
  Image img = build(full_spec());
  // PT_DYNAMIC is the third program header (after PT_LOAD and PT_INTERP).
  const std::uint64_t dynamic = img.at.at("phdrs") + 2 * 56;
  ASSERT_EQ(img.get(dynamic, 4), 2U);
  img.put(dynamic + 32, std::uint64_t{1} << 40U, 8);
  const GuardedView view(img.bytes);
  const auto info = parse_elf(view.view());
  ASSERT_TRUE(info);
  EXPECT_TRUE(has_problem(*info, "over the limit of 1048576")) << problems_of(*info);
  EXPECT_TRUE(has_problem(*info, "PT_DYNAMIC segment 2 ends at 1099511")) << problems_of(*info);
  EXPECT_EQ(info->soname, "libcudnn_test.so.9");
}

TEST(elf, reports_a_dynamic_section_cut_by_the_end_of_the_file) {
  Spec spec = full_spec();
  spec.sections = false;
  const Image img = build(spec);
  // Three and a half entries survive: DT_NEEDED twice and DT_SONAME.
  const std::string cut = img.bytes.substr(0, img.at.at("dynamic") + 3 * 16 + 8);
  const GuardedView view(cut);
  const auto info = parse_elf(view.view());
  ASSERT_TRUE(info);
  EXPECT_TRUE(has_problem(*info, "dynamic section is cut at entry 3 of")) << problems_of(*info);
  EXPECT_TRUE(has_problem(*info, "dynamic section has no DT_STRTAB")) << problems_of(*info);
  EXPECT_TRUE(info->needed.empty()); // no string table to read them from
}

// The seeds of the mutation runs: the full image in both classes and byte orders, with its
// section headers and without them (with .dynstr far away, as in libcudnn_graph).
std::vector<std::string> mutation_seeds() {
  std::vector<std::string> seeds;
  for (const bool is64 : {true, false}) {
    for (const bool big : {false, true}) {
      Spec spec = full_spec();
      spec.is64 = is64;
      spec.big = big;
      seeds.push_back(build(spec).bytes);
      spec.sections = false;
      spec.far_dynstr = true;
      seeds.push_back(build(spec).bytes);
    }
  }
  return seeds;
}

// Makes 1 to `max_edits` random edits to `bytes`: a random byte, 0xff, a flipped bit, or a cut.
void mutate(std::string& bytes, std::mt19937& rng, unsigned max_edits) {
  const unsigned edits = 1 + static_cast<unsigned>(rng() % max_edits);
  for (unsigned k = 0; k < edits; ++k) {
    const std::size_t at = rng() % bytes.size();
    switch (rng() % 4) {
    case 0:
      bytes[at] = static_cast<char>(rng());
      break;
    case 1:
      bytes[at] = static_cast<char>(0xff);
      break;
    case 2:
      bytes[at] ^= static_cast<char>(1U << (rng() % 8));
      break;
    default:
      bytes.resize(std::max<std::size_t>(at, 16));
      break;
    }
  }
}

TEST(elf, mutated_images_never_read_outside_the_view) {
  // A small deterministic fuzz run in every build: each view ends at an inaccessible page.
  std::mt19937 rng(12345);
  const std::vector<std::string> seeds = mutation_seeds();
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = seeds[static_cast<std::size_t>(round) % seeds.size()];
    mutate(bytes, rng, 8);
    const GuardedView view(bytes);
    const auto info = parse_elf(view.view());
    parsed += info ? 1 : 0;
  }
  EXPECT_GT(parsed, 1000);
}

// ---------------------------------------------------------------------------------------------
// Real files built by gcc, checked against readelf.

TEST(elf, gcc_library_with_rpath_matches_readelf) {
  REQUIRE_GCC_FIXTURES();
  const ElfInfo info = parse_file(gcc_fixtures().with_rpath);
  EXPECT_EQ(info.soname, "libwithrpath.so.2");
  EXPECT_EQ(info.rpath, Strings{"$ORIGIN/../lib"});
  EXPECT_TRUE(info.runpath.empty());
  EXPECT_NE(std::find(info.needed.begin(), info.needed.end(), "libdep.so.1"), info.needed.end());
  EXPECT_EQ(info.elf_class, 64U);
  EXPECT_EQ(info.type, 3U);
  EXPECT_EQ(info.build_id.size(), 40U); // sha1
  EXPECT_TRUE(info.problems.empty()) << problems_of(info);
  if (readelf_available()) {
    expect_matches_readelf(info, gcc_fixtures().with_rpath);
  }
}

TEST(elf, gcc_library_with_runpath_and_nodeflib_matches_readelf) {
  REQUIRE_GCC_FIXTURES();
  const ElfInfo info = parse_file(gcc_fixtures().with_runpath);
  EXPECT_EQ(info.soname, "libwithrunpath.so.3");
  EXPECT_EQ(info.runpath, (Strings{"$ORIGIN/../lib", "/opt/cudnn/lib"}));
  EXPECT_TRUE(info.rpath.empty());
  EXPECT_TRUE(info.nodeflib());
  EXPECT_TRUE(info.problems.empty()) << problems_of(info);
  if (readelf_available()) {
    expect_matches_readelf(info, gcc_fixtures().with_runpath);
  }
}

TEST(elf, gcc_version_script_defines_a_version_that_the_user_needs) {
  REQUIRE_GCC_FIXTURES();
  const ElfInfo dep = parse_file(gcc_fixtures().dep);
  EXPECT_EQ(dep.version_definitions, (Strings{"libdep.so.1", "MYLIB_1.0"}));
  EXPECT_EQ(dep.build_id.size(), 40U);
  const ElfInfo user = parse_file(gcc_fixtures().with_runpath);
  const auto need = std::find_if(user.version_needs.begin(),
                                 user.version_needs.end(),
                                 [](const ElfVersionNeed& n) { return n.file == "libdep.so.1"; });
  ASSERT_NE(need, user.version_needs.end());
  EXPECT_EQ(need->versions, Strings{"MYLIB_1.0"});
  if (readelf_available()) {
    expect_matches_readelf(dep, gcc_fixtures().dep);
    expect_matches_readelf(user, gcc_fixtures().with_runpath);
  }
}

TEST(elf, gcc_executable_names_its_interpreter) {
  REQUIRE_GCC_FIXTURES();
  const ElfInfo exe = parse_file(gcc_fixtures().executable);
  EXPECT_NE(exe.interpreter.find("ld-linux"), std::string::npos) << exe.interpreter;
  EXPECT_TRUE(exe.soname.empty());
  EXPECT_TRUE(exe.problems.empty()) << problems_of(exe);
  if (readelf_available()) {
    expect_matches_readelf(exe, gcc_fixtures().executable);
  }
}

TEST(elf, gcc_32_bit_library_matches_readelf) {
  REQUIRE_GCC_FIXTURES();
  const auto& d = gcc_fixtures().dir->path();
  const std::string cd = "cd '" + d.string() + "' && ";
  // Without 32-bit C libraries, a library that uses none of them still links.
  if (!sh(cd
          + "gcc -m32 -shared -fPIC -Wl,-soname,lib32.so.1 -Wl,--build-id=sha1 "
            "-Wl,-rpath,/opt/x86 -o lib32.so dep.c")
      && !sh(cd
             + "gcc -m32 -shared -fPIC -nostdlib -Wl,-soname,lib32.so.1 -Wl,--build-id=sha1 "
               "-Wl,-rpath,/opt/x86 -o lib32.so dep.c")) {
    GTEST_SKIP() << "gcc -m32 cannot build a shared object here";
  }
  const ElfInfo info = parse_file(d / "lib32.so");
  EXPECT_EQ(info.elf_class, 32U);
  EXPECT_EQ(info.machine_name, "i386");
  EXPECT_EQ(info.soname, "lib32.so.1");
  EXPECT_EQ(info.build_id.size(), 40U);
  EXPECT_TRUE(info.problems.empty()) << problems_of(info);
  if (readelf_available()) {
    expect_matches_readelf(info, d / "lib32.so");
  }
}

// ---------------------------------------------------------------------------------------------
// Truncation and page-touching checks, on gcc's output and on the real cuDNN libraries.

// Cuts `path` at every 64 bytes of its first 16 KiB and around every table, section and segment
// boundary; each cut must parse without reading outside the view, and must report a problem or
// an error whenever it removes bytes a header points to.
void check_truncations(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  const Layout layout = readelf_layout(path);
  const std::uint64_t needed_end = layout.referenced_end();
  ASSERT_LE(needed_end, bytes.size());
  std::set<std::uint64_t> cuts;
  for (std::uint64_t c = 0; c < 16384; c += 64) {
    cuts.insert(c);
  }
  std::vector<std::uint64_t> marks = {layout.phoff,
                                      layout.phoff + layout.phnum * layout.phentsize,
                                      layout.shoff,
                                      layout.shoff + layout.shnum * layout.shentsize,
                                      needed_end,
                                      bytes.size()};
  for (const auto* ranges : {&layout.sections, &layout.segments}) {
    for (const auto& r : *ranges) {
      if (r.type != "NOBITS") {
        marks.push_back(r.offset);
        marks.push_back(r.offset + r.size);
      }
    }
  }
  for (const std::uint64_t m : marks) {
    for (const std::uint64_t c : {m - 1, m, m + 1}) {
      cuts.insert(c);
    }
  }
  int checked = 0;
  for (const std::uint64_t cut : cuts) {
    if (cut > bytes.size()) {
      continue;
    }
    const GuardedView view(std::string_view(bytes).substr(0, cut));
    const auto info = parse_elf(view.view());
    if (cut < needed_end) {
      EXPECT_TRUE(!info || !info->problems.empty()) << path << " cut at " << cut;
    } else {
      ASSERT_TRUE(info) << cut;
      EXPECT_TRUE(info->problems.empty()) << path << " cut at " << cut << "\n"
                                          << problems_of(*info);
    }
    ++checked;
  }
  EXPECT_GT(checked, 256);
}

TEST(elf, truncated_gcc_library_gives_problems_never_a_crash) {
  REQUIRE_GCC_FIXTURES();
  if (!readelf_available()) {
    GTEST_SKIP() << "readelf is needed to know the layout";
  }
  check_truncations(gcc_fixtures().with_runpath);
}

// Places `bytes` at the start of a 512 MiB view in which only the pages holding the ELF header,
// the header tables and the sections parse_elf needs are readable; the rest faults. Returns the
// parse of that view.
Expected<ElfInfo> parse_touching_only_needed_pages(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  const Layout layout = readelf_layout(path);
  const std::size_t page = page_size();
  const std::size_t view_size = std::size_t{512} << 20U;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> needed = {
      {0, layout.phoff + layout.phnum * layout.phentsize},
      {layout.shoff, layout.shnum * layout.shentsize}};
  for (const auto& s : layout.sections) {
    if (s.type == "DYNAMIC" || s.type == "VERDEF" || s.type == "VERNEED" || s.type == "NOTE"
        || s.name == ".dynstr" || s.name == ".shstrtab" || s.name == ".interp") {
      needed.emplace_back(s.offset, s.size);
    }
  }
  void* p =
      ::mmap(nullptr, view_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return make_error(ErrorCode::io, "mmap failed");
  }
  char* base = static_cast<char*>(p);
  std::size_t readable = 0;
  for (const auto& [offset, size] : needed) {
    for (std::uint64_t pg = offset / page * page; pg < offset + size; pg += page) {
      ::mprotect(base + pg, page, PROT_READ | PROT_WRITE);
      std::memcpy(base + pg, bytes.data() + pg, std::min<std::uint64_t>(page, bytes.size() - pg));
      ++readable;
    }
  }
  auto info = parse_elf(std::string_view(base, view_size));
  ::munmap(base, view_size);
  EXPECT_LT(readable * page, bytes.size() / 2 + 64 * page) << "too little is inaccessible";
  return info;
}

TEST(elf, headers_of_a_500_mb_view_touch_only_the_pages_they_need) {
  REQUIRE_GCC_FIXTURES();
  if (!readelf_available()) {
    GTEST_SKIP() << "readelf is needed to know the layout";
  }
  const auto& path = gcc_fixtures().with_runpath;
  const auto info = parse_touching_only_needed_pages(path);
  ASSERT_TRUE(info) << info.error().message;
  const ElfInfo plain = parse_file(path);
  EXPECT_EQ(info->soname, plain.soname);
  EXPECT_EQ(info->runpath, plain.runpath);
  EXPECT_EQ(info->version_needs, plain.version_needs);
  EXPECT_EQ(info->build_id, plain.build_id);
  EXPECT_EQ(info->section_names, plain.section_names);
  EXPECT_TRUE(info->problems.empty()) << problems_of(*info);
}

// ---------------------------------------------------------------------------------------------
// The real cuDNN 9 libraries, where installed.

#define REQUIRE_FILE(path)                                                                         \
  if (!std::filesystem::is_regular_file(path)) {                                                   \
    GTEST_SKIP() << (path) << " is not installed";                                                 \
  }

// cuDNN's version objects: `const unsigned cudnn_ops_infer_version = 0x080906;` as cuDNN 8.9.6's
// libcudnn_ops_infer.so.8 exports it; an object in .bss has no bytes in the file.
TEST(elf, reads_exported_objects_of_a_gcc_library) {
  if (!test::gcc_available()) {
    GTEST_SKIP() << "no gcc here";
  }
  test::TempDir dir;
  dir.write("v.c",
            "const unsigned cudnn_ops_infer_version = 0x080906;\n"
            "const unsigned long long wide = 0x1122334455667788ULL;\n"
            "unsigned in_bss;\n"
            "int f(void) { return 1; }\n");
  ASSERT_TRUE(sh("cd '" + dir.path().string() + "' && gcc -shared -fPIC -o libv.so v.c"));
  const std::string bytes = read_file(dir.path() / "libv.so");
  const GuardedView view(bytes);
  const auto objects =
      read_elf_objects(view.view(), {"cudnn_ops_infer_version", "wide", "in_bss", "absent"}, 8);
  std::map<std::string, std::uint64_t> values;
  for (const ElfObject& o : objects) {
    ASSERT_TRUE(o.value) << o.name;
    values[o.name] = *o.value;
  }
  EXPECT_EQ(values,
            (std::map<std::string, std::uint64_t>{{"cudnn_ops_infer_version", 0x080906},
                                                  {"wide", 0x1122334455667788ULL}}));
  EXPECT_TRUE(read_elf_objects(view.view(), {"absent"}, 8).empty());
  EXPECT_TRUE(read_elf_objects(view.view().substr(0, 200), {"wide"}, 8).empty());
}

TEST(elf, real_libcudnn_ops_exports_its_version) {
  const auto path = k_cuda_lib / "libcudnn_ops.so.9";
  REQUIRE_FILE(path);
  const std::string bytes = read_file(path);
  const auto objects = read_elf_objects(bytes, {"cudnn_ops_infer_version"}, 4);
  ASSERT_EQ(objects.size(), 1U);
  ASSERT_TRUE(objects[0].value);
  EXPECT_EQ(*objects[0].value >> 16U, 9U); // major 9, as the file name says
}

TEST(elf, real_libcudnn_names_itself_and_its_runpath) {
  const auto path = k_cuda_lib / "libcudnn.so.9";
  REQUIRE_FILE(path);
  const ElfInfo info = parse_file(path);
  EXPECT_EQ(info.soname, "libcudnn.so.9");
  ASSERT_FALSE(info.runpath.empty());
  EXPECT_TRUE(info.runpath.front().starts_with("$ORIGIN"));
  ASSERT_FALSE(info.version_definitions.empty());
  EXPECT_EQ(info.version_definitions.front(), "libcudnn.so.9");
  EXPECT_EQ(info.machine_name, "x86-64");
  EXPECT_TRUE(info.problems.empty()) << problems_of(info);
  if (readelf_available()) {
    expect_matches_readelf(info, path);
  }
}

TEST(elf, real_libcudnn_graph_with_its_far_dynstr) {
  const auto path = k_cuda_lib / "libcudnn_graph.so.9";
  REQUIRE_FILE(path);
  const ElfInfo info = parse_file(path);
  EXPECT_EQ(info.soname, "libcudnn_graph.so.9");
  EXPECT_NE(std::find(info.needed.begin(), info.needed.end(), "libz.so.1"), info.needed.end());
  ASSERT_FALSE(info.runpath.empty());
  EXPECT_EQ(info.runpath.front(), "$ORIGIN");
  ASSERT_FALSE(info.version_definitions.empty());
  EXPECT_EQ(info.version_definitions.front(), "libcudnn_graph.so.9");
  EXPECT_FALSE(info.version_needs.empty());
  EXPECT_EQ(info.build_id.size(), 40U);
  EXPECT_TRUE(info.problems.empty()) << problems_of(info);
  if (readelf_available()) {
    expect_matches_readelf(info, path);
  }
}

TEST(elf, truncated_real_cudnn_libraries_give_problems_never_a_crash) {
  if (!readelf_available()) {
    GTEST_SKIP() << "readelf is needed to know the layout";
  }
  int files = 0;
  for (const char* name : {"libcudnn.so.9", "libcudnn_graph.so.9"}) {
    const auto path = k_cuda_lib / name;
    if (std::filesystem::is_regular_file(path)) {
      SCOPED_TRACE(name);
      check_truncations(path);
      ++files;
    }
  }
  if (files == 0) {
    GTEST_SKIP() << "cuDNN 9 is not installed under " << k_cuda_lib;
  }
}

TEST(elf, real_libcudnn_graph_in_a_500_mb_view_touches_only_the_pages_it_needs) {
  const auto path = k_cuda_lib / "libcudnn_graph.so.9";
  REQUIRE_FILE(path);
  if (!readelf_available()) {
    GTEST_SKIP() << "readelf is needed to know the layout";
  }
  const auto info = parse_touching_only_needed_pages(path);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->soname, "libcudnn_graph.so.9");
  EXPECT_EQ(info->build_id, parse_file(path).build_id);
  EXPECT_TRUE(info->problems.empty()) << problems_of(*info);
}

// ---------------------------------------------------------------------------------------------
// read_elf_loader_fields: the few reads ld.so makes give exactly what parse_elf gives in the
// fields they fill, or nothing (then parse_elf is the answer).

// The loader read of `bytes` through positioned reads of it; counts them in `reads`.
std::optional<ElfInfo> loader_fields(std::string_view bytes, int* reads = nullptr) {
  return formats::read_elf_loader_fields(
      bytes.size(), [&](std::uint64_t offset, std::size_t size, std::string& out) {
        if (reads != nullptr) {
          ++*reads;
        }
        out = offset < bytes.size() ? std::string(bytes.substr(offset, size)) : std::string();
        return true;
      });
}

// Whether the loader read of `bytes` gives nothing or exactly parse_elf's loader fields.
::testing::AssertionResult agrees_with_parse_elf(std::string_view bytes) {
  const auto fast = loader_fields(bytes);
  if (!fast) {
    return ::testing::AssertionSuccess() << "no answer";
  }
  const auto full = parse_elf(bytes);
  if (!full) {
    return ::testing::AssertionFailure() << "parse_elf refuses it: " << full.error().message;
  }
  const auto fields = [](const ElfInfo& i) {
    return std::make_tuple(i.elf_class,
                           i.big_endian,
                           i.machine,
                           i.machine_name,
                           i.type,
                           i.soname,
                           i.needed,
                           i.rpath,
                           i.runpath,
                           i.flags,
                           i.flags_1);
  };
  if (fields(*fast) != fields(*full)) {
    return ::testing::AssertionFailure()
           << "loader read: " << fast->soname << " "
           << fmt::format("{}", fmt::join(fast->needed, ",")) << "; parse_elf: " << full->soname
           << " " << fmt::format("{}", fmt::join(full->needed, ",")) << "\n"
           << problems_of(*full);
  }
  return ::testing::AssertionSuccess() << "agrees";
}

TEST(elf_loader, reads_every_loader_field_in_both_classes_and_byte_orders) {
  for (const bool is64 : {true, false}) {
    for (const bool big : {false, true}) {
      for (const bool far : {false, true}) {
        SCOPED_TRACE(fmt::format("{}-bit {}{}",
                                 is64 ? 64 : 32,
                                 big ? "big endian" : "little endian",
                                 far ? ", far .dynstr, no sections" : ""));
        Spec spec = full_spec();
        spec.is64 = is64;
        spec.big = big;
        spec.machine = big ? 21 : (is64 ? 62 : 3);
        spec.far_dynstr = far;
        spec.sections = !far;
        const Image img = build(spec);
        const auto info = loader_fields(img.bytes);
        ASSERT_TRUE(info);
        EXPECT_EQ(info->needed, spec.needed);
        EXPECT_EQ(info->soname, spec.soname);
        EXPECT_EQ(info->nodeflib(), (spec.flags_1 & k_df_1_nodeflib) != 0);
        EXPECT_TRUE(info->version_definitions.empty()); // not read
        EXPECT_TRUE(agrees_with_parse_elf(img.bytes));
      }
    }
  }
}

TEST(elf_loader, leaves_every_file_parse_elf_reads_another_way_to_parse_elf) {
  Spec spec = full_spec();
  spec.far_dynstr = true;
  {
    Spec none = spec;
    none.phdrs = false; // the dynamic section through the section headers
    EXPECT_FALSE(loader_fields(build(none).bytes));
  }
  {
    Image img = build(spec);
    img.word(32, 0x7fff0000); // e_phoff outside the file
    EXPECT_FALSE(loader_fields(img.bytes));
  }
  {
    Image img = build(spec);
    img.put(img.at.at("phdrs") + 56 + 16, 0x10000000, 8); // DT_STRTAB in no PT_LOAD
    EXPECT_FALSE(loader_fields(img.bytes));
  }
  {
    Image img = build(spec);
    img.put(img.dynamic_value(k_dt_strsz), 4, 8); // DT_NEEDED strings outside the table
    EXPECT_FALSE(loader_fields(img.bytes));
  }
  {
    Spec extended = full_spec();
    extended.extended_numbers = true;
    EXPECT_FALSE(loader_fields(build(extended).bytes));
  }
  {
    const Image img = build(spec);
    EXPECT_FALSE(loader_fields(img.bytes.substr(0, img.at.at("dynamic") + 3 * 16 + 8)));
    EXPECT_FALSE(loader_fields(img.bytes.substr(0, 40)));
    EXPECT_FALSE(loader_fields("not an ELF file at all, but long enough for a header........"));
  }
}

TEST(elf_loader, mutated_images_agree_with_parse_elf_or_give_nothing) {
  std::mt19937 rng(54321);
  const std::vector<std::string> seeds = mutation_seeds();
  int answered = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = seeds[static_cast<std::size_t>(round) % seeds.size()];
    mutate(bytes, rng, 4);
    ASSERT_TRUE(agrees_with_parse_elf(bytes)) << "round " << round;
    answered += loader_fields(bytes) ? 1 : 0;
  }
  EXPECT_GT(answered, 500);
}

TEST(elf_loader, real_cudnn_libraries_in_a_few_reads) {
  int files = 0;
  for (const char* name : {"libcudnn.so.9", "libcudnn_graph.so.9", "libcudnn_ops.so.9"}) {
    const auto path = k_cuda_lib / name;
    if (!std::filesystem::is_regular_file(path)) {
      continue;
    }
    SCOPED_TRACE(name);
    const std::string bytes = read_file(path);
    int reads = 0;
    const auto info = loader_fields(bytes, &reads);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->soname, name);
    EXPECT_LE(reads, 5);
    EXPECT_TRUE(agrees_with_parse_elf(bytes));
    ++files;
  }
  if (files == 0) {
    GTEST_SKIP() << "cuDNN 9 is not installed under " << k_cuda_lib;
  }
}

TEST(elf_loader, truncated_gcc_library_agrees_with_parse_elf_at_every_cut) {
  REQUIRE_GCC_FIXTURES();
  const std::string bytes = read_file(gcc_fixtures().with_runpath);
  int answered = 0;
  for (std::size_t cut = 0; cut <= bytes.size();
       cut += std::max<std::size_t>(1, bytes.size() / 512)) {
    ASSERT_TRUE(agrees_with_parse_elf(std::string_view(bytes).substr(0, cut))) << cut;
    answered += loader_fields(std::string_view(bytes).substr(0, cut)) ? 1 : 0;
  }
  EXPECT_TRUE(agrees_with_parse_elf(bytes));
  EXPECT_TRUE(loader_fields(bytes));
  EXPECT_GT(answered, 0);
}

} // namespace
} // namespace doctor
