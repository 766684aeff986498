// SPDX-License-Identifier: MIT
#include <doctor/collect/binary_reader.hpp>
#include <doctor/formats/elf.hpp>
#include <doctor/formats/pe.hpp>
#include <doctor/platform/input_file.hpp>
#include <doctor/platform/mapped_file.hpp>
#include <doctor/platform/positioned_file.hpp>

#include <fmt/format.h>

namespace doctor::collect {

using namespace facts; // the collectors fill in the facts model

namespace {

void set_status(const platform::FileStat& st, BinaryInfo& out) {
  out.size = st.size;
  out.mode = fmt::format("{:04o}", st.mode & 07777U);
  out.uid = st.uid;
  out.gid = st.gid;
}

void from_elf(const formats::ElfInfo& elf, BinaryInfo& out) {
  out.format = "elf";
  out.machine = elf.machine_name;
  out.bits = elf.elf_class;
  out.soname = elf.soname;
  out.needed = elf.needed;
  out.rpath = elf.rpath;
  out.runpath = elf.runpath;
  out.nodeflib = elf.nodeflib();
  out.version_definitions = elf.version_definitions;
  for (const formats::ElfVersionNeed& n : elf.version_needs) {
    out.version_needs.push_back(BinaryVersionNeed{n.file, n.versions});
  }
  out.build_id = elf.build_id;
  out.problems.insert(out.problems.end(), elf.problems.begin(), elf.problems.end());
}

void from_pe(const formats::PeInfo& pe, BinaryInfo& out) {
  out.format = "pe";
  out.machine = pe.machine_name;
  out.bits = pe.pe32_plus ? 64 : 32;
  out.needed = pe.imports;
  out.delay_needed = pe.delay_imports;
  if (pe.version) {
    out.file_version = pe.version->file_version;
    out.product_version = pe.version->product_version;
    out.product_name = pe.version->product_name;
  }
  out.is_signed = pe.has_signature;
  out.problems.insert(out.problems.end(), pe.problems.begin(), pe.problems.end());
}

} // namespace

BinaryInfo read_binary(const platform::SysRoot& root, const std::string& real_path) {
  BinaryInfo out;
  out.path = real_path;
  out.format = "unknown";
  if (auto st = root.stat(real_path)) {
    set_status(*st, out);
  }
  auto mapped = root.map_file(real_path);
  if (!mapped) {
    out.read_error = std::string(to_string(mapped.error().code));
    out.read_error_message = mapped.error().message;
    return out;
  }
  const std::string_view data = mapped->data();
  if (data.empty()) {
    out.problems.push_back("the file is empty");
    return out;
  }
  if (formats::is_elf(data)) {
    auto elf = formats::parse_elf(data);
    if (elf) {
      from_elf(*elf, out);
    } else {
      out.format = "elf";
      out.problems.push_back(elf.error().message);
    }
    return out;
  }
  if (formats::is_pe(data)) {
    auto pe = formats::parse_pe(data);
    if (pe) {
      from_pe(*pe, out);
    } else {
      out.format = "pe";
      out.problems.push_back(pe.error().message);
    }
    return out;
  }
  // A text file where a library should be: a linker script (libc.so), a Git LFS pointer, an
  // HTML error page saved by a failed download.
  const std::string_view head = data.substr(0, 64);
  out.problems.push_back(
      head.starts_with("/* GNU ld script") || head.starts_with("OUTPUT_FORMAT")
          ? "a linker script, not a library"
      : head.starts_with("version https://git-lfs")
          ? "a Git LFS pointer, not the library (the download fetched the pointer)"
      : head.starts_with("<") ? "text (HTML or XML), not a library: a failed download?"
                              : "neither ELF nor PE");
  return out;
}

BinaryInfo read_loader_binary(const platform::SysRoot& root,
                              const std::string& real_path,
                              const platform::FileStat& st) {
  auto file = root.open_resolved(real_path);
  std::optional<formats::ElfInfo> elf;
  if (file) {
    const auto read_at = [&](std::uint64_t offset, std::size_t size, std::string& out) {
      out.resize(size);
      auto n = file->read_at(offset, out.data(), size);
      out.resize(n ? *n : 0);
      return n.has_value();
    };
    elf = formats::read_elf_loader_fields(file->stat().size, read_at);
  }
  if (!elf) {
    return read_binary(root, real_path);
  }
  BinaryInfo out;
  out.path = real_path;
  set_status(st, out);
  from_elf(*elf, out);
  return out;
}

Expected<formats::FatbinFile> read_fatbin_file(const std::filesystem::path& path) {
  auto mapped = platform::MappedFile::open(path);
  if (!mapped) {
    return tl::unexpected(mapped.error());
  }
  auto file = platform::PositionedFile::open(path);
  if (!file) {
    return tl::unexpected(file.error());
  }
  return formats::read_fatbin_image(mapped->data(), **file);
}

} // namespace doctor::collect
