// SPDX-License-Identifier: MIT
#include <doctor/formats/text_formats.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace doctor {
namespace {

using namespace formats;

constexpr const char* k_proprietary =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
constexpr const char* k_open =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  "
    "(dvs-builder@U16-I3-B03-4-3)  Thu Jan 23 23:19:50 UTC 2025\n"
    "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n";

// Deterministic junk: every byte value, NULs and newlines included.
std::string junk(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string out(size, '\0');
  for (char& c : out) {
    c = static_cast<char>(byte(gen));
  }
  return out;
}

TEST(text_formats, os_release_reads_quoted_and_unquoted_values) {
  const auto f = parse_os_release(
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
      "NAME='Debian GNU/Linux'\n"
      "VERSION_ID=\"12\"\n"
      "ID=debian\n");
  EXPECT_EQ(f.at("PRETTY_NAME"), "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(f.at("NAME"), "Debian GNU/Linux");
  EXPECT_EQ(f.at("VERSION_ID"), "12");
  EXPECT_EQ(f.at("ID"), "debian");
}

TEST(text_formats, os_release_skips_comments_blank_and_junk_lines) {
  const auto f = parse_os_release(
      "# ID=commented\n"
      "   # indented comment\n"
      "\n"
      "not a pair\n"
      "=no key\n"
      "lower=case\n"
      "BAD-KEY=x\n"
      "SPACED = x\n"
      "  ID=ubuntu  \r\n");
  ASSERT_EQ(f.size(), 1U) << "got " << f.size() << " keys";
  EXPECT_EQ(f.at("ID"), "ubuntu");
}

TEST(text_formats, os_release_later_assignment_wins_and_empty_values_are_kept) {
  const auto f = parse_os_release("ID=first\nID=second\nVARIANT=\nBUILD_ID=\"\"\n");
  EXPECT_EQ(f.at("ID"), "second");
  EXPECT_EQ(f.at("VARIANT"), "");
  EXPECT_EQ(f.at("BUILD_ID"), "");
}

TEST(text_formats, os_release_keeps_mismatched_quotes_as_written) {
  const auto f = parse_os_release("NAME=\"Debian'\nID='x\n");
  EXPECT_EQ(f.at("NAME"), "\"Debian'");
  EXPECT_EQ(f.at("ID"), "'x");
}

TEST(text_formats, os_release_survives_binary_junk) {
  const std::string text = junk(64 * 1024, 1) + "\nID=fedora\n" + junk(1024, 2);
  const auto f = parse_os_release(text);
  EXPECT_EQ(f.at("ID"), "fedora");
}

TEST(text_formats, nvidia_proc_version_proprietary_module) {
  const auto v = parse_nvidia_proc_version(k_proprietary);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "535.104.05");
  EXPECT_EQ(v->type, "proprietary");
  EXPECT_EQ(v->banner,
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC "
            "2023");
}

TEST(text_formats, nvidia_proc_version_open_module_skips_the_architecture) {
  const auto v = parse_nvidia_proc_version(k_open);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "570.86.15");
  EXPECT_EQ(v->type, "open");
  EXPECT_TRUE(v->banner.starts_with("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64"));
}

TEST(text_formats, nvidia_proc_version_open_module_on_aarch64) {
  const auto v = parse_nvidia_proc_version(
      "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.65.06  Release Build  "
      "(dvs-builder@U22-I3-AF03-09-1)  Sun Jul 27 06:54:38 UTC 2025\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "580.65.06");
  EXPECT_EQ(v->type, "open");
}

TEST(text_formats, nvidia_proc_version_finds_nvrm_line_after_others) {
  const auto v = parse_nvidia_proc_version(std::string("junk line 1.2.3\n\r\n") + k_proprietary);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "535.104.05");
}

TEST(text_formats, nvidia_proc_version_without_nvrm_or_version_is_nullopt) {
  EXPECT_FALSE(parse_nvidia_proc_version(""));
  EXPECT_FALSE(parse_nvidia_proc_version("GCC version:  gcc version 12.2.0\n"));
  EXPECT_FALSE(parse_nvidia_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"));
  EXPECT_FALSE(parse_nvidia_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  abc\n"));
  EXPECT_FALSE(parse_nvidia_proc_version("NVRM version: 535.104.05\n")); // no "Module"
  EXPECT_FALSE(parse_nvidia_proc_version(junk(4096, 3)));
}

TEST(text_formats, nvidia_proc_version_banner_is_sanitized_and_bounded) {
  const std::string line = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05 \x1b[31m"
                           + std::string(5000, 'x') + "\n";
  const auto v = parse_nvidia_proc_version(line);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->version, "535.104.05");
  EXPECT_EQ(v->banner.find('\x1b'), std::string::npos);
  EXPECT_LE(v->banner.size(), 300U + 3U);
}

TEST(text_formats, meminfo_scales_kilobytes_and_keeps_plain_counts) {
  const auto m = parse_meminfo(
      "MemTotal:       24576000 kB\n"
      "MemAvailable:    1024 kB\n"
      "HugePages_Total:       7\n"
      "garbage line\n"
      ":5 kB\n"
      "Bad: 12 MB\n"
      "Huge: 18446744073709551615 kB\n");
  EXPECT_EQ(m.at("MemTotal"), 24576000ULL * 1024);
  EXPECT_EQ(m.at("MemAvailable"), 1024ULL * 1024);
  EXPECT_EQ(m.at("HugePages_Total"), 7U);
  EXPECT_EQ(m.count("Bad"), 0U);
  EXPECT_EQ(m.count("Huge"), 0U) << "overflowing value must be dropped";
  EXPECT_EQ(m.size(), 3U);
}

TEST(text_formats, cpuinfo_counts_processors_and_takes_first_model_name) {
  const auto c = parse_cpuinfo(
      "processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\n\n"
      "processor\t: 1\nmodel name\t: Other\n\n");
  EXPECT_EQ(c.count, 2U);
  EXPECT_EQ(c.model, "AMD EPYC 9654 96-Core Processor");
}

TEST(text_formats, cpuinfo_falls_back_to_model_or_hardware_on_arm) {
  const auto c = parse_cpuinfo(
      "processor\t: 0\nBogoMIPS\t: 108.00\n\n"
      "Hardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n");
  EXPECT_EQ(c.count, 1U);
  EXPECT_EQ(c.model, "BCM2835");
  EXPECT_EQ(parse_cpuinfo("").count, 0U);
  EXPECT_EQ(parse_cpuinfo("").model, "");
}

TEST(text_formats, proc_modules_lists_module_names) {
  const auto m = parse_proc_modules(
      "nvidia_uvm 1437696 0 - Live 0x0000000000000000 (PO)\n"
      "nvidia 56807424 1 nvidia_uvm, Live 0x0 (PO)\n"
      "\n"
      "ext4 1019904 1 - Live 0x0\n");
  EXPECT_EQ(m, (std::vector<std::string>{"nvidia_uvm", "nvidia", "ext4"}));
}

TEST(text_formats, proc_modules_drops_absurdly_long_names) {
  const auto m = parse_proc_modules(std::string(100, 'a') + " 1 0 - Live\nok 1 0 - Live\n");
  EXPECT_EQ(m, (std::vector<std::string>{"ok"}));
}

TEST(text_formats, cuda_version_json_reads_the_cuda_entry) {
  const auto v = parse_cuda_version_json(
      R"({"cuda": {"name": "CUDA SDK", "version": "13.0.48"},
          "cuda_cudart": {"version": "13.0.96"}})");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->str(), "13.0.48");
}

TEST(text_formats, cuda_version_json_rejects_malformed_documents) {
  EXPECT_FALSE(parse_cuda_version_json(""));
  EXPECT_FALSE(parse_cuda_version_json("{"));
  EXPECT_FALSE(parse_cuda_version_json(R"({"cuda": {"version": "13.0.48")"));
  EXPECT_FALSE(parse_cuda_version_json("[1, 2]"));
  EXPECT_FALSE(parse_cuda_version_json(R"({"cuda": "13.0"})"));
  EXPECT_FALSE(parse_cuda_version_json(R"({"cuda": {"version": 13.0}})"));
  EXPECT_FALSE(parse_cuda_version_json(R"({"cuda": {"name": "CUDA SDK"}})"));
  EXPECT_FALSE(parse_cuda_version_json(R"({"cuda": {"version": "13.0-rc1"}})"));
  EXPECT_FALSE(parse_cuda_version_json(R"({"cuda_cudart": {"version": "13.0.96"}})"));
  EXPECT_FALSE(parse_cuda_version_json(junk(2048, 4)));
}

TEST(text_formats, cuda_version_txt_reads_the_version_line) {
  EXPECT_EQ(parse_cuda_version_txt("CUDA Version 10.2.89\n")->str(), "10.2.89");
  EXPECT_EQ(parse_cuda_version_txt("\n  CUDA Version 9.0.176  \r\n")->str(), "9.0.176");
  EXPECT_FALSE(parse_cuda_version_txt("CUDA Version \n"));
  EXPECT_FALSE(parse_cuda_version_txt("CUDA Version ten\n"));
  EXPECT_FALSE(parse_cuda_version_txt("Version 10.2\n"));
  EXPECT_FALSE(parse_cuda_version_txt(""));
}

TEST(text_formats, find_define_reads_integer_defines_in_their_usual_spellings) {
  const std::string h =
      "#define A 1\n"
      "#  define B\t22\n"
      " #define C 33 // comment\n"
      "#define D 44L\n"
      "#define E (55)\n"
      "#define F 66UL\n";
  EXPECT_EQ(find_define(h, "A"), 1);
  EXPECT_EQ(find_define(h, "B"), 22);
  EXPECT_EQ(find_define(h, "C"), 33);
  EXPECT_EQ(find_define(h, "D"), 44);
  EXPECT_EQ(find_define(h, "E"), 55);
  EXPECT_EQ(find_define(h, "F"), 66);
}

TEST(text_formats, find_define_does_not_match_longer_names_or_expressions) {
  const std::string h =
      "#define CUDNN_MAJOR_EXTRA 7\n"
      "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100)\n"
      "#define NEG -1\n"
      "// #define CUDNN_MAJOR 5\n"
      "#define EMPTY\n";
  EXPECT_FALSE(find_define(h, "CUDNN_MAJOR"));
  EXPECT_FALSE(find_define(h, "CUDNN_VERSION"));
  EXPECT_FALSE(find_define(h, "NEG"));
  EXPECT_FALSE(find_define(h, "EMPTY"));
  EXPECT_FALSE(find_define(h, "MISSING"));
}

TEST(text_formats, find_define_rejects_huge_values) {
  EXPECT_FALSE(find_define("#define X 99999999999999999999\n", "X"));
  EXPECT_FALSE(find_define("#define X 9223372036854775807\n", "X"));
}

TEST(text_formats, cudnn_header_from_cudnn_version_h) {
  const auto v = parse_cudnn_header(
      "#ifndef CUDNN_VERSION_H_\n"
      "#define CUDNN_VERSION_H_\n\n"
      "#define CUDNN_MAJOR 9\n"
      "#define CUDNN_MINOR 19\n"
      "#define CUDNN_PATCHLEVEL 0\n\n"
      "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * "
      "100 + CUDNN_PATCHLEVEL)\n#endif\n");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->str(), "9.19.0");
}

TEST(text_formats, cudnn_header_needs_all_three_sane_parts) {
  EXPECT_FALSE(parse_cudnn_header("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n"));
  EXPECT_FALSE(parse_cudnn_header(
      "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1001\n#define CUDNN_PATCHLEVEL 0\n"));
  EXPECT_FALSE(parse_cudnn_header(junk(4096, 5)));
}

TEST(text_formats, cuda_header_converts_cuda_version_and_falls_back_to_cudart) {
  EXPECT_EQ(parse_cuda_header("#define CUDA_VERSION 12040\n")->str(), "12.4");
  EXPECT_EQ(parse_cuda_header("#define CUDA_VERSION 13000\n")->str(), "13.0");
  EXPECT_EQ(parse_cuda_header("#define CUDART_VERSION  11080\n")->str(), "11.8");
  EXPECT_FALSE(parse_cuda_header("#define CUDA_VERSION 999\n"));
  EXPECT_FALSE(parse_cuda_header("#define CUDA_VERSION 2000000\n"));
  EXPECT_FALSE(parse_cuda_header("nothing"));
}

TEST(text_formats, dist_info_dir_splits_name_and_version) {
  const auto d = parse_dist_info_dir("nvidia_cudnn_cu11-8.9.7.29.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "nvidia-cudnn-cu11");
  EXPECT_EQ(d->version, "8.9.7.29");
  const auto torch = parse_dist_info_dir("torch-2.5.1+cu124.dist-info");
  ASSERT_TRUE(torch);
  EXPECT_EQ(torch->name, "torch");
  EXPECT_EQ(torch->version, "2.5.1+cu124");
}

TEST(text_formats, egg_info_dir_drops_the_python_tag) {
  const auto d = parse_dist_info_dir("Paddle_GPU-2.6.1-py3.11.egg-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "paddle-gpu");
  EXPECT_EQ(d->version, "2.6.1");
}

TEST(text_formats, dist_info_dir_rejects_other_names) {
  EXPECT_FALSE(parse_dist_info_dir("nvidia"));
  EXPECT_FALSE(parse_dist_info_dir("nvidia_cudnn_cu11-8.9.7.29.data"));
  EXPECT_FALSE(parse_dist_info_dir("-1.0.dist-info"));
  EXPECT_FALSE(parse_dist_info_dir("name-.dist-info"));
  EXPECT_FALSE(parse_dist_info_dir("name.dist-info"));
  EXPECT_FALSE(parse_dist_info_dir("name-abc.dist-info"));
  EXPECT_FALSE(parse_dist_info_dir(".dist-info"));
}

TEST(text_formats, package_names_are_normalised_per_pep_503) {
  EXPECT_EQ(normalize_package_name("Nvidia__CUDNN.cu12"), "nvidia-cudnn-cu12");
  EXPECT_EQ(normalize_package_name("nvidia-cudnn-cu12"), "nvidia-cudnn-cu12");
  EXPECT_EQ(normalize_package_name("a-_.-b"), "a-b");
  EXPECT_EQ(normalize_package_name("_x_"), "x");
}

TEST(text_formats, version_after_stem_returns_the_dotted_suffix) {
  EXPECT_EQ(version_after_stem("libcuda.so.535.104.05", "libcuda.so"), "535.104.05");
  EXPECT_EQ(version_after_stem("libcuda.so.1", "libcuda.so"), "1");
}

TEST(text_formats, version_after_stem_rejects_other_names) {
  EXPECT_FALSE(version_after_stem("libcuda.so", "libcuda.so"));
  EXPECT_FALSE(version_after_stem("libcuda.so.", "libcuda.so"));
  EXPECT_FALSE(version_after_stem("libcuda.sox.1", "libcuda.so"));
  EXPECT_FALSE(version_after_stem("libcuda.so.1.abc", "libcuda.so"));
  EXPECT_FALSE(version_after_stem("libcudart.so.12", "libcuda.so"));
  EXPECT_FALSE(version_after_stem("libcuda.so.1.", "libcuda.so"));
}

// Every parser accepts any bytes: random junk and a huge line without a newline never crash and
// never produce a version out of nothing.
TEST(text_formats, parsers_survive_junk_and_huge_lines) {
  std::vector<std::string> texts = {std::string(8 * 1024 * 1024, 'A')};
  for (unsigned seed = 10; seed < 30; ++seed) {
    texts.push_back(junk(8192, seed));
  }
  for (const std::string& text : texts) {
    parse_os_release(text);
    parse_meminfo(text);
    parse_cpuinfo(text);
    parse_proc_modules(text);
    EXPECT_FALSE(parse_nvidia_proc_version(text));
    EXPECT_FALSE(parse_cuda_version_json(text));
    EXPECT_FALSE(parse_cuda_version_txt(text));
    EXPECT_FALSE(parse_cudnn_header(text));
    EXPECT_FALSE(parse_cuda_header(text));
  }
  EXPECT_TRUE(parse_os_release(texts.front()).empty());
  EXPECT_TRUE(parse_proc_modules(texts.front()).empty());
}

TEST(text_formats, modules_dep_lists_the_nvidia_driver_modules_only) {
  const std::string dep =
      "kernel/drivers/video/fbdev/nvidia/nvidiafb.ko.xz: kernel/drivers/video/vgastate.ko.xz\n"
      "kernel/drivers/platform/x86/nvidia-wmi-ec-backlight.ko.zst:\n"
      "updates/dkms/nvidia.ko.zst:\n"
      "updates/dkms/nvidia-uvm.ko.zst: updates/dkms/nvidia.ko.zst\n"
      "/lib/modules/5.4.0/kernel/nvidia-535/nvidia-current.ko: \n"
      "extra/nvidia-tesla-470.ko.xz:\n"
      "no colon here nvidia.ko\n"
      ": nvidia.ko\n";
  EXPECT_EQ(parse_modules_dep_nvidia(dep),
            (std::vector<std::string>{"updates/dkms/nvidia.ko.zst",
                                      "/lib/modules/5.4.0/kernel/nvidia-535/nvidia-current.ko",
                                      "extra/nvidia-tesla-470.ko.xz"}));
  for (const std::string& path : parse_modules_dep_nvidia(junk(1 << 16, 7))) {
    EXPECT_NE(path.find("nvidia"), std::string::npos);
  }
}

} // namespace
} // namespace doctor
