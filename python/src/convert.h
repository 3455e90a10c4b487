#pragma once
// Conversions between the core's value types and Python's: JSON to dicts and lists, images from
// paths or arrays, float vectors to NumPy arrays that share the core's memory.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/image.h"

namespace fovea::py {

namespace pyb = pybind11;

/// The JSON value as Python's dict/list/str/int/float/bool/None.
pyb::object to_python(const nlohmann::json& j);
/// A Python value of those kinds as JSON; throws pyb::type_error for others.
nlohmann::json from_python(const pyb::handle& o);

/// An image argument: a path (str or os.PathLike), read as `fovea caption` reads it, or an
/// H x W x 3 uint8 array (anything with the buffer protocol: a NumPy array; the Python layer
/// turns torch tensors into one). Throws ValueError saying what was expected.
RgbImage image_from_python(const pyb::handle& o, std::string* path = nullptr);

/// The image as an H x W x 3 uint8 NumPy array (a copy).
pyb::array_t<std::uint8_t> image_to_numpy(const RgbImage& image);

/// `values` (rows x cols, row-major) as a float32 array that views them without a copy;
/// `owner` keeps them alive.
pyb::array_t<float> float_view(const std::vector<float>& values, pyb::ssize_t rows, pyb::ssize_t cols,
                               const pyb::object& owner);

/// `values` (rows x cols, row-major) moved into a float32 array that owns them (no copy).
pyb::array_t<float> float_owned(std::vector<float> values, pyb::ssize_t rows, pyb::ssize_t cols);

}  // namespace fovea::py
