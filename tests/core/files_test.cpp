#include "core/files.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/test_util.hpp"

namespace kgo::core {

TEST(FilesTest, Sha256KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// The padding edges (55, 56, 63, 64 bytes) against Python's hashlib, on both code paths, and the
// accelerated path (where the CPU has one) against the portable one at every length up to 300.
TEST(FilesTest, Sha256PathsAgreeAtEveryPaddingEdge) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += static_cast<char>((i * 7 + 3) & 0xff);
  const std::vector<std::pair<size_t, std::string>> hashlib = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {1000, "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371"}};
  for (const auto& [n, want] : hashlib) {
    EXPECT_EQ(sha256_hex(data.substr(0, n)), want) << n;
    EXPECT_EQ(sha256_hex_portable(data.substr(0, n)), want) << n;
  }
  for (size_t n = 0; n <= 300; ++n) {
    EXPECT_EQ(sha256_hex(std::string_view(data).substr(n % 7, n)),
              sha256_hex_portable(std::string_view(data).substr(n % 7, n)))
        << n;
  }
  EXPECT_EQ(sha256_hex_portable(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(FilesTest, AtomicWriteReplacesAndLeavesNoTemp) {
  test::TempDir dir;
  fs::path p = dir / "a.json";
  write_file_atomic(p, "one");
  write_file_atomic(p, "two");
  EXPECT_EQ(read_file(p), "two");
  int count = 0;
  for (auto& e : fs::directory_iterator(dir.path())) {
    (void)e;
    ++count;
  }
  EXPECT_EQ(count, 1);
}

TEST(FilesTest, AtomicWriteIntoMissingDirThrows) {
  test::TempDir dir;
  EXPECT_THROW(write_file_atomic(dir / "no/such/dir/x", "x"), Error);
}

TEST(FilesTest, ReadMissingFile) {
  test::TempDir dir;
  EXPECT_FALSE(try_read_file(dir / "missing").has_value());
  EXPECT_THROW(read_file(dir / "missing"), Error);
}

TEST(FilesTest, TempDirIsFresh) {
  test::TempDir dir;
  fs::path a = make_temp_dir(dir.path(), "x");
  fs::path b = make_temp_dir(dir.path(), "x");
  EXPECT_NE(a, b);
  EXPECT_TRUE(fs::is_directory(a));
}

}  // namespace kgo::core
