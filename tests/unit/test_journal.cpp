// SPDX-License-Identifier: MIT
// Reads real journal files: the test writes a journal export stream (systemd.io
// JOURNAL_EXPORT_FORMATS) holding real kernel lines of ../shared/testdata, has
// systemd-journal-remote turn it into a .journal file, and reads that back through libsystemd.
// Linux only; skips when systemd-journal-remote, libsystemd.so.0 or the sample logs are absent.
#include "support/shared_testdata.hpp"
#include "support/test_paths.hpp"

#include <doctor/collect/linux/journal.hpp>

#include <gtest/gtest.h>

#include <stdlib.h> // mkdtemp

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace doctor {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_boot_a = "0b7c1f0e2d4a4e6f9a1b2c3d4e5f6a7b";
constexpr const char* k_boot_b = "f1e2d3c4b5a697881726354453627180";

std::string journal_remote() {
  for (const char* p :
       {"/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote"}) {
    if (fs::exists(p)) {
      return p;
    }
  }
  return {};
}

// Line `n` (1-based) of a shared sample log, with `prefix_end` (the text ending the timestamp
// prefix) and everything before it removed; empty if the file is absent.
std::string real_line(const std::string& file, int n, const std::string& prefix_end) {
  std::ifstream in(fs::path(test::shared_testdata_dir()) / "linux-logs" / file);
  std::string line;
  for (int i = 0; i < n && std::getline(in, line); ++i) {
  }
  if (!in) {
    return {};
  }
  const auto at = line.find(prefix_end);
  return at == std::string::npos ? std::string() : line.substr(at + prefix_end.size());
}

// One field in export format: text form, or the binary form (name, newline, little-endian 64-bit
// size, bytes, newline) when the value holds a newline.
std::string field(const std::string& name, const std::string& value) {
  if (value.find('\n') == std::string::npos) {
    return name + "=" + value + "\n";
  }
  std::string out = name + "\n";
  std::uint64_t size = value.size();
  for (int i = 0; i < 8; ++i) {
    out += static_cast<char>(size & 0xFFU);
    size >>= 8U;
  }
  return out + value + "\n";
}

struct Entry {
  std::string boot;
  std::uint64_t realtime = 0;
  std::uint64_t monotonic = 0;
  std::string transport;
  int priority = 0;
  std::string message;
};

class JournalTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_remote = journal_remote();
    if (m_remote.empty()) {
      GTEST_SKIP() << "systemd-journal-remote is not installed";
    }
    m_xid13 = real_line("dmesg.decode.iso.log", 3, "+00:00 ");
    m_xid119 = real_line("dmesg-with-xid-119.log", 3, "2025] ");
    if (m_xid13.empty() || m_xid119.empty()) {
      DOCTOR_MISSING_TESTDATA("linux-logs/dmesg.decode.iso.log, dmesg-with-xid-119.log");
    }
    std::string dir = (fs::temp_directory_path() / "doctor-journal-XXXXXX").string();
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    m_dir = dir;
  }

  void TearDown() override {
    if (!m_dir.empty()) {
      std::error_code ec;
      fs::remove_all(m_dir, ec);
    }
  }

  // Writes `entries` as an export stream and converts it into `name` (a .journal file).
  fs::path make_journal(const std::vector<Entry>& entries, const std::string& name) {
    std::string stream;
    for (const Entry& e : entries) {
      stream += field("__REALTIME_TIMESTAMP", std::to_string(e.realtime));
      stream += field("__MONOTONIC_TIMESTAMP", std::to_string(e.monotonic));
      stream += field("_BOOT_ID", e.boot);
      stream += field("_TRANSPORT", e.transport);
      stream += field("PRIORITY", std::to_string(e.priority));
      stream += field("SYSLOG_IDENTIFIER", e.transport == "kernel" ? "kernel" : "systemd");
      stream += field("MESSAGE", e.message);
      stream += "\n";
    }
    const fs::path exported = m_dir / (name + ".export");
    std::ofstream(exported, std::ios::binary) << stream;
    const fs::path out = m_dir / name;
    const std::string cmd =
        m_remote + " --output=" + out.string() + " - < " + exported.string() + " > /dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    EXPECT_TRUE(fs::exists(out)) << out;
    return out;
  }

  // Two boots, each with kernel lines, and a service's line that is not kernel transport.
  std::vector<Entry> two_boots() const {
    return {
        {k_boot_a, 1737434504283575ULL, 93297027938ULL, "kernel", 4, m_xid13},
        {k_boot_a, 1737434504300000ULL, 93297044363ULL, "stdout", 6, "worker: Xid (not kernel)"},
        {k_boot_a,
         1737434510000000ULL,
         93302744363ULL,
         "kernel",
         6,
         "NVRM: GPU at PCI:0000:0a:00: GPU-760d0170-b7c5-6817-9414-6cc7112645de\n"},
        {k_boot_b, 1740327858000000ULL, 12014918ULL, "kernel", 3, m_xid119},
    };
  }

  std::string m_remote;
  std::string m_xid13;
  std::string m_xid119;
  fs::path m_dir;
};

// Skips the calling test when libsystemd cannot be loaded here.
#define REQUIRE_LIBSYSTEMD(read)                                                                   \
  if (!(read) && (read).error().code == ErrorCode::unsupported) {                                  \
    GTEST_SKIP() << (read).error().message;                                                        \
  }

TEST_F(JournalTest, reads_kernel_lines_of_two_boots_in_order) {
  const fs::path file = make_journal(two_boots(), "remote.journal");
  auto read = collect::read_journal({file.string()}, 100);
  REQUIRE_LIBSYSTEMD(read);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_NE(read->library.find("libsystemd"), std::string::npos) << read->library;
  ASSERT_EQ(read->lines.size(), 3U);
  EXPECT_EQ(read->boots, (std::vector<std::string>{k_boot_a, k_boot_b}));

  const collect::JournalLine& first = read->lines[0];
  EXPECT_EQ(first.text, m_xid13);
  EXPECT_EQ(first.text.rfind("NVRM: Xid (PCI:0000:38:00): 13, ", 0), 0U) << first.text;
  EXPECT_EQ(first.level, 4);
  EXPECT_EQ(first.when.boot, k_boot_a);
  EXPECT_EQ(first.when.utc_usec, 1737434504283575LL);
  EXPECT_EQ(first.when.uptime_usec, 93297027938LL);
  EXPECT_EQ(first.origin.source, file.string());
  EXPECT_EQ(first.origin.locator.rfind("cursor s=", 0), 0U) << first.origin.locator;

  // A binary-encoded message keeps its text; the trailing newline goes.
  EXPECT_EQ(read->lines[1].text,
            "NVRM: GPU at PCI:0000:0a:00: GPU-760d0170-b7c5-6817-9414-6cc7112645de");
  EXPECT_EQ(read->lines[1].level, 6);

  const collect::JournalLine& last = read->lines[2];
  EXPECT_EQ(last.text, m_xid119);
  EXPECT_NE(last.text.find("119, pid=2024380, name=nvidia-smi"), std::string::npos);
  EXPECT_EQ(last.level, 3);
  EXPECT_EQ(last.when.boot, k_boot_b);
  EXPECT_EQ(last.when.utc_usec, 1740327858000000LL);
  EXPECT_EQ(last.when.uptime_usec, 12014918LL);
}

TEST_F(JournalTest, keeps_the_newest_lines) {
  const fs::path file = make_journal(two_boots(), "remote.journal");
  auto read = collect::read_journal({file.string()}, 2);
  REQUIRE_LIBSYSTEMD(read);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->lines.size(), 2U);
  EXPECT_EQ(read->lines[0].text.rfind("NVRM: GPU at PCI:0000:0a:00", 0), 0U);
  EXPECT_EQ(read->lines[1].text, m_xid119);

  auto none = collect::read_journal({file.string()}, 0);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->lines.empty());
  EXPECT_TRUE(none->boots.empty());
}

TEST_F(JournalTest, reads_a_directory_like_var_log_journal) {
  // /var/log/journal/<machine-id>/system.journal, one level down.
  const fs::path file = make_journal(two_boots(), "remote.journal");
  const fs::path machine = m_dir / "journal" / "4a6f0c3e9b2d4f1a8c7e6d5b4a392817";
  fs::create_directories(machine);
  fs::rename(file, machine / "system.journal");
  std::ofstream(machine / "notes.txt") << "not a journal";
  auto read = collect::read_journal({(m_dir / "journal").string()}, 100);
  REQUIRE_LIBSYSTEMD(read);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->lines.size(), 3U);
  EXPECT_EQ(read->boots.size(), 2U);
}

TEST_F(JournalTest, reports_missing_paths_and_empty_directories) {
  auto missing = collect::read_journal({(m_dir / "nope.journal").string()}, 10);
  REQUIRE_LIBSYSTEMD(missing);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_NE(missing.error().message.find("nope.journal"), std::string::npos);

  fs::create_directories(m_dir / "empty");
  auto empty = collect::read_journal({(m_dir / "empty").string()}, 10);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, ErrorCode::not_found);
  EXPECT_NE(empty.error().message.find("no journal files"), std::string::npos);
}

TEST_F(JournalTest, a_damaged_file_is_an_error_or_empty_never_a_crash) {
  const fs::path junk = m_dir / "junk.journal";
  std::ofstream(junk, std::ios::binary) << std::string(4096, 'L') << "LPKSHHRH garbage";
  auto read = collect::read_journal({junk.string()}, 10);
  REQUIRE_LIBSYSTEMD(read);
  if (read) {
    EXPECT_TRUE(read->lines.empty());
  } else {
    EXPECT_NE(read.error().message.find("junk.journal"), std::string::npos) << read.error().message;
  }
}

// An image's /var/log/journal/<machine-id>/system.journal that is an absolute link: it names the
// image's file at that path, never the host's. The host's journal (Xid 119) must not be read.
TEST_F(JournalTest, an_absolute_link_in_an_image_stays_in_the_image) {
  const fs::path host = make_journal({two_boots()[3]}, "host.journal");
  const fs::path inside = make_journal({two_boots()[0]}, "inside.journal");
  const fs::path image = m_dir / "image";
  const fs::path same_path_in_image = image / host.relative_path();
  fs::create_directories(same_path_in_image.parent_path());
  fs::rename(inside, same_path_in_image);
  const fs::path machine = image / "var/log/journal/4a6f0c3e9b2d4f1a8c7e6d5b4a392817";
  fs::create_directories(machine);
  fs::create_symlink(host, machine / "system.journal");

  const platform::SysRoot root(image, platform::Environment(), platform::OsFamily::linux, false);
  auto read = collect::read_journal(root, {"/var/log/journal"}, 100);
  REQUIRE_LIBSYSTEMD(read);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->lines.size(), 1U);
  EXPECT_EQ(read->lines[0].text, m_xid13);
  EXPECT_EQ(read->lines[0].origin.source, "/var/log/journal");
  EXPECT_EQ(read->boots, (std::vector<std::string>{k_boot_a}));

  // Without the image's file the link leads nowhere: an error, not the host's journal.
  fs::remove(same_path_in_image);
  auto dangling = collect::read_journal(root, {"/var/log/journal"}, 100);
  ASSERT_FALSE(dangling);
  EXPECT_EQ(dangling.error().code, ErrorCode::not_found);
}

} // namespace
} // namespace doctor
