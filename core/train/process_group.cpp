#include "core/train/process_group.h"

#include "core/runtime/error_text.h"
#include "core/train/stall_watch.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <stdexcept>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

namespace fovea {
namespace {

int integer_variable(const std::function<const char*(const char*)>& getenv, const char* name, int fallback,
                     bool required, int min, int max) {
  const char* value = getenv(name);
  if (value == nullptr || *value == '\0') {
    if (required) throw std::runtime_error(std::string(name) + " is not set (the process group needs it)");
    return fallback;
  }
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != std::string(value).size()) throw std::runtime_error(std::string(name) + "=" + value + " is not a number");
  if (v < min || v > max)
    throw std::runtime_error(std::string(name) + "=" + value + " is out of range (" + std::to_string(min) + ".." +
                             std::to_string(max) + ")");
  return int(v);
}

/// Turns a c10d error into one that says which process saw it and how the group is set up.
[[noreturn]] void rethrow(const ProcessGroupEnvironment& env, const char* what, const std::exception& e) {
  std::string message = error_text(e);
  // The first line says what happened.
  if (const auto eol = message.find('\n'); eol != std::string::npos) message.resize(eol);
  throw std::runtime_error("process " + std::to_string(env.rank) + " of " + std::to_string(env.world_size) + ": " +
                           what + " failed (another process stopped, or did not join " + env.master_addr + ":" +
                           std::to_string(env.master_port) + " in time): " + message);
}

}  // namespace

std::optional<ProcessGroupEnvironment> process_group_environment(const std::function<const char*(const char*)>& getenv) {
  const char* world = getenv("WORLD_SIZE");
  if (world == nullptr || *world == '\0') return std::nullopt;
  ProcessGroupEnvironment env;
  env.world_size = integer_variable(getenv, "WORLD_SIZE", 1, true, 1, 1 << 20);
  env.rank = integer_variable(getenv, "RANK", 0, true, 0, env.world_size - 1);
  env.local_rank = integer_variable(getenv, "LOCAL_RANK", 0, false, 0, env.world_size - 1);
  env.master_port = integer_variable(getenv, "MASTER_PORT", 29500, env.world_size > 1, 1, 65535);
  if (const char* addr = getenv("MASTER_ADDR"); addr != nullptr && *addr != '\0') env.master_addr = addr;
  else if (env.world_size > 1) throw std::runtime_error("MASTER_ADDR is not set (the process group needs it)");
  if (const char* agent = getenv("TORCHELASTIC_USE_AGENT_STORE"); agent != nullptr) env.agent_store = std::string(agent) == "True";
  env.restart_count = integer_variable(getenv, "TORCHELASTIC_RESTART_COUNT", 0, false, 0, 1 << 30);
  return env;
}

int find_free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("cannot open a socket to find a free port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot find a free TCP port on this machine");
  return ntohs(addr.sin_port);
}

struct ProcessGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  StallWatch stalls;
};

void ProcessGroup::on_stall(std::function<void(const std::string&)> say) { impl_->stalls.on_stall(std::move(say)); }

ProcessGroup::ProcessGroup(const ProcessGroupEnvironment& env, std::chrono::milliseconds timeout,
                           std::chrono::milliseconds join_timeout, const std::function<void(const std::string&)>& say)
    : env_(env), impl_(std::make_unique<Impl>()) {
  if (join_timeout.count() <= 0) join_timeout = timeout;
  // A process that never comes (a wrong WORLD_SIZE, a machine not started) would otherwise keep
  // this one waiting in silence until the join timeout.
  StallWatch joining;
  joining.on_stall(say);
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(join_timeout).count();
  joining.start_wait("for the other " + std::to_string(env.world_size - 1) + " of " + std::to_string(env.world_size) +
                     " processes to join at " + env.master_addr + ":" + std::to_string(env.master_port) + " (this is rank " +
                     std::to_string(env.rank) + "): each must start with the same MASTER_ADDR, MASTER_PORT and " +
                     "WORLD_SIZE. This one gives up after " + std::to_string(minutes) + " minutes");
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = std::uint16_t(env.master_port);
    store_options.isServer = env.rank == 0 && !env.agent_store;
    store_options.numWorkers = env.world_size;
    store_options.waitWorkers = false;  // the group's own rendezvous waits for everyone
    store_options.timeout = join_timeout;  // the rendezvous waits on the store
    impl_->store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, store_options);
    if (env.agent_store) {  // the agent's store outlives a restart: each attempt under its own keys
      impl_->store = c10::make_intrusive<c10d::PrefixStore>("/worker/attempt_" + std::to_string(env.restart_count), impl_->store);
    }
    auto options = c10d::ProcessGroupGloo::Options::create();
    options->timeout = timeout;
    // Gloo's own connections: the interface GLOO_SOCKET_IFNAME names (as in PyTorch), the
    // loopback for a group on this machine, else the address this host's name resolves to.
    if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname != nullptr && *ifname != '\0')
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    else if (env.master_addr == "127.0.0.1" || env.master_addr == "localhost")
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    else
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, env.rank, env.world_size, options);
  } catch (const std::exception& e) {
    rethrow(env, "joining the group", e);
  }
}

ProcessGroup::~ProcessGroup() = default;

namespace {

/// Runs `collective` on each bucket of `tensors`: tensors of one dtype flattened together, at
/// most `bucket_bytes` a bucket, and copies the result back into them.
void in_buckets(const std::vector<torch::Tensor>& tensors, std::size_t bucket_bytes,
                const std::function<void(std::vector<torch::Tensor>&)>& collective) {
  std::map<c10::ScalarType, std::vector<std::vector<torch::Tensor>>> buckets;
  std::map<c10::ScalarType, std::size_t> filled;
  for (const auto& t : tensors) {
    if (!t.defined() || t.numel() == 0) continue;
    auto& list = buckets[t.scalar_type()];
    const std::size_t bytes = std::size_t(t.numel()) * t.element_size();
    if (list.empty() || filled[t.scalar_type()] + bytes > bucket_bytes) {
      list.emplace_back();
      filled[t.scalar_type()] = 0;
    }
    list.back().push_back(t);
    filled[t.scalar_type()] += bytes;
  }
  torch::NoGradGuard no_grad;
  for (auto& [dtype, list] : buckets) {
    for (auto& bucket : list) {
      std::vector<torch::Tensor> flat;
      for (const auto& t : bucket) flat.push_back(t.reshape({-1}));
      std::vector<torch::Tensor> joined{torch::cat(flat)};
      collective(joined);
      std::int64_t offset = 0;
      for (const auto& t : bucket) {
        t.copy_(joined[0].slice(0, offset, offset + t.numel()).view_as(t));
        offset += t.numel();
      }
    }
  }
}

}  // namespace

void ProcessGroup::broadcast(const std::vector<torch::Tensor>& tensors, int root, std::size_t bucket_bytes) {
  if (env_.world_size == 1) return;
  try {
    in_buckets(tensors, bucket_bytes, [&](std::vector<torch::Tensor>& joined) {
      c10d::BroadcastOptions options;
      options.rootRank = root;
      StallWatchScope watched(impl_->stalls, "a broadcast");
      impl_->group->broadcast(joined, options)->wait();
    });
  } catch (const std::exception& e) {
    rethrow(env_, "a broadcast", e);
  }
}

std::string ProcessGroup::broadcast(const std::string& text, int root) {
  if (env_.world_size == 1) return text;
  auto length = torch::full({1}, std::int64_t(env_.rank == root ? text.size() : 0), torch::kLong);
  broadcast(std::vector<torch::Tensor>{length}, root);
  auto bytes = torch::zeros({length.item<std::int64_t>()}, torch::kUInt8);
  if (env_.rank == root) std::copy(text.begin(), text.end(), bytes.data_ptr<std::uint8_t>());
  broadcast(std::vector<torch::Tensor>{bytes}, root);
  const auto* data = bytes.data_ptr<std::uint8_t>();
  return std::string(data, data + bytes.numel());
}

void ProcessGroup::all_reduce_sum(const std::vector<torch::Tensor>& tensors, std::size_t bucket_bytes) {
  if (env_.world_size == 1) return;
  try {
    in_buckets(tensors, bucket_bytes, [&](std::vector<torch::Tensor>& joined) {
      StallWatchScope watched(impl_->stalls, "an all-reduce");
      impl_->group->allreduce(joined)->wait();
    });
  } catch (const std::exception& e) {
    rethrow(env_, "an all-reduce", e);
  }
}

double ProcessGroup::all_reduce_sum(double value) {
  auto t = torch::full({1}, value, torch::kDouble);
  all_reduce_sum(std::vector<torch::Tensor>{t});
  return t.item<double>();
}

void ProcessGroup::barrier() {
  try {
    StallWatchScope watched(impl_->stalls, "a barrier");
    impl_->group->barrier()->wait();
  } catch (const std::exception& e) {
    rethrow(env_, "a barrier", e);
  }
}

}  // namespace fovea
