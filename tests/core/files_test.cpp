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
