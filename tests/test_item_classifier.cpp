// The item classifier: the pretrained encoder's frozen copy, which names objects cut out alone,
// and how decoding mixes its naming into the class nouns' share.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/checkpoint.h"
#include "core/decoding.h"
#include "core/encoder_pretraining.h"
#include "core/fashion_scenes.h"
#include "core/image_tensor.h"
#include "core/trainer.h"
#include "tests/test_support.h"

namespace fovea {
namespace {

CaptionModel tiny_model_with_item_classifier() {
  auto config = test::tiny_model();
  config.item_classifier = true;
  return CaptionModel::create(config, test::test_vocab(), torch::kCPU);
}

TEST(ItemClassifier, IsAFrozenCopyOfTheEncoderAndClassHeadAsTheyWere) {
  torch::manual_seed(0);
  auto m = tiny_model_with_item_classifier();
  auto& net = *m.net;
  ASSERT_FALSE(net.item_classifier.is_empty());
  EXPECT_FALSE(net.item_classifier->filled());
  {  // give the encoder batch-norm statistics of its own
    torch::NoGradGuard no_grad;
    net.train();
    net.encode(torch::rand({8, 3, 32, 32}));
  }
  net.item_classifier->copy_from(*net.encoder, *net.aux_class);
  EXPECT_TRUE(net.item_classifier->filled());
  const auto canvas = net.item_classifier->canvas();
  const auto canvases = torch::rand({3, 3, canvas, canvas});
  const auto grid = canvas / 8;
  auto cells = torch::zeros({3, grid * grid});
  cells.index_put_({torch::indexing::Slice(), 0}, 1.0);
  cells[1][1] = 1;
  const auto named = net.item_classifier->classify(canvases, cells);
  ASSERT_EQ(named.sizes(), (std::vector<std::int64_t>{3, kAuxClasses - 1}));
  EXPECT_TRUE(torch::allclose(named.sum(1), torch::ones({3}), 1e-5, 1e-5)) << "background left out, renormalised";
  // The same as the encoder and class head in eval mode, pooled over the cells.
  {
    torch::NoGradGuard no_grad;
    net.eval();
    const auto a = net.encode(canvases);
    const auto w = cells / cells.sum(1, true);
    const auto pooled = torch::bmm(w.unsqueeze(1), a).squeeze(1);
    const auto expected = torch::softmax(net.aux_class(pooled).slice(1, 1), 1);
    EXPECT_TRUE(torch::allclose(named, expected, 1e-5, 1e-5));
  }
  // Never trained: out of the optimiser's parameters, in eval mode whatever its parent is in,
  // and unchanged when the encoder moves on.
  for (const auto& p : net.item_classifier->parameters()) EXPECT_FALSE(p.requires_grad());
  std::size_t all = 0, trainable = net.trainable_parameters().size();
  for (const auto& p : net.parameters()) all += p.requires_grad();
  EXPECT_EQ(all, trainable);
  EXPECT_LT(trainable, net.parameters().size());
  net.train();
  EXPECT_FALSE(net.item_classifier->is_training());
  {
    torch::NoGradGuard no_grad;
    for (auto& p : net.encoder->parameters()) p.add_(0.1);
    net.encode(torch::rand({8, 3, 32, 32}));  // new running statistics for the encoder
  }
  EXPECT_TRUE(torch::allclose(net.item_classifier->classify(canvases, cells), named));
}

TEST(ItemClassifier, CheckpointsKeepItAndModelsWithoutOneLoadAsBefore) {
  test::TempDir dir("item-classifier-ckpt");
  torch::manual_seed(1);
  auto m = tiny_model_with_item_classifier();
  m.net->item_classifier->copy_from(*m.net->encoder, *m.net->aux_class);
  save_checkpoint(dir / "with.ckpt", m);
  auto loaded = load_checkpoint(dir / "with.ckpt");
  ASSERT_TRUE(loaded.model.config.item_classifier);
  ASSERT_FALSE(loaded.model.net->item_classifier.is_empty());
  EXPECT_TRUE(loaded.model.net->item_classifier->filled());
  const auto canvases = torch::rand({2, 3, 16, 16});
  const auto cells = torch::ones({2, 4});
  EXPECT_TRUE(torch::allclose(loaded.model.net->item_classifier->classify(canvases, cells),
                              m.net->item_classifier->classify(canvases, cells)));

  auto plain = CaptionModel::create(test::tiny_model(), test::test_vocab(), torch::kCPU);
  EXPECT_TRUE(plain.net->item_classifier.is_empty());
  save_checkpoint(dir / "without.ckpt", plain);
  EXPECT_TRUE(load_checkpoint(dir / "without.ckpt").model.net->item_classifier.is_empty());
  auto old = to_json(test::tiny_model());
  old.erase("item_classifier");  // a config saved before the option
  EXPECT_FALSE(model_config_from_json(old).item_classifier);
}

TEST(Decoding, CutOutsReSplitTheClassNounsShareTowardsTheObjectUnderAlpha) {
  // Five words, the last three "class nouns" of three classes; two objects over four cells.
  const auto tokens = torch::tensor({2, 3, 4}, torch::kLong);
  auto lp = torch::log_softmax(torch::tensor({{1.0f, 0.5f, 2.0f, 1.0f, 1.0f}}), 1);
  CutOutBatch objects{torch::tensor({{{1.0f, 1.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 1.0f, 0.0f}}}),
                      torch::tensor({{{0.0f, 0.9f, 0.1f}, {1.0f, 0.0f, 0.0f}}})};
  const auto share = [&](const torch::Tensor& l) { return l.index_select(1, tokens).exp().sum().item<float>(); };

  // α on the first object: the split moves to its class (token 3), the share stays.
  auto on_first = with_cut_out_share(lp, torch::tensor({{0.5f, 0.5f, 0.0f, 0.0f}}), objects, tokens, 1.0);
  EXPECT_NEAR(share(on_first), share(lp), 1e-5);
  EXPECT_EQ(on_first.index_select(1, tokens).argmax(1).item<std::int64_t>(), 1) << "token 3";
  EXPECT_EQ(lp.index_select(1, tokens).argmax(1).item<std::int64_t>(), 0) << "the decoder alone says token 2";
  EXPECT_NEAR(on_first[0][0].item<float>(), lp[0][0].item<float>(), 1e-6) << "other words untouched";
  // Exactly: split' = (split + w q) / (1 + w) with w = the α mass on objects (1 here).
  const auto split = torch::softmax(lp.index_select(1, tokens), 1);
  const auto expected = (split + torch::tensor({{0.0f, 0.9f, 0.1f}})) / 2;
  EXPECT_TRUE(torch::allclose(torch::softmax(on_first.index_select(1, tokens), 1), expected, 1e-5, 1e-5));
  // α on the second object: its class; α on no object: nothing changes.
  auto on_second = with_cut_out_share(lp, torch::tensor({{0.0f, 0.0f, 1.0f, 0.0f}}), objects, tokens, 1.0);
  EXPECT_EQ(on_second.index_select(1, tokens).argmax(1).item<std::int64_t>(), 0);
  EXPECT_GT(on_second[0][2].item<float>(), lp[0][2].item<float>());
  auto elsewhere = with_cut_out_share(lp, torch::tensor({{0.0f, 0.0f, 0.0f, 1.0f}}), objects, tokens, 1.0);
  EXPECT_TRUE(torch::allclose(elsewhere, lp, 1e-5, 1e-5));
  // Weight 0: off.
  EXPECT_TRUE(torch::allclose(with_cut_out_share(lp, torch::tensor({{0.5f, 0.5f, 0.0f, 0.0f}}), objects, tokens, 0.0), lp,
                              1e-5, 1e-5));
}

TEST(ItemClassifier, ARunKeepsItsPretrainedEncoderWhichNamesCutOutGarments) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("item-classifier-run");
  auto config = test::tiny_training(dir / "run");
  config.scenes.image_size = config.model.image_size = 48;  // items 13-19 px on 24 px canvases
  config.model.item_classifier = true;
  config.pretrain_steps = 200;
  config.pretrain_batch = 64;
  config.pretrain_lr = 1e-2;
  config.max_steps = 6;
  train(config);
  auto ckpt = load_checkpoint(best_checkpoint_path(config.out_dir));
  auto& net = *ckpt.model.net;
  ASSERT_FALSE(net.item_classifier.is_empty());
  ASSERT_TRUE(net.item_classifier->filled());
  // A copy of the encoder as the pretraining left it: the captioning steps moved the encoder since.
  const auto copied = net.item_classifier->named_parameters();
  double moved = 0;
  for (const auto& p : net.encoder->named_parameters()) {
    moved += (p.value() - *copied.find("encoder." + p.key())).abs().sum().item<double>();
  }
  EXPECT_GT(moved, 0) << "the item classifier followed the captioning steps";

  // It names the garments of new scenes, each cut out alone, far above chance (0.1).
  auto scenes_options = config.scenes;
  scenes_options.min_objects = scenes_options.max_objects = 1;
  const FashionScenes test_scenes("test", 200, scenes_options);
  std::vector<RgbImage> images;
  for (std::size_t i = 0; i < test_scenes.size(); ++i) images.push_back(test_scenes.get(i).image);
  std::vector<const RgbImage*> ptrs;
  for (const auto& im : images) ptrs.push_back(&im);
  const auto cut_outs = name_cut_out_objects(*net.item_classifier, images_to_tensor(ptrs, 48), ckpt.model.config.grid_h,
                                             ckpt.model.config.grid_w);
  ASSERT_EQ(cut_outs.size(), images.size());
  int found = 0, right = 0;
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (cut_outs[i].count() == 0) continue;
    ++found;
    EXPECT_EQ(cut_outs[i].cells.size(1), ckpt.model.config.cells());
    right += cut_outs[i].classes[0].argmax().item<int>() == test_scenes.get(i).objects[0].class_id;
  }
  EXPECT_GT(found, 190) << "each scene's garment found";
  EXPECT_GT(double(right) / found, 0.4) << right << " of " << found;

  // Named in the centred cut-out and its mirror only, it still names them; the shifted views
  // (the default) change what it says.
  CutOutViews two_views;
  two_views.shift = 0;
  const auto centred = name_cut_out_objects(*net.item_classifier, images_to_tensor(ptrs, 48),
                                            ckpt.model.config.grid_h, ckpt.model.config.grid_w, two_views);
  int right_centred = 0;
  double changed = 0;
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (centred[i].count() == 0) continue;
    ASSERT_EQ(centred[i].count(), cut_outs[i].count());
    EXPECT_TRUE(torch::equal(centred[i].cells, cut_outs[i].cells)) << "the object's cells in the image do not move";
    right_centred += centred[i].classes[0].argmax().item<int>() == test_scenes.get(i).objects[0].class_id;
    changed += (centred[i].classes - cut_outs[i].classes).abs().sum().item<double>();
  }
  EXPECT_GT(double(right_centred) / found, 0.4) << right_centred << " of " << found;
  EXPECT_GT(changed, 0.01) << "the shifted views changed nothing";

  // A run without the pretraining has nothing to copy: no item classifier.
  auto plain = test::tiny_training(dir / "plain");
  plain.model.item_classifier = true;
  plain.max_steps = 2;
  train(plain);
  EXPECT_FALSE(load_checkpoint(best_checkpoint_path(plain.out_dir)).model.config.item_classifier);
}

}  // namespace
}  // namespace fovea
