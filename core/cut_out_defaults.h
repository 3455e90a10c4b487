#pragma once
/// How class nouns are read from cut-outs by default (torch-free, so that the CLI's help and
/// `fovea eval --json` state them without the decoder's headers). Chosen on 4000 validation
/// scenes: docs/attention.md, "Row 67".

namespace fovea {

/// Weight of the item classifier's naming of the objects under α against the decoder's own split
/// of the class nouns (DecodeOptions::cut_out_weight).
inline constexpr double kDefaultCutOutWeight = 6.0;
/// Px each cut-out is also shifted by along both diagonals, its ten views averaged
/// (CutOutViews::shift; 0: centred and mirrored only).
inline constexpr int kDefaultCutOutShift = 2;

}  // namespace fovea
