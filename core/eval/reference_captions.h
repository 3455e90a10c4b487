#pragma once
/// The reference captions of a folder of images, as `fovea data` writes them beside the images
/// (captions.json: [{"file": NAME, "captions": [...]}, ...]; other fields are ignored), and how
/// a caption scores against an image's references. For showing ground truth beside the model's
/// caption, as LIT does. Torch-free.
#include <string>
#include <vector>

namespace fovea {

class ReferenceCaptions {
 public:
  /// Reads `dir`/captions.json; none when the folder has no such file. Throws
  /// std::runtime_error naming the file when it is not a list of {"file", "captions"}.
  static ReferenceCaptions read_folder(const std::string& dir);

  bool empty() const { return files_.empty(); }
  /// The references of the image named `file_name` (no folder), or none.
  const std::vector<std::string>& of(const std::string& file_name) const;

  struct Scores {
    double bleu4 = 0;  ///< coco-caption BLEU-4 of the caption against the image's references
    double cider = 0;  ///< CIDEr-D, its document frequencies over all the folder's references
  };
  /// Scores `caption` against the references of `file_name`, which must have some.
  Scores score(const std::string& file_name, const std::string& caption) const;

 private:
  std::vector<std::string> files_;
  std::vector<std::vector<std::string>> captions_;
};

}  // namespace fovea
