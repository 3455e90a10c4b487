// The process group behind multi-process training: torchrun's environment, and Gloo collectives
// between two ranks (threads of this test standing in for two processes).
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <thread>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include "core/train/process_group.h"

using namespace fovea;

namespace {

std::function<const char*(const char*)> environment(std::map<std::string, std::string> values) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(values));
  return [shared](const char* name) -> const char* {
    const auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

/// Rank 0 here and rank 1 on a thread, as two processes would, each joining the group of `env`
/// (60 s to join) and doing `work` in it: what each threw, "" where nothing.
std::array<std::string, 2> errors_of_two_ranks(const ProcessGroupEnvironment& env,
                                               const std::function<void(ProcessGroup&, int)>& work) {
  std::array<std::string, 2> errors;
  const auto run = [&](int rank) {
    errors[std::size_t(rank)] = error_of([&] {
      auto mine = env;
      mine.rank = rank;
      ProcessGroup group(mine, std::chrono::seconds(60));
      work(group, rank);
    });
  };
  std::thread second(run, 1);
  run(0);
  second.join();
  return errors;
}

}  // namespace

TEST(ProcessGroup, ReadsTorchrunsEnvironmentAndNamesAWrongVariable) {
  EXPECT_FALSE(process_group_environment(environment({})).has_value()) << "not launched as a group";
  const auto env = process_group_environment(environment(
      {{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "node7"}, {"MASTER_PORT", "29400"}}));
  ASSERT_TRUE(env.has_value());
  EXPECT_EQ(env->rank, 3);
  EXPECT_EQ(env->world_size, 4);
  EXPECT_EQ(env->local_rank, 1);
  EXPECT_EQ(env->master_addr, "node7");
  EXPECT_EQ(env->master_port, 29400);
  EXPECT_FALSE(env->agent_store);
  EXPECT_EQ(env->restart_count, 0);
  auto agent = std::map<std::string, std::string>{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1234"},
                                                  {"TORCHELASTIC_USE_AGENT_STORE", "True"}, {"TORCHELASTIC_RESTART_COUNT", "2"}};
  EXPECT_TRUE(process_group_environment(environment(agent))->agent_store);
  EXPECT_EQ(process_group_environment(environment(agent))->restart_count, 2);
  agent["TORCHELASTIC_USE_AGENT_STORE"] = "False";  // torchrun's c10d rendezvous: rank 0 serves the store
  EXPECT_FALSE(process_group_environment(environment(agent))->agent_store);

  const auto error = [](std::map<std::string, std::string> values) {
    return error_of([&] { process_group_environment(environment(values)); });
  };
  const std::map<std::string, std::string> good{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1234"}};
  auto bad = good;
  bad["RANK"] = "2";
  EXPECT_NE(error(bad).find("RANK=2 is out of range (0..1)"), std::string::npos) << error(bad);
  bad = good;
  bad["MASTER_PORT"] = "12x";
  EXPECT_NE(error(bad).find("MASTER_PORT=12x is not a number"), std::string::npos) << error(bad);
  bad = good;
  bad.erase("MASTER_ADDR");
  EXPECT_NE(error(bad).find("MASTER_ADDR is not set"), std::string::npos) << error(bad);
  bad = good;
  bad.erase("RANK");
  EXPECT_NE(error(bad).find("RANK is not set"), std::string::npos) << error(bad);
}

TEST(ProcessGroup, TwoRanksSumTheirTensorsInBucketsAndShareRankZerosValues) {
  ProcessGroupEnvironment env;
  env.world_size = 2;
  env.master_port = find_free_port();
  std::vector<torch::Tensor> results[2];
  std::vector<torch::Tensor> broadcast[2];
  std::string texts[2];
  double sums[2] = {0, 0};
  const auto errors = errors_of_two_ranks(env, [&](ProcessGroup& group, int rank) {
    // Two float tensors, one double, one empty; a bucket of 40 bytes holds one float tensor
    // at a time, so this takes several collectives.
    const float r = float(rank + 1);
    results[rank] = {torch::full({2, 3}, r), torch::arange(5, torch::kFloat) * r, torch::full({2}, double(r) / 4, torch::kDouble),
                     torch::empty({0})};
    group.all_reduce_sum(results[rank], 40);
    broadcast[rank] = {torch::full({4}, r * 10)};
    group.broadcast(broadcast[rank]);
    texts[rank] = group.broadcast(rank == 0 ? std::string("the first process's state") : std::string("ignored"));
    sums[rank] = group.all_reduce_sum(0.5 + rank);
    group.barrier();
  });
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(errors[rank], "") << "rank " << rank;
    EXPECT_TRUE(results[rank][0].equal(torch::full({2, 3}, 3.f))) << results[rank][0];
    EXPECT_TRUE(results[rank][1].equal(torch::arange(5, torch::kFloat) * 3)) << results[rank][1];
    EXPECT_TRUE(results[rank][2].equal(torch::full({2}, 0.75, torch::kDouble))) << results[rank][2];
    EXPECT_TRUE(broadcast[rank][0].equal(torch::full({4}, 10.f))) << "rank 0's values: " << broadcast[rank][0];
    EXPECT_EQ(texts[rank], "the first process's state");
    EXPECT_DOUBLE_EQ(sums[rank], 2.0);
  }
}

TEST(ProcessGroup, ARankWhosePeerNeverComesGetsAnErrorNotAHang) {
  ProcessGroupEnvironment env;
  env.world_size = 2;
  env.rank = 0;
  env.master_port = find_free_port();
  const std::string error = error_of([&] { ProcessGroup group(env, std::chrono::seconds(2)); });
  EXPECT_NE(error.find("process 0 of 2: joining the group failed"), std::string::npos) << error;
  EXPECT_NE(error.find("127.0.0.1:" + std::to_string(env.master_port)), std::string::npos) << error;
}

TEST(ProcessGroup, RanksJoinTheStoreTorchrunsAgentServesAttemptAfterAttempt) {
  // torchrun's static rendezvous (`--master_port P`): its agent serves the store on P and sets
  // TORCHELASTIC_USE_AGENT_STORE=True; rank 0 hosting its own would find the port taken.
  c10d::TCPStoreOptions agent_options;
  agent_options.port = std::uint16_t(find_free_port());
  agent_options.isServer = true;
  agent_options.waitWorkers = false;
  agent_options.timeout = std::chrono::seconds(60);
  auto agent = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", agent_options);
  for (int attempt = 0; attempt < 2; ++attempt) {  // a restart: the same store, fresh keys
    ProcessGroupEnvironment env;
    env.world_size = 2;
    env.master_port = agent_options.port;
    env.agent_store = true;
    env.restart_count = attempt;
    double sums[2] = {0, 0};
    const auto errors = errors_of_two_ranks(env, [&](ProcessGroup& group, int rank) { sums[rank] = group.all_reduce_sum(1.0 + rank); });
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_EQ(errors[rank], "") << "attempt " << attempt << ", rank " << rank;
      EXPECT_DOUBLE_EQ(sums[rank], 3.0) << "attempt " << attempt << ", rank " << rank;
    }
  }
}
