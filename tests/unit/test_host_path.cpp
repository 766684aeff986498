// SPDX-License-Identifier: MIT
#include <doctor/platform/file.hpp>
#include <doctor/platform/host_path.hpp>
#include <doctor/platform/sysroot.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <system_error>

// Built for Linux and for Windows (run under wine): the same UTF-8 text names the same file on
// both, read and written through the real file system.
namespace doctor {
namespace {

namespace fs = std::filesystem;

const std::string k_zhang_wei = "\xe5\xbc\xa0\xe4\xbc\x9f";  // 张伟
const std::string k_gerard = "G\xc3\xa9rard";                // Gérard
const std::string k_report = "\xe6\x8a\xa5\xe5\x91\x8a.txt"; // 报告.txt

// A fresh directory under the system's temporary directory, removed at the end of the test.
class HostPathTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    m_dir = fs::temp_directory_path() / ("doctor-host-path-" + std::to_string(stamp));
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  fs::path m_dir;
};

TEST(host_path, utf8_gives_back_the_text_u8path_was_given) {
  for (const std::string& text : {std::string("plain/ascii.log"),
                                  k_zhang_wei + "/" + k_report,
                                  k_gerard + "/" + k_zhang_wei,
                                  std::string()}) {
    EXPECT_EQ(platform::utf8(platform::u8path(text)), text);
  }
}

#ifdef _WIN32
TEST(host_path, windows_reads_the_text_as_utf8_not_the_ansi_code_page) {
  EXPECT_EQ(platform::u8path(k_zhang_wei).native(), std::wstring(L"\u5f20\u4f1f"));
  EXPECT_EQ(platform::u8path(k_gerard).native(), std::wstring(L"G\u00e9rard"));
  EXPECT_EQ(platform::utf8(fs::path(L"C:\\Users\\\u5f20\u4f1f")), "C:\\Users\\" + k_zhang_wei);
  EXPECT_EQ(platform::generic_utf8(fs::path(L"C:\\Users\\\u5f20\u4f1f")),
            "C:/Users/" + k_zhang_wei);
}

TEST(host_path, windows_unpaired_surrogate_becomes_a_replacement_character) {
  // An NTFS name may hold one; path::string() would throw on it.
  const fs::path odd(std::wstring(L"a") + wchar_t(0xD800) + L"b");
  EXPECT_EQ(platform::utf8(odd),
            "a\xef\xbf\xbd"
            "b");
}
#else
TEST(host_path, linux_keeps_the_bytes_whatever_they_encode) {
  const std::string latin1 = "G\xe9rard"; // not UTF-8: a name written in ISO-8859-1
  EXPECT_EQ(platform::u8path(latin1).native(), latin1);
  EXPECT_EQ(platform::utf8(platform::u8path(latin1)), latin1);
  EXPECT_EQ(platform::generic_utf8(fs::path("/opt/" + k_zhang_wei)), "/opt/" + k_zhang_wei);
}
#endif

TEST_F(HostPathTest, a_file_named_in_utf8_is_written_listed_and_read_back) {
  const fs::path folder = m_dir / platform::u8path(k_zhang_wei);
  fs::create_directories(folder);
  ASSERT_TRUE(platform::write_file(folder / platform::u8path(k_report), "report"));
  auto listing = platform::list_directory(folder);
  ASSERT_TRUE(listing) << listing.error().message;
  ASSERT_EQ(listing->size(), 1U);
  EXPECT_EQ((*listing)[0].name, k_report);
  // The same file, named by text alone, as a command line names it.
  auto text = platform::read_file(platform::u8path(platform::utf8(folder) + "/" + k_report), 100);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "report");
}

TEST_F(HostPathTest, a_sysroot_named_in_utf8_joins_inner_paths_named_in_utf8) {
  const fs::path root = m_dir / platform::u8path(k_gerard);
  fs::create_directories(root / "etc" / platform::u8path(k_zhang_wei));
  ASSERT_TRUE(platform::write_file(root / "etc" / platform::u8path(k_zhang_wei) / "os-release",
                                   "NAME=\"Ubuntu\"\n"));
  const platform::SysRoot sysroot(platform::u8path(platform::utf8(root)),
                                  platform::Environment(),
                                  platform::OsFamily::linux,
                                  false);
  auto text = sysroot.read_file("/etc/" + k_zhang_wei + "/os-release", 100);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "NAME=\"Ubuntu\"\n");
  auto listing = sysroot.list_dir("/etc");
  ASSERT_TRUE(listing) << listing.error().message;
  ASSERT_EQ(listing->size(), 1U);
  EXPECT_EQ((*listing)[0].name, k_zhang_wei);
}

} // namespace
} // namespace doctor
