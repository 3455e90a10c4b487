// Checkpoints: exact round trip; truncated, corrupt, foreign and mismatched files rejected
// with a message naming the file and the fault; no temporary files left behind.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/decode/decoding.h"
#include "core/model/checkpoint.h"
#include "tests/test_support.h"

using namespace fovea;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void spit(const std::string& p, const std::string& s) { std::ofstream(p, std::ios::binary | std::ios::trunc) << s; }

std::string load_error(const std::string& path) {
  try {
    load_checkpoint(path);
  } catch (const CheckpointError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("WRONG EXCEPTION TYPE: ") + e.what();
  }
  return "NO ERROR";
}

std::string header_error(const std::string& path) {
  try {
    read_checkpoint_header(path);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "NO ERROR";
}

}  // namespace

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(5);
    model = CaptionModel::create(test::tiny_model(), test::test_vocab(9), torch::kCPU);
    // One optimizer step so that the optimizer has state worth saving.
    torch::optim::Adam adam(model.net->trainable_parameters(), torch::optim::AdamOptions(1e-3));
    auto tokens = torch::tensor({{1, 5, 6, 2}, {1, 7, 2, 0}});
    auto out = model.net->forward(torch::rand({2, 3, 32, 32}), tokens, torch::tensor({3, 2}));
    out.token_log_probs.sum().backward();
    adam.step();
    SaveOptions o;
    o.optimizer = &adam;
    o.training = {{"note", "test"}};
    save_checkpoint(path, model, o);
  }
  test::TempDir dir{"ckpt"};
  std::string path = dir / "model.ckpt";
  CaptionModel model;
};

TEST_F(CheckpointTest, RoundTripGivesIdenticalOutputs) {
  auto loaded = load_checkpoint(path);
  EXPECT_EQ(loaded.model.vocab.words(), model.vocab.words());
  EXPECT_TRUE(config_differences(loaded.model.config, model.config).empty());
  EXPECT_TRUE(loaded.has_optimizer);
  EXPECT_EQ(loaded.training["note"], "test");
  auto images = torch::rand({3, 3, 32, 32});
  model.net->eval();
  DecodeOptions o;
  o.beam = 2;
  auto a = decode_images(*model.net, images, o);
  auto b = decode_images(*loaded.model.net, images, o);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].tokens(), b[i].tokens());
    EXPECT_DOUBLE_EQ(a[i].log_prob, b[i].log_prob);
  }
  // BatchNorm running statistics travel too.
  for (const auto& buf : model.net->named_buffers()) {
    EXPECT_TRUE(torch::equal(buf.value(), loaded.model.net->named_buffers()[buf.key()])) << buf.key();
  }
  // And the optimizer state restores into a fresh optimizer.
  torch::optim::Adam adam(loaded.model.net->trainable_parameters(), torch::optim::AdamOptions(1e-3));
  EXPECT_NO_THROW(restore_training_state(loaded, adam, torch::kCPU));
  for (const auto& e : fs::directory_iterator(dir.path)) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "left behind: " << e.path();
  }
}

TEST_F(CheckpointTest, TruncatedFilesAreRejectedWithThePath) {
  const auto bytes = slurp(path);
  for (std::size_t cut : {std::size_t(4), std::size_t(14), std::size_t(200), bytes.size() / 2, bytes.size() - 2}) {
    const auto p = dir / ("cut" + std::to_string(cut) + ".ckpt");
    spit(p, bytes.substr(0, cut));
    const auto msg = load_error(p);
    EXPECT_NE(msg.find(p), std::string::npos) << msg;
    EXPECT_TRUE(msg.find("truncated") != std::string::npos || msg.find("not a Fovea model file") != std::string::npos)
        << cut << ": " << msg;
    // Reading the header alone (run browsers, the New run dialog) names the cut as the load does.
    EXPECT_EQ(header_error(p), msg) << cut;
  }
  spit(dir / "long.ckpt", bytes + "xy");
  EXPECT_NE(header_error(dir / "long.ckpt").find("2 unexpected bytes after the checksum"), std::string::npos);
}

TEST_F(CheckpointTest, FlippedByteFailsTheChecksum) {
  auto bytes = slurp(path);
  bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x5a);
  spit(path, bytes);
  const auto msg = load_error(path);
  EXPECT_NE(msg.find("checksum"), std::string::npos) << msg;
  // The header alone does not read the weights, so it still describes the file; the load refuses it.
  EXPECT_EQ(read_checkpoint_header(path)["training"]["note"], "test");
}

TEST_F(CheckpointTest, ForeignFilesAreNotCheckpoints) {
  spit(dir / "notes.txt", "hello, I am not a model\n");
  EXPECT_NE(load_error(dir / "notes.txt").find("not a Fovea model file"), std::string::npos);
  EXPECT_NE(load_error(dir / "missing.ckpt").find("file not found"), std::string::npos);
  EXPECT_NE(load_error(dir.path.string()).find("is a folder"), std::string::npos);
  spit(dir / "empty.ckpt", "");
  EXPECT_NE(load_error(dir / "empty.ckpt").find("empty file"), std::string::npos) << load_error(dir / "empty.ckpt");
  // A device is refused by its kind: read, /dev/zero never ends.
  EXPECT_NE(load_error("/dev/zero").find("/dev/zero: is not a regular file"), std::string::npos);
  EXPECT_NE(header_error("/dev/zero").find("is not a regular file"), std::string::npos);
}

TEST_F(CheckpointTest, HeaderFromAnotherModelConfigIsRejected) {
  // Rewrite the header to claim a wider LSTM, with a valid checksum, as a file from a different
  // model config spliced with these weights would.
  const auto bytes = slurp(path);
  std::size_t pos = 12;
  std::uint64_t header_len;
  std::memcpy(&header_len, bytes.data() + pos, 8);
  auto header = nlohmann::json::parse(bytes.substr(pos + 8, header_len));
  header["model"]["hidden_dim"] = 64;
  const auto rest = bytes.substr(pos + 8 + header_len);  // blob_len | blob | crc
  std::uint64_t blob_len;
  std::memcpy(&blob_len, rest.data(), 8);
  const auto blob = rest.substr(8, blob_len);
  const auto text = header.dump();
  std::string out = bytes.substr(0, 12);
  const std::uint64_t n = text.size();
  out.append(reinterpret_cast<const char*>(&n), 8);
  out += text;
  out.append(reinterpret_cast<const char*>(&blob_len), 8);
  out += blob;
  const std::uint32_t crc = std::uint32_t(crc32(crc32(0, reinterpret_cast<const Bytef*>(text.data()), uInt(text.size())),
                                                reinterpret_cast<const Bytef*>(blob.data()), uInt(blob.size())));
  out.append(reinterpret_cast<const char*>(&crc), 4);
  spit(path, out);
  const auto msg = load_error(path);
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("shape"), std::string::npos) << msg;
}
