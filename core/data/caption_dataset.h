#pragma once
/// Real captioning datasets on disk: Karpathy split files (dataset_flickr8k.json,
/// dataset_flickr30k.json, dataset_coco.json) and COCO captions annotation files, read into
/// image paths with their captions and split. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

namespace fovea {

struct CaptionedImage {
  std::int64_t id = 0;
  std::string path;                   ///< image file (images_dir joined with the file's own path)
  std::string split;                  ///< train, val, test ("restval" counts as train); "all" for COCO files
  std::vector<std::string> captions;  ///< raw sentences (tokenised later, docs/design.md §4.3)
};

/// Reads a Karpathy split file. Throws std::runtime_error naming the file, and for malformed
/// JSON the byte position, or the entry that lacks a field. Image paths must be relative and stay
/// inside `images_dir`: entries that are absolute or climb out ("../..") are refused, the first
/// of them named.
std::vector<CaptionedImage> read_karpathy_dataset(const std::string& json_path, const std::string& images_dir);

/// Reads a COCO captions annotation file ({"images":[{"id","file_name"}], "annotations":
/// [{"image_id","caption"}]}); every image gets split "all". Same errors.
std::vector<CaptionedImage> read_coco_dataset(const std::string& json_path, const std::string& images_dir);

/// Whether `relative`, a path a data file gives, names something inside the folder it is read
/// from: relative and, lexically, not climbing out of it ("../x", "a/../../x"). Symbolic links
/// inside the folder are the user's own and are followed.
bool stays_inside_folder(const std::string& relative);

/// The images of one split: "train" also takes "restval"; "all" takes everything.
std::vector<CaptionedImage> select_split(const std::vector<CaptionedImage>& images, const std::string& split);

}  // namespace fovea
