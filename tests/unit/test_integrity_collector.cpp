// SPDX-License-Identifier: MIT
#include "support/temp_tree.hpp"

#include <doctor/collect/collect.hpp>
#include <doctor/platform/hash.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace doctor {
namespace {

using collect::CollectOptions;
using facts::Facts;
using facts::FileVerification;
using platform::HashAlgorithm;

constexpr const char* k_sp = "/venv/lib/python3.11/site-packages";
constexpr const char* k_lib = "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib";

std::string sha256_hex(std::string_view data) {
  return platform::hash_bytes(data, HashAlgorithm::sha256).value();
}

std::string md5_hex(std::string_view data) {
  return platform::hash_bytes(data, HashAlgorithm::md5).value();
}

// pip RECORD's form of a digest: "sha256=" and urlsafe base64 without padding.
std::string pip_digest(std::string_view data) {
  const std::string hex = sha256_hex(data);
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  static constexpr char k_abc[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out = "sha256=";
  std::uint32_t bits = 0;
  int count = 0;
  for (unsigned char c : bytes) {
    bits = (bits << 8U) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out.push_back(k_abc[(bits >> static_cast<unsigned>(count)) & 63U]);
    }
  }
  if (count > 0) {
    out.push_back(k_abc[(bits << static_cast<unsigned>(6 - count)) & 63U]);
  }
  return out;
}

std::string record_line(const std::string& rel, std::string_view data) {
  return rel + "," + pip_digest(data) + "," + std::to_string(data.size()) + "\n";
}

CollectOptions verify_options(const std::filesystem::path& cache_dir = {}) {
  CollectOptions o;
  o.verify = true;
  o.use_hash_cache = !cache_dir.empty();
  o.cache_dir = cache_dir;
  return o;
}

facts::PythonEnv venv() {
  facts::PythonEnv env;
  env.prefix = "/venv";
  env.kind = "venv";
  env.site_packages = facts::Fact<std::string>::known(k_sp, "test");
  return env;
}

const FileVerification* find_file(const Facts& f, std::string_view path) {
  for (const FileVerification& v : f.integrity.files) {
    if (v.path == path) {
      return &v;
    }
  }
  return nullptr;
}

const std::string k_good1(3000, 'a');
const std::string k_good2 = "the second library";
const std::string k_graph(5000, 'g');

// A pip site-packages with nvidia-cudnn-cu12: two files as recorded, one whose recorded digest
// is wrong, one truncated to 100 bytes, a header (not verified) and RECORD itself (no digest).
void make_pip_tree(const test::TempDir& t) {
  const std::string lib = k_lib;
  t.write(lib + "/libcudnn.so.9", k_good1);
  t.write(lib + "/libcudnn_ops.so.9", k_good2);
  t.write(lib + "/libcudnn_cnn.so.9", "cnn as installed");
  t.write(lib + "/libcudnn_graph.so.9", k_graph.substr(0, 100));
  t.write(std::string(k_sp) + "/nvidia/cudnn/include/cudnn.h", "changed header");
  t.write(std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD",
          record_line("nvidia/cudnn/lib/libcudnn.so.9", k_good1)
              + record_line("nvidia/cudnn/lib/libcudnn_ops.so.9", k_good2)
              + record_line("nvidia/cudnn/lib/libcudnn_cnn.so.9", "cnn as released.")
              + record_line("nvidia/cudnn/lib/libcudnn_graph.so.9", k_graph)
              + record_line("nvidia/cudnn/include/cudnn.h", "header")
              + "nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD,,\n");
}

TEST(integrity_collector, nothing_without_verify) {
  test::TempDir t;
  make_pip_tree(t);
  Facts f;
  f.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), CollectOptions{}, f);
  EXPECT_FALSE(f.integrity.requested);
  EXPECT_TRUE(f.integrity.files.empty());
  EXPECT_EQ(f.integrity.files_hashed, 0U);
}

TEST(integrity_collector, pip_record_digests_and_sizes_are_compared) {
  test::TempDir t;
  make_pip_tree(t);
  Facts f;
  f.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), verify_options(), f);
  ASSERT_TRUE(f.integrity.requested);
  ASSERT_EQ(f.integrity.files.size(), 4U) << "four libraries; the header and RECORD are not";
  EXPECT_TRUE(std::is_sorted(f.integrity.files.begin(),
                             f.integrity.files.end(),
                             [](const auto& a, const auto& b) { return a.path < b.path; }));
  EXPECT_EQ(f.integrity.files_hashed, 3U) << "the truncated one is decided by its size";
  EXPECT_EQ(f.integrity.bytes_hashed, k_good1.size() + k_good2.size() + 16);

  const std::string lib = k_lib;
  const auto* good = find_file(f, lib + "/libcudnn.so.9");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->manager, "pip");
  EXPECT_EQ(good->package, "nvidia-cudnn-cu12 9.1.0.70");
  EXPECT_EQ(good->record, std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD");
  EXPECT_EQ(good->algorithm, "sha256");
  EXPECT_EQ(good->expected, sha256_hex(k_good1));
  ASSERT_TRUE(good->actual);
  EXPECT_EQ(*good->actual, good->expected);
  EXPECT_EQ(good->actual.source(), "file:" + lib + "/libcudnn.so.9");
  EXPECT_EQ(good->expected_size, k_good1.size());
  EXPECT_EQ(good->actual_size, k_good1.size());

  const auto* ops = find_file(f, lib + "/libcudnn_ops.so.9");
  ASSERT_TRUE(ops && ops->actual);
  EXPECT_EQ(*ops->actual, ops->expected);

  const auto* cnn = find_file(f, lib + "/libcudnn_cnn.so.9");
  ASSERT_TRUE(cnn && cnn->actual);
  EXPECT_EQ(*cnn->actual, sha256_hex("cnn as installed"));
  EXPECT_EQ(cnn->expected, sha256_hex("cnn as released."));
  EXPECT_EQ(cnn->expected_size, cnn->actual_size) << "same size, other bytes";

  const auto* graph = find_file(f, lib + "/libcudnn_graph.so.9");
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph->expected_size, k_graph.size());
  EXPECT_EQ(graph->actual_size, 100U);
  ASSERT_FALSE(graph->actual) << "a size that differs is not hashed";
  EXPECT_EQ(graph->actual.reason(), "not hashed: its size differs from the record's");
}

TEST(integrity_collector, cache_makes_the_second_run_hash_nothing) {
  test::TempDir t;
  make_pip_tree(t);
  const auto cache = t.at("/doctor-cache");
  Facts first;
  first.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), verify_options(cache), first);
  EXPECT_EQ(first.integrity.files_hashed, 3U);
  EXPECT_TRUE(std::filesystem::is_regular_file(cache / "hashes-v1.json"));

  Facts second;
  second.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), verify_options(cache), second);
  EXPECT_EQ(second.integrity.files_hashed, 0U);
  EXPECT_EQ(second.integrity.bytes_hashed, 0U);
  ASSERT_EQ(second.integrity.files.size(), first.integrity.files.size());
  for (std::size_t i = 0; i < first.integrity.files.size(); ++i) {
    if (first.integrity.files[i].actual) {
      EXPECT_EQ(*second.integrity.files[i].actual, *first.integrity.files[i].actual);
      EXPECT_TRUE(second.integrity.files[i].actual.source().starts_with("cache:"));
    } else {
      EXPECT_FALSE(second.integrity.files[i].actual) << "the truncated one, again not hashed";
    }
  }

  // A file rewritten since is hashed again, and its new digest is what counts.
  t.write(std::string(k_lib) + "/libcudnn_graph.so.9", k_graph);
  Facts third;
  third.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), verify_options(cache), third);
  EXPECT_EQ(third.integrity.files_hashed, 1U);
  const auto* graph = find_file(third, std::string(k_lib) + "/libcudnn_graph.so.9");
  ASSERT_TRUE(graph && graph->actual);
  EXPECT_EQ(*graph->actual, graph->expected);

  // --no-cache hashes everything again.
  Facts uncached;
  uncached.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), verify_options(), uncached);
  EXPECT_EQ(uncached.integrity.files_hashed, 4U);
}

TEST(integrity_collector, dpkg_md5sums_are_compared_through_links_inside_the_root) {
  test::TempDir t;
  // Merged /usr with an absolute link: it must resolve inside the tree, never on the host.
  t.link("/usr/lib", "/lib");
  t.write("/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0", "good cudnn");
  t.write("/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.1.0", "bad ops!");
  t.write(
      "/var/lib/dpkg/info/libcudnn9-cuda-12:amd64.list",
      "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libcudnn.so.9.1.0\n"
      "/lib/x86_64-linux-gnu/libcudnn_ops.so.9.1.0\n/lib/x86_64-linux-gnu/libcudnn_adv.so.9.1.0\n"
      "/usr/share/doc/libcudnn9-cuda-12/copyright\n");
  t.write("/var/lib/dpkg/info/libcudnn9-cuda-12:amd64.md5sums",
          md5_hex("good cudnn") + "  lib/x86_64-linux-gnu/libcudnn.so.9.1.0\n" + md5_hex("good ops")
              + "  lib/x86_64-linux-gnu/libcudnn_ops.so.9.1.0\n" + md5_hex("gone")
              + "  lib/x86_64-linux-gnu/libcudnn_adv.so.9.1.0\n" + md5_hex("doc")
              + "  usr/share/doc/libcudnn9-cuda-12/copyright\n");
  t.write("/var/lib/dpkg/status", "Package: libcudnn9-cuda-12\nVersion: 9.1.0.70-1\n\n");
  Facts f;
  collect::collect_integrity(t.sysroot(), verify_options(), f);
  ASSERT_EQ(f.integrity.files.size(), 2U) << "the missing libcudnn_adv is not hashed";
  const auto* good = find_file(f, "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0");
  ASSERT_TRUE(good && good->actual);
  EXPECT_EQ(good->manager, "dpkg");
  EXPECT_EQ(good->package, "libcudnn9-cuda-12 9.1.0.70-1");
  EXPECT_EQ(good->record, "/var/lib/dpkg/info/libcudnn9-cuda-12:amd64.md5sums");
  EXPECT_EQ(good->algorithm, "md5");
  EXPECT_EQ(*good->actual, md5_hex("good cudnn"));
  EXPECT_EQ(good->expected, *good->actual);
  EXPECT_FALSE(good->expected_size);
  const auto* bad = find_file(f, "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.1.0");
  ASSERT_TRUE(bad && bad->actual);
  EXPECT_NE(*bad->actual, bad->expected);
}

TEST(integrity_collector, toolkit_tree_rearranged_from_wheels_is_verified) {
  test::TempDir t;
  const std::string tk = "/usr/local/cuda-13.0";
  t.write(tk + "/lib/libcudnn.so.9", k_good1);
  t.write(tk + "/lib/libcudnn_graph.so.9", k_graph.substr(0, 100));
  t.write(tk + "/bin/nvcc", "nvcc");
  t.link("libcudnn.so.9", tk + "/lib/libcudnn.so");
  t.write(tk + "/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD",
          record_line("nvidia/cudnn/lib/libcudnn.so.9", k_good1)
              + record_line("nvidia/cudnn/lib/libcudnn_graph.so.9", k_graph)
              + record_line("nvidia/cudnn/include/cudnn.h", "h"));
  t.write(tk + "/dist-info/nvidia_cuda_nvcc-13.0.88.dist-info/RECORD",
          record_line("nvidia/cu13/bin/nvcc", "nvcc"));
  Facts f;
  facts::CudaToolkit toolkit;
  toolkit.path = tk;
  toolkit.library_dirs = {tk + "/lib"};
  f.cuda_toolkits.push_back(toolkit);
  collect::collect_integrity(t.sysroot(), verify_options(), f);
  ASSERT_EQ(f.integrity.files.size(), 3U);
  EXPECT_EQ(f.integrity.files[0].path, tk + "/bin/nvcc");
  EXPECT_EQ(f.integrity.files[0].package, "nvidia-cuda-nvcc 13.0.88");
  EXPECT_EQ(*f.integrity.files[0].actual, f.integrity.files[0].expected);
  EXPECT_EQ(f.integrity.files[1].path, tk + "/lib/libcudnn.so.9");
  EXPECT_EQ(*f.integrity.files[1].actual, f.integrity.files[1].expected);
  EXPECT_EQ(f.integrity.files[2].path, tk + "/lib/libcudnn_graph.so.9");
  EXPECT_EQ(f.integrity.files[2].actual_size, 100U);
  EXPECT_EQ(f.integrity.files[2].expected_size, k_graph.size());
  EXPECT_EQ(f.integrity.files[2].record,
            tk + "/dist-info/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD");
}

TEST(integrity_collector, conda_paths_data_are_compared) {
  test::TempDir t;
  const std::string prefix = "/opt/conda/envs/dl";
  t.write(prefix + "/lib/libcudnn.so.9.1.0", k_good2);
  t.write(prefix + "/conda-meta/cudnn-9.1.0.70-h6ab5c71_0.json",
          R"({"name": "cudnn", "version": "9.1.0.70", "paths_data": {"paths": [
               {"_path": "lib/libcudnn.so.9.1.0", "sha256": ")"
              + sha256_hex(k_good2) + R"(", "size_in_bytes": )" + std::to_string(k_good2.size())
              + R"(},
               {"_path": "include/cudnn.h", "sha256": "00", "size_in_bytes": 1}]}})");
  Facts f;
  facts::PythonEnv env;
  env.prefix = prefix;
  env.kind = "conda";
  f.python_envs.push_back(env);
  collect::collect_integrity(t.sysroot(), verify_options(), f);
  ASSERT_EQ(f.integrity.files.size(), 1U);
  const FileVerification& v = f.integrity.files[0];
  EXPECT_EQ(v.manager, "conda");
  EXPECT_EQ(v.package, "cudnn 9.1.0.70");
  EXPECT_EQ(v.record, prefix + "/conda-meta/cudnn-9.1.0.70-h6ab5c71_0.json");
  ASSERT_TRUE(v.actual);
  EXPECT_EQ(*v.actual, v.expected);
  EXPECT_EQ(v.expected_size, k_good2.size());
}

TEST(integrity_collector, many_files_are_hashed_in_parallel_each_once) {
  test::TempDir t;
  std::string record;
  for (int i = 0; i < 40; ++i) {
    const std::string data(static_cast<std::size_t>(1000 * (i + 1)),
                           static_cast<char>('a' + i % 26));
    const std::string rel = "nvidia/cublas/lib/libcublas" + std::to_string(i) + ".so.12";
    t.write(std::string(k_sp) + "/" + rel, data);
    record += record_line(rel, data);
  }
  t.write(std::string(k_sp) + "/nvidia_cublas_cu12-12.4.5.8.dist-info/RECORD", record);
  Facts f;
  f.python_envs.push_back(venv());
  f.python_envs.push_back(venv()); // the same site-packages twice is read once
  collect::collect_integrity(t.sysroot(), verify_options(), f);
  ASSERT_EQ(f.integrity.files.size(), 40U);
  EXPECT_EQ(f.integrity.files_hashed, 40U);
  for (const FileVerification& v : f.integrity.files) {
    ASSERT_TRUE(v.actual) << v.path;
    EXPECT_EQ(*v.actual, v.expected) << v.path;
  }
}

TEST(integrity_collector, unreadable_library_is_unknown_with_the_reason) {
  if (test::running_as_root()) {
    GTEST_SKIP() << "root reads every file";
  }
  test::TempDir t;
  make_pip_tree(t);
  std::filesystem::permissions(t.at(std::string(k_lib) + "/libcudnn_ops.so.9"),
                               std::filesystem::perms::none);
  Facts f;
  f.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), verify_options(), f);
  const auto* ops = find_file(f, std::string(k_lib) + "/libcudnn_ops.so.9");
  ASSERT_TRUE(ops);
  ASSERT_FALSE(ops->actual);
  // The tree's owner is this user, who may not read it: decided from the bits, before any open.
  EXPECT_TRUE(ops->actual.reason().starts_with("not read: the owner of " + std::string(k_sp)))
      << ops->actual.reason();
  EXPECT_TRUE(ops->actual.reason().ends_with(") may not read it")) << ops->actual.reason();
  EXPECT_FALSE(ops->actual_size);
  EXPECT_EQ(f.integrity.files_hashed, 2U);
}

// A venv owner's link towards a root-only file, and a RECORD line that climbs out with "..":
// neither is followed, and nothing of what they lead to (path, size, digest) is recorded.
TEST(integrity_collector, paths_out_of_the_package_tree_are_not_followed) {
  test::TempDir t;
  make_pip_tree(t);
  t.write("/etc/shadow", "root:secret");
  t.write("/usr/bin/tool", "tool");
  t.link("/etc/shadow", std::string(k_lib) + "/libcudnn_leak.so.9");
  t.write(std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD",
          record_line("nvidia/cudnn/lib/libcudnn.so.9", k_good1)
              + record_line("nvidia/cudnn/lib/libcudnn_leak.so.9", "x")
              + record_line("../../../../usr/bin/tool", "tool"));
  Facts f;
  f.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), verify_options(), f);
  ASSERT_EQ(f.integrity.files.size(), 3U);
  EXPECT_EQ(f.integrity.files_hashed, 1U);
  for (const FileVerification& v : f.integrity.files) {
    EXPECT_NE(v.path, "/etc/shadow");
  }
  const auto* leak = find_file(f, std::string(k_lib) + "/libcudnn_leak.so.9");
  ASSERT_TRUE(leak);
  ASSERT_FALSE(leak->actual);
  EXPECT_EQ(leak->actual.reason(),
            "not examined: it leads out of " + std::string(k_sp) + ", the package's tree");
  EXPECT_FALSE(leak->actual_size);
  const auto* tool = find_file(f, "/usr/bin/tool");
  ASSERT_TRUE(tool);
  EXPECT_FALSE(tool->actual);
  EXPECT_FALSE(tool->actual_size);
}

// A RECORD past the 16 MB a record is read to is not read, and named as unread: its files were
// not verified, which is not the same as "no record".
TEST(integrity_collector, record_too_large_to_read_is_named_not_skipped) {
  test::TempDir t;
  make_pip_tree(t);
  std::string record = record_line("nvidia/cudnn/lib/libcudnn.so.9", k_good1);
  while (record.size() <= std::size_t{16} * 1024 * 1024) {
    record +=
        record_line("nvidia/cudnn/include/padding_" + std::to_string(record.size()) + ".h", "h");
  }
  t.write(std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD", record);
  Facts f;
  f.python_envs.push_back(venv());
  collect::collect_integrity(t.sysroot(), verify_options(), f);
  EXPECT_TRUE(f.integrity.files.empty());
  ASSERT_EQ(f.integrity.unread_records.size(), 1U);
  const facts::UnreadPackageRecord& u = f.integrity.unread_records[0];
  EXPECT_EQ(u.record, std::string(k_sp) + "/nvidia_cudnn_cu12-9.1.0.70.dist-info/RECORD");
  EXPECT_EQ(u.manager, "pip");
  EXPECT_EQ(u.package, "nvidia-cudnn-cu12 9.1.0.70");
  EXPECT_EQ(u.reason, "larger than 16 MB, the most a package record is read to");
}

} // namespace
} // namespace doctor
