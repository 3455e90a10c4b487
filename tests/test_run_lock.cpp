// One writer per run folder: a second run into a folder, or a second resume of it, is refused
// with the holder's pid and host while the first holds it, and goes ahead once it has ended.
#include <gtest/gtest.h>
#include <unistd.h>

#include "core/train/run_lock.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"
#include "tests/training_support.h"

using namespace fovea;

namespace {

std::string this_host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

TEST(RunLock, ASecondHolderIsRefusedWithThePidAndHostOfTheFirst) {
  test::TempDir dir("lock");
  const auto folder = dir / "run";
  {
    RunLock first(folder);
    const auto message = test::error_message([&] { RunLock second(folder); });
    EXPECT_EQ(message, folder + ": another run is writing to this folder (pid " + std::to_string(::getpid()) + " on host " +
                           this_host() + "); wait for it to end or stop it, or choose another folder");
  }
  EXPECT_NO_THROW(RunLock again(folder)) << "the lock ends with its holder";
}

TEST(RunLock, TrainAndResumeRefuseAFolderAnotherRunWrites) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("lock-train");
  auto config = test::trained_tiny_run(dir);
  {
    RunLock other(config.out_dir);  // another process training into the folder
    const auto resumed = test::error_message([&] { resume_training(config.out_dir, {}, {}, 0, 4); });
    EXPECT_NE(resumed.find(config.out_dir + ": another run is writing to this folder (pid "), std::string::npos) << resumed;
    auto fresh = config;
    fresh.out_dir = dir / "fresh";
    RunLock other_fresh(fresh.out_dir);
    const auto started = test::error_message([&] { train(fresh); });
    EXPECT_NE(started.find(fresh.out_dir + ": another run is writing to this folder"), std::string::npos) << started;
  }
  EXPECT_EQ(resume_training(config.out_dir, {}, {}, 0, 4).steps, 4);
}
