#pragma once
/// What to call a model file where a person reads it (web pages, messages): a run's best.ckpt is
/// called by its run, the folder holding it ("runs/scenes-soft/best.ckpt" -> "scenes-soft"), since
/// every run's file has that same name; any other file by its file name ("fashion-soft.ckpt").
#include <string>

namespace fovea {

std::string model_display_name(const std::string& path);

}  // namespace fovea
