#pragma once
/// Model files hold their TorchScript backbone (core/model/checkpoint.h), so a model copied alone
/// to another machine captions the same. Files written before they did name the backbone's path
/// only; this puts the backbone into such a file once, so it opens anywhere from then on.
#include <string>

#include <nlohmann/json.hpp>

namespace fovea {

/// Rewrites the model file at `path` (atomically, everything else kept) with the TorchScript
/// backbone of `backbone_file` in it, and returns what the file now says of it
/// (describe_embedded_backbone). Throws CheckpointError naming the file when it holds a training
/// state (last.ckpt: resume it where the backbone is found), has no TorchScript backbone, or when
/// `backbone_file`'s weights are not the model's (another backbone than it was trained with).
nlohmann::json embed_backbone(const std::string& path, const std::string& backbone_file);

}  // namespace fovea
