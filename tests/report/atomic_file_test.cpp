#include "files/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gputopo::files {
namespace {
namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gputopo-atomic-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndReplacesLeavingNoTemporaryFile) {
  const fs::path file = dir_ / "report.json";
  write_file_atomically(file.string(), "first\n");
  EXPECT_EQ(read(file), "first\n");
  write_file_atomically(file.string(), "second, longer\n");
  EXPECT_EQ(read(file), "second, longer\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, FileGetsOrdinaryPermissions) {
  const fs::path file = dir_ / "r.json";
  write_file_atomically(file.string(), "x");
  mode_t mask = umask(0);
  umask(mask);
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all, static_cast<fs::perms>(0666 & ~mask));
}

TEST_F(AtomicFile, MissingDirectoryFailsWithOneLineReason) {
  const fs::path file = dir_ / "missing" / "r.json";
  EXPECT_NE(why_not_writable(file.string()).find("does not exist"), std::string::npos);
  try {
    write_file_atomically(file.string(), "x");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cannot write"), std::string::npos);
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST_F(AtomicFile, DirectoryInPlaceOfTheFileIsRefused) {
  EXPECT_NE(why_not_writable(dir_.string()).find("is a directory"), std::string::npos);
  EXPECT_THROW(write_file_atomically(dir_.string(), "x"), std::runtime_error);
}

TEST_F(AtomicFile, UnwritableDirectoryIsRefusedAndOldContentKept) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  const fs::path file = dir_ / "r.json";
  write_file_atomically(file.string(), "old");
  fs::permissions(dir_, fs::perms::owner_write, fs::perm_options::remove);
  EXPECT_NE(why_not_writable(file.string()).find("not writable"), std::string::npos);
  EXPECT_THROW(write_file_atomically(file.string(), "new"), std::runtime_error);
  fs::permissions(dir_, fs::perms::owner_write, fs::perm_options::add);
  EXPECT_EQ(read(file), "old");
}

TEST_F(AtomicFile, PlainFileNameMeansCurrentDirectory) {
  EXPECT_EQ(why_not_writable("report.json"),
            access(".", W_OK) == 0 ? "" : "directory . is not writable");
  EXPECT_EQ(why_not_writable(""), "empty file name");
}

}  // namespace
}  // namespace gputopo::files
