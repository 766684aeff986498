// SPDX-License-Identifier: MIT
#include <doctor/platform/linux/fd.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>

#include <cerrno>
#include <utility>

namespace doctor::platform {
namespace {

// True if `fd` names an open file description of this process.
bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

TEST(fd, closes_its_descriptor_at_the_end_of_its_scope) {
  int raw = -1;
  {
    const Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd);
    raw = fd.get();
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));
}

TEST(fd, a_failed_open_owns_nothing) {
  const Fd fd(::open("/nonexistent/doctor-test", O_RDONLY | O_CLOEXEC));
  EXPECT_FALSE(fd);
  EXPECT_EQ(fd.get(), -1);
  EXPECT_FALSE(Fd());
}

TEST(fd, reset_closes_now_and_release_hands_the_descriptor_on) {
  Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int raw = fd.get();
  fd.reset();
  EXPECT_FALSE(fd);
  EXPECT_FALSE(is_open(raw));
  fd.reset(); // a second reset is harmless

  Fd other(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int kept = other.release();
  EXPECT_FALSE(other);
  EXPECT_TRUE(is_open(kept));
  EXPECT_EQ(::close(kept), 0);
}

TEST(fd, moving_transfers_ownership) {
  Fd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int raw = a.get();
  Fd b(std::move(a));
  EXPECT_FALSE(a); // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(b.get(), raw);
  Fd c(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int replaced = c.get();
  c = std::move(b);
  EXPECT_EQ(c.get(), raw);
  EXPECT_FALSE(is_open(replaced)); // the descriptor c held before is closed
  EXPECT_TRUE(is_open(raw));
}

} // namespace
} // namespace doctor::platform
