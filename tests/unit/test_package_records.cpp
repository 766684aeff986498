// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/package_records.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace doctor {
namespace {

using collect::PackageIndex;

constexpr const char* k_sp = "/venv/lib/python3.11/site-packages";
constexpr const char* k_pip_lib = "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib";

// A pip site-packages with nvidia-cudnn-cu12 9.1.0.70 owning two libraries.
void make_pip_tree(const test::TempDir& t) {
  t.write(std::string(k_pip_lib) + "/libcudnn.so.9", "12345");
  t.write(std::string(k_pip_lib) + "/libcudnn_ops.so.9", "1234567");
  t.write(std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD",
          "nvidia/cudnn/lib/libcudnn.so.9,sha256=AbC_-1,5\n"
          "nvidia/cudnn/lib/libcudnn_ops.so.9,sha256=XyZ,7\r\n"
          "nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD,,\n");
}

TEST(package_records, pip_record_owns_file_by_relative_path) {
  test::TempDir t;
  make_pip_tree(t);
  const auto root = t.sysroot();
  PackageIndex index(root);
  const auto f = index.owner(k_pip_lib, "libcudnn.so.9", 5);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->manager, "pip");
  EXPECT_EQ(f->package, "nvidia-cudnn-cu12");
  EXPECT_EQ(f->version, "9.1.0.70");
  EXPECT_EQ(f->record, std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD");
  EXPECT_EQ(f->size, 5U);
  EXPECT_EQ(f->hash, "sha256=AbC_-1");
  const auto ops = index.owner(k_pip_lib, "libcudnn_ops.so.9", 7);
  ASSERT_TRUE(ops) << "CRLF line endings in RECORD";
  EXPECT_EQ(ops->size, 7U);
}

TEST(package_records, only_libraries_and_executables_are_kept_of_a_record) {
  test::TempDir t;
  t.write(std::string(k_sp) + "/nvidia_cuda_nvcc-13.0.88.dist-info/RECORD",
          "nvidia/cu13/bin/nvcc,sha256=a,3\n"
          "nvidia/cu13/include/cuda.h,sha256=b,4\n"
          "nvidia/cu13/include/cub/block.cuh,sha256=c,5\n"
          "nvidia/cu13/lib/libnvrtc.so.13,sha256=d,6\n"
          "nvidia/cu13/lib/libnvrtc.so.13.0.88,sha256=e,7\n"
          "nvidia/cu13/lib/libnvrtc_static.a,sha256=f,8\n"
          "nvidia/cu13/lib/libsomething.so.13.x,sha256=g,9\n"
          "nvidia/cu13/bin/nvrtc64_130_0.dll,sha256=h,10\n"
          "nvidia_cuda_nvcc-13.0.88.dist-info/METADATA,sha256=i,11\n");
  const auto root = t.sysroot();
  PackageIndex index(root);
  std::vector<std::string> kept;
  for (const collect::RecordedFile& f : index.pip_records(k_sp)) {
    kept.push_back(f.path.substr(std::string(k_sp).size() + 1));
  }
  EXPECT_EQ(kept,
            (std::vector<std::string>{"nvidia/cu13/bin/nvcc",
                                      "nvidia/cu13/lib/libnvrtc.so.13",
                                      "nvidia/cu13/lib/libnvrtc.so.13.0.88",
                                      "nvidia/cu13/bin/nvrtc64_130_0.dll"}));
  EXPECT_TRUE(collect::is_library_name("cudnn64_9.DLL"));
  EXPECT_FALSE(collect::is_library_name("libcudnn.so.9.x"));
  EXPECT_FALSE(collect::is_library_name("libcudnn_static.a"));
}

TEST(package_records, pip_record_does_not_own_unlisted_files) {
  test::TempDir t;
  make_pip_tree(t);
  t.write(std::string(k_pip_lib) + "/libcudnn_graph.so.9", "x");
  const auto root = t.sysroot();
  PackageIndex index(root);
  EXPECT_FALSE(index.owner(k_pip_lib, "libcudnn_graph.so.9", 1));
  EXPECT_FALSE(
      index.owner("/venv/lib/python3.11/site-packages/nvidia/cublas/lib", "libcudnn.so.9", 5));
}

TEST(package_records, pip_records_of_non_gpu_packages_are_ignored) {
  test::TempDir t;
  t.write(std::string(k_pip_lib) + "/libcudnn.so.9", "12345");
  t.write(std::string(k_sp) + "/numpy-1.26.4.dist-info/RECORD",
          "nvidia/cudnn/lib/libcudnn.so.9,sha256=x,5\n");
  const auto root = t.sysroot();
  PackageIndex index(root);
  EXPECT_FALSE(index.owner(k_pip_lib, "libcudnn.so.9", 5));
}

TEST(package_records, pip_record_skips_quoted_and_malformed_lines) {
  test::TempDir t;
  t.write(std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD",
          "\"nvidia/cudnn/lib/libcudnn.so.9\",sha256=x,5\n"
          "nvidia/cudnn/lib/libcudnn_ops.so.9,sha256=x\n"
          "nvidia/cudnn/lib/libcudnn_adv.so.9,sha256=x,1,extra\n"
          ",sha256=x,1\n"
          "\x01\xff\xfe binary junk\n"
          "nvidia/cudnn/lib/libcudnn_cnn.so.9,sha256=x,notanumber\n");
  const auto root = t.sysroot();
  PackageIndex index(root);
  EXPECT_FALSE(index.owner(k_pip_lib, "libcudnn.so.9", 5));
  EXPECT_FALSE(index.owner(k_pip_lib, "libcudnn_ops.so.9", 5));
  EXPECT_FALSE(index.owner(k_pip_lib, "libcudnn_adv.so.9", 1));
  const auto cnn = index.owner(k_pip_lib, "libcudnn_cnn.so.9", 1);
  ASSERT_TRUE(cnn) << "a bad size still names the owner";
  EXPECT_FALSE(cnn->size);
}

TEST(package_records, pip_record_paths_are_normalised) {
  test::TempDir t;
  t.write(std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD",
          "nvidia/cudnn/../cudnn/lib/./libcudnn.so.9,sha256=x,5\n");
  const auto root = t.sysroot();
  PackageIndex index(root);
  EXPECT_TRUE(index.owner(k_pip_lib, "libcudnn.so.9", 5));
}

TEST(package_records, pip_records_are_read_once_per_location) {
  test::TempDir t;
  make_pip_tree(t);
  const auto root = t.sysroot();
  PackageIndex index(root);
  ASSERT_TRUE(index.owner(k_pip_lib, "libcudnn.so.9", 5));
  std::filesystem::remove(t.at(std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD"));
  EXPECT_TRUE(index.owner(k_pip_lib, "libcudnn_ops.so.9", 7)) << "the RECORD was read again";
  PackageIndex fresh(root);
  EXPECT_FALSE(fresh.owner(k_pip_lib, "libcudnn_ops.so.9", 7));
}

TEST(package_records, unreadable_record_owns_nothing) {
  if (test::running_as_root()) {
    GTEST_SKIP() << "root reads files whatever their mode";
  }
  test::TempDir t;
  make_pip_tree(t);
  const auto record = t.at(std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD");
  std::filesystem::permissions(record, std::filesystem::perms::none);
  const auto root = t.sysroot();
  PackageIndex index(root);
  const auto f = index.owner(k_pip_lib, "libcudnn.so.9", 5);
  std::filesystem::permissions(record, std::filesystem::perms::owner_all);
  EXPECT_FALSE(f);
}

// A CUDA tree assembled from wheels keeps their dist-info next to lib/, but the files moved, so
// only name and size can tie them to the RECORD.
TEST(package_records, toolkit_dist_info_owns_file_by_name_and_size) {
  test::TempDir t;
  t.write("/usr/local/cuda-13.0/lib/libcudnn.so.9", "123456");
  t.write("/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD",
          "nvidia/cudnn/lib/libcudnn.so.9,sha256=q,6\n"
          "nvidia/cudnn/lib/libcudnn_ops.so.9,sha256=r,999\n");
  const auto root = t.sysroot();
  PackageIndex index(root);
  const auto f = index.owner("/usr/local/cuda-13.0/lib", "libcudnn.so.9", 6);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->manager, "pip");
  EXPECT_EQ(f->package, "nvidia-cudnn-cu13");
  EXPECT_EQ(f->version, "9.19.0.56");
  EXPECT_EQ(f->record,
            "/usr/local/cuda-13.0/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD");
  EXPECT_FALSE(index.owner("/usr/local/cuda-13.0/lib", "libcudnn.so.9", 7)) << "size differs";
  EXPECT_FALSE(index.owner("/usr/local/cuda-13.0/lib", "libcudnn_ops.so.9", 6)) << "size differs";
  EXPECT_FALSE(index.owner("/usr/local/cuda-13.0/lib", "libcudnn_adv.so.9", 6)) << "not listed";
}

TEST(package_records, conda_paths_data_gives_size_and_hash) {
  test::TempDir t;
  t.write("/opt/conda/conda-meta/cudnn-8.9.2.26-cuda11_0.json",
          R"({"name": "cudnn", "version": "8.9.2.26", "paths_data": {"paths": [
               {"_path": "lib/libcudnn.so.8", "size_in_bytes": 123, "sha256": "ff00"},
               {"_path": "lib/libcudnn_ops_infer.so.8"},
               {"no_path": true}, 7]}})");
  const auto root = t.sysroot();
  PackageIndex index(root);
  const auto f = index.owner("/opt/conda/lib", "libcudnn.so.8", 123);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->manager, "conda");
  EXPECT_EQ(f->package, "cudnn");
  EXPECT_EQ(f->version, "8.9.2.26");
  EXPECT_EQ(f->record, "/opt/conda/conda-meta/cudnn-8.9.2.26-cuda11_0.json");
  EXPECT_EQ(f->size, 123U);
  EXPECT_EQ(f->hash, "sha256:ff00");
  const auto ops = index.owner("/opt/conda/lib", "libcudnn_ops_infer.so.8", 0);
  ASSERT_TRUE(ops);
  EXPECT_FALSE(ops->size);
  EXPECT_EQ(ops->hash, "");
}

TEST(package_records, conda_files_list_and_name_from_file_name) {
  test::TempDir t;
  t.write("/opt/conda/envs/tf/conda-meta/libcudnn-9.1.0.70-h1234_0.json",
          R"({"files": ["lib/libcudnn.so.9", 5]})");
  const auto root = t.sysroot();
  PackageIndex index(root);
  const auto f = index.owner("/opt/conda/envs/tf/lib", "libcudnn.so.9", 42);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->package, "libcudnn");
  EXPECT_EQ(f->version, "9.1.0.70");
}

TEST(package_records, conda_skips_malformed_and_non_gpu_records) {
  test::TempDir t;
  t.write("/opt/conda/conda-meta/cudnn-8.9.2.26-cuda11_0.json",
          "{\"files\": [\"lib/libcudnn.so.8\"");
  t.write("/opt/conda/conda-meta/numpy-1.26.4-py311_0.json", R"({"files": ["lib/libcudnn.so.8"]})");
  t.write("/opt/conda/conda-meta/history", "junk");
  t.write("/opt/conda/conda-meta/cudnn.json", R"({"files": ["lib/libcudnn.so.8"]})");
  t.write("/opt/conda/conda-meta/cuda-nvcc-12.4.131-0.json", "[1, 2, 3]");
  const auto root = t.sysroot();
  PackageIndex index(root);
  EXPECT_FALSE(index.owner("/opt/conda/lib", "libcudnn.so.8", 1));
}

TEST(package_records, dpkg_list_and_status_give_package_and_version) {
  test::TempDir t;
  t.write("/var/lib/dpkg/info/libcudnn9-cuda-12.list",
          "/.\n/usr\n/usr/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0\n");
  t.write("/var/lib/dpkg/info/libcudnn9-dev-cuda-12:amd64.list",
          "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.1.0\n");
  t.write("/var/lib/dpkg/status",
          "Package: zlib1g\nVersion: 1:1.2.13\n\n"
          "Package: libcudnn9-cuda-12\nStatus: install ok installed\nVersion: 9.1.0.70-1\n\n");
  const auto root = t.sysroot();
  PackageIndex index(root);
  const auto f = index.owner("/usr/lib/x86_64-linux-gnu", "libcudnn.so.9.1.0", 1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->manager, "dpkg");
  EXPECT_EQ(f->package, "libcudnn9-cuda-12");
  EXPECT_EQ(f->version, "9.1.0.70-1");
  EXPECT_EQ(f->record, "/var/lib/dpkg/info/libcudnn9-cuda-12.list");
  EXPECT_FALSE(f->size);
  const auto dev = index.owner("/usr/lib/x86_64-linux-gnu", "libcudnn_ops.so.9.1.0", 1);
  ASSERT_TRUE(dev) << "a multiarch .list name";
  EXPECT_EQ(dev->package, "libcudnn9-dev-cuda-12");
  EXPECT_EQ(dev->version, "") << "not in status";
  EXPECT_FALSE(index.owner("/usr/lib/x86_64-linux-gnu", "libz.so.1", 1));
}

TEST(package_records, dpkg_lists_of_non_gpu_packages_are_ignored) {
  test::TempDir t;
  t.write("/var/lib/dpkg/info/zlib1g:amd64.list", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9\n");
  const auto root = t.sysroot();
  PackageIndex index(root);
  EXPECT_FALSE(index.owner("/usr/lib/x86_64-linux-gnu", "libcudnn.so.9", 1));
}

TEST(package_records, no_records_anywhere_owns_nothing) {
  test::TempDir t;
  t.write("/usr/lib/libcudnn.so.9", "x");
  const auto root = t.sysroot();
  PackageIndex index(root);
  EXPECT_FALSE(index.owner("/usr/lib", "libcudnn.so.9", 1));
  EXPECT_FALSE(index.owner("/", "libcudnn.so.9", 1));
}

TEST(package_records, gpu_package_names) {
  for (const char* name : {"nvidia-cudnn-cu12",
                           "cudnn",
                           "libcudnn9-cuda-12",
                           "cuda-nvcc",
                           "cudatoolkit",
                           "libcublas-12-4",
                           "libnvidia-compute-535",
                           "libcuda1"}) {
    EXPECT_TRUE(collect::is_gpu_package_name(name)) << name;
  }
  for (const char* name : {"numpy", "torch", "nvidia", "cuda", "pycuda", "libc6", "tensorflow"}) {
    EXPECT_FALSE(collect::is_gpu_package_name(name)) << name;
  }
}

} // namespace
} // namespace doctor
