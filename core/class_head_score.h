#pragma once
/// How an encoder tells the classes apart: the auxiliary class head applied to each object's
/// annotations averaged over its cells (name_objects_with_class_head, core/encoder_pretraining.h).
#include <cstddef>

namespace fovea {

struct ClassHeadScore {
  std::size_t items = 0;  ///< objects named
  double accuracy = 0;    ///< share named right
};

}  // namespace fovea
