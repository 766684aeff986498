// SPDX-License-Identifier: MIT
#include <doctor/formats/package_files.hpp>

#include <gtest/gtest.h>

namespace doctor::formats {
namespace {

TEST(package_files, pip_record_keeps_path_hash_and_size) {
  // As nvidia-cudnn-cu12's RECORD writes them; RECORD lists itself without hash or size.
  const auto lines = parse_pip_record(
      "nvidia/cudnn/lib/libcudnn.so.9,sha256=m2XvcWt3mUl0xL3Zy2i1aE5sXl6T2ZgJ1yKQwJ2ZqMs,122880\n"
      "nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD,,\n");
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].path, "nvidia/cudnn/lib/libcudnn.so.9");
  EXPECT_EQ(lines[0].hash, "sha256=m2XvcWt3mUl0xL3Zy2i1aE5sXl6T2ZgJ1yKQwJ2ZqMs");
  EXPECT_EQ(lines[0].size, 122880U);
  EXPECT_EQ(lines[1].path, "nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD");
  EXPECT_EQ(lines[1].hash, "");
  EXPECT_EQ(lines[1].size, std::nullopt);
}

TEST(package_files, pip_record_skips_quoted_short_and_pathless_lines) {
  const auto lines =
      parse_pip_record("\"a,b.py\",sha256=x,1\nonly,two\n,sha256=x,1\n\nok.py,sha256=y,2\n");
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0].path, "ok.py");
}

TEST(package_files, dpkg_md5sums_map_absolute_paths_to_lower_case_digests) {
  const auto md5 = parse_dpkg_md5sums(
      "D41D8CD98F00B204E9800998ECF8427E  usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0\n"
      "0123456789abcdef0123456789abcdef  /already/absolute\n"
      "tooshort  usr/lib/x\n");
  ASSERT_EQ(md5.size(), 2U);
  EXPECT_EQ(md5.at("/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0"),
            "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5.at("/already/absolute"), "0123456789abcdef0123456789abcdef");
}

TEST(package_files, dpkg_list_keeps_absolute_paths_in_order) {
  const auto paths = parse_dpkg_list("/.\n/usr\nrelative\n\n/usr/lib/libcudnn.so.9\n");
  ASSERT_EQ(paths.size(), 3U);
  EXPECT_EQ(paths[0], "/.");
  EXPECT_EQ(paths[2], "/usr/lib/libcudnn.so.9");
}

TEST(package_files, dpkg_status_versions_of_the_wanted_packages_only) {
  const auto versions = parse_dpkg_status_versions(
      "Package: libcudnn9-cuda-12\nStatus: install ok installed\nVersion: 9.1.0.70-1\n\n"
      "Package: bash\nVersion: 5.2.15-2+b2\n",
      {"libcudnn9-cuda-12", "absent"});
  ASSERT_EQ(versions.size(), 1U);
  EXPECT_EQ(versions.at("libcudnn9-cuda-12"), "9.1.0.70-1");
}

TEST(package_files, conda_meta_paths_data_has_sizes_and_hashes) {
  const auto record = parse_conda_meta(
      R"({"name": "cudnn", "version": "8.9.2.26", "paths_data": {"paths": [
          {"_path": "lib/libcudnn.so.8", "size_in_bytes": 150200, "sha256": "00ff"},
          {"_path": 7}, "junk"]}})");
  ASSERT_TRUE(record);
  EXPECT_EQ(record->name, "cudnn");
  EXPECT_EQ(record->version, "8.9.2.26");
  ASSERT_EQ(record->files.size(), 1U);
  EXPECT_EQ(record->files[0].path, "lib/libcudnn.so.8");
  EXPECT_EQ(record->files[0].size, 150200U);
  EXPECT_EQ(record->files[0].sha256, "00ff");
}

TEST(package_files, conda_meta_files_list_without_paths_data) {
  const auto record = parse_conda_meta(R"({"files": ["lib/libcudart.so.11.0", 3], "name": 5})");
  ASSERT_TRUE(record);
  EXPECT_EQ(record->name, ""); // not a string: the caller takes the file name's
  ASSERT_EQ(record->files.size(), 1U);
  EXPECT_EQ(record->files[0].path, "lib/libcudart.so.11.0");
  EXPECT_EQ(record->files[0].size, std::nullopt);
}

TEST(package_files, conda_meta_that_is_not_an_object_is_refused) {
  EXPECT_FALSE(parse_conda_meta("[1, 2]"));
  EXPECT_FALSE(parse_conda_meta("{\"name\": "));
}

TEST(package_files, conda_meta_stem_splits_at_the_last_two_dashes) {
  const auto split = split_conda_meta_stem("libcublas-dev-12.1.0.26-0");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->first, "libcublas-dev");
  EXPECT_EQ(split->second, "12.1.0.26");
  EXPECT_FALSE(split_conda_meta_stem("nodashes"));
  EXPECT_FALSE(split_conda_meta_stem("one-dash"));
}

} // namespace
} // namespace doctor::formats
