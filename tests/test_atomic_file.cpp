// Files written through a temporary and a rename: replaced whole, nothing left behind, and errors
// that name the file the caller asked for and the reason, never the temporary.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "core/io/atomic_file.h"
#include "tests/test_support.h"

using namespace fovea;
namespace fs = std::filesystem;

namespace {

std::string write_error(const std::string& path) {
  try {
    write_file_atomically(path, "figure");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "NO ERROR";
}

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST(AtomicFile, ReplacesTheFileWholeAndLeavesNoTemporary) {
  test::TempDir dir("atomic");
  write_file_atomically(dir / "fig.png", "first version");
  write_file_atomically(dir / "fig.png", "second");
  std::ifstream in(dir / "fig.png", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "second");
  EXPECT_EQ(names_in(dir.path), std::vector<std::string>{"fig.png"});
  write_file_atomically(dir / "new/folder/fig.svg", "<svg/>");  // missing folders are made
  EXPECT_TRUE(fs::is_regular_file(dir / "new/folder/fig.svg"));
}

TEST(AtomicFile, ErrorsNameTheFileAskedForAndTheReason) {
  test::TempDir dir("atomic-errors");
  std::ofstream(dir / "notes.txt") << "a file, not a folder";
  const auto under_file = write_error(dir / "notes.txt/fig.png");
  EXPECT_EQ(under_file.rfind(dir / "notes.txt/fig.png: cannot create its folder", 0), 0u) << under_file;
  EXPECT_NE(under_file.find("Not a directory"), std::string::npos) << under_file;

  fs::create_directories(dir / "fig.png");
  const auto onto_folder = write_error(dir / "fig.png");
  EXPECT_EQ(onto_folder, dir / "fig.png" + ": is a folder, cannot write a file there");
  EXPECT_TRUE(fs::is_directory(dir / "fig.png"));

  for (const auto& message : {under_file, onto_folder}) EXPECT_EQ(message.find(".tmp-"), std::string::npos) << message;
  EXPECT_EQ(names_in(dir.path), (std::vector<std::string>{"fig.png", "notes.txt"}));
}
