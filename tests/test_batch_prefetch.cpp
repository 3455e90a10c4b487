// The next training batch made on a worker thread (core/train/batch_prefetch.h): the batch asked
// for is always the one of that (epoch, step), made ahead on another thread when it was the one
// expected, made now when it was not (a rollback, a precision trial), and never two at once.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "core/train/batch_prefetch.h"

using namespace fovea;

namespace {

/// A maker that labels each batch with its (epoch, step) and notes the thread and overlap.
struct Maker {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> running{0}, most_at_once{0}, made{0};

  Batch operator()(std::int64_t epoch, std::int64_t step) {
    const int now = ++running;
    most_at_once = std::max(most_at_once.load(), now);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    {
      std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    ++made;
    --running;
    Batch b;
    b.tokens = torch::tensor({epoch, step});
    return b;
  }
};

void expect_batch(const Batch& b, std::int64_t epoch, std::int64_t step) {
  ASSERT_TRUE(b.tokens.defined());
  EXPECT_EQ(b.tokens[0].item<std::int64_t>(), epoch);
  EXPECT_EQ(b.tokens[1].item<std::int64_t>(), step);
}

}  // namespace

TEST(BatchPrefetch, HandsOutEachStepsBatchMadeAheadOnAnotherThread) {
  Maker maker;
  BatchPrefetch prefetch([&](std::int64_t e, std::int64_t s) { return maker(e, s); }, true);
  for (std::int64_t step = 0; step < 6; ++step) {
    const std::int64_t epoch = step / 3;
    expect_batch(prefetch.take(epoch, step, (step + 1) / 3, step + 1), epoch, step);
  }
  prefetch.cancel();
  EXPECT_EQ(maker.made.load(), 7) << "the six asked for and the one made ahead of the seventh";
  EXPECT_EQ(maker.most_at_once.load(), 1);
  EXPECT_GE(maker.threads.size(), 2u) << "made on workers, not only here";
  EXPECT_EQ(maker.threads.count(std::this_thread::get_id()), 1u) << "the first batch had nothing ahead of it";
}

TEST(BatchPrefetch, AnotherBatchThanTheOneMadeAheadIsMadeNow) {
  Maker maker;
  BatchPrefetch prefetch([&](std::int64_t e, std::int64_t s) { return maker(e, s); }, true);
  expect_batch(prefetch.take(0, 4, 0, 5), 0, 4);
  expect_batch(prefetch.take(0, 2, 0, 3), 0, 2);  // a rollback: step 5 was made ahead for nothing
  expect_batch(prefetch.take(0, 3, 0, 4), 0, 3);
  EXPECT_EQ(maker.most_at_once.load(), 1);
}

TEST(BatchPrefetch, WithoutACoreToSpareEveryBatchIsMadeHereWhenAskedFor) {
  Maker maker;
  BatchPrefetch prefetch([&](std::int64_t e, std::int64_t s) { return maker(e, s); }, false);
  for (std::int64_t step = 0; step < 3; ++step) expect_batch(prefetch.take(0, step, 0, step + 1), 0, step);
  EXPECT_EQ(maker.made.load(), 3);
  EXPECT_EQ(maker.threads.size(), 1u);
  EXPECT_TRUE(prefetch_has_a_core(torch::Device("cuda"), 1) || std::thread::hardware_concurrency() < 2);
  EXPECT_FALSE(prefetch_has_a_core(torch::Device("cpu"), std::int64_t(std::thread::hardware_concurrency())))
      << "a process per core, each with a step thread: no core left for workers";
}

TEST(BatchPrefetch, AnErrorMakingTheBatchReachesWhoAsksForIt) {
  BatchPrefetch prefetch(
      [](std::int64_t, std::int64_t step) -> Batch {
        if (step == 1) throw std::runtime_error("scene 17: the image file is truncated");
        return Batch{};
      },
      true);
  (void)prefetch.take(0, 0, 0, 1);
  EXPECT_THROW((void)prefetch.take(0, 1, 0, 2), std::runtime_error);
}
