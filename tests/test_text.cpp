// Tokeniser (PTB-style) and vocabulary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/data/tokenizer.h"
#include "core/data/vocabulary.h"

using namespace fovea;
using V = std::vector<std::string>;

TEST(Tokenizer, LowercasesSplitsClitics_DropsPunctuation) {
  EXPECT_EQ(tokenize("A Red sneaker, left of a BAG."), (V{"a", "red", "sneaker", "left", "of", "a", "bag"}));
  EXPECT_EQ(tokenize("The dog's ball"), (V{"the", "dog", "'s", "ball"}));
  EXPECT_EQ(tokenize("I don't know!"), (V{"i", "do", "n't", "know"}));
  EXPECT_EQ(tokenize("two items : a (big) \"red\" bag ;"), (V{"two", "items", "a", "big", "red", "bag"}));
  EXPECT_EQ(tokenize("a t-shirt"), (V{"a", "t-shirt"}));
  EXPECT_TRUE(tokenize(" ... , ").empty());
}

TEST(Vocabulary, SpecialsFirst_FrequentWordsNext_MinCountApplied) {
  auto v = Vocabulary::build({{"a", "red", "bag"}, {"a", "blue", "bag"}, {"a", "red", "boot"}}, 2);
  EXPECT_EQ(v.words(), (V{"<pad>", "<start>", "<end>", "<unk>", "a", "bag", "red"}));
  EXPECT_EQ(v.index("boot"), Vocabulary::kUnk);
  auto ids = v.encode({"a", "red", "boot"});
  EXPECT_EQ(ids, (std::vector<std::int64_t>{Vocabulary::kStart, 4, 6, Vocabulary::kUnk, Vocabulary::kEnd}));
  EXPECT_EQ(v.decode({Vocabulary::kStart, 4, 5, Vocabulary::kEnd, 6}), (V{"a", "bag"}));
  EXPECT_EQ(Vocabulary::from_json(v.to_json()).words(), v.words());
  EXPECT_THROW(Vocabulary(V{"a", "b"}), std::invalid_argument);
}
