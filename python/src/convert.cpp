#include "python/src/convert.h"

#include <cstring>
#include <stdexcept>

#include "core/data/image_io.h"

namespace fovea::py {

pyb::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return pyb::none();
    case nlohmann::json::value_t::boolean: return pyb::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return pyb::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return pyb::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return pyb::float_(j.get<double>());
    case nlohmann::json::value_t::string: return pyb::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      pyb::list out;
      for (const auto& v : j) out.append(to_python(v));
      return std::move(out);
    }
    case nlohmann::json::value_t::object: {
      pyb::dict out;
      for (auto it = j.begin(); it != j.end(); ++it) out[pyb::str(it.key())] = to_python(it.value());
      return std::move(out);
    }
    default: return pyb::none();
  }
}

nlohmann::json from_python(const pyb::handle& o) {
  if (o.is_none()) return nullptr;
  if (pyb::isinstance<pyb::bool_>(o)) return o.cast<bool>();
  if (pyb::isinstance<pyb::int_>(o)) return o.cast<std::int64_t>();
  if (pyb::isinstance<pyb::float_>(o)) return o.cast<double>();
  if (pyb::isinstance<pyb::str>(o)) return o.cast<std::string>();
  if (pyb::isinstance<pyb::dict>(o)) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : o.cast<pyb::dict>()) out[pyb::str(kv.first).cast<std::string>()] = from_python(kv.second);
    return out;
  }
  if (pyb::isinstance<pyb::list>(o) || pyb::isinstance<pyb::tuple>(o)) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : o) out.push_back(from_python(v));
    return out;
  }
  throw pyb::type_error("expected a bool, number, text, list or dict, not " +
                        pyb::str(pyb::type::of(o).attr("__name__")).cast<std::string>());
}

RgbImage image_from_python(const pyb::handle& o, std::string* path) {
  const pyb::object os_path = pyb::module_::import("os").attr("PathLike");
  if (pyb::isinstance<pyb::str>(o) || pyb::isinstance(o, os_path)) {
    const std::string p = pyb::str(pyb::module_::import("os").attr("fspath")(o)).cast<std::string>();
    if (path != nullptr) *path = p;
    pyb::gil_scoped_release unlocked;
    return read_image(p);
  }
  if (!PyObject_CheckBuffer(o.ptr()))
    throw pyb::value_error("an image is a file path, an H x W x 3 uint8 NumPy array or torch tensor, not " +
                           pyb::str(pyb::type::of(o).attr("__name__")).cast<std::string>());
  const auto array = pyb::array::ensure(o);
  const pyb::buffer_info info = pyb::buffer(array).request();
  if (info.ndim != 3 || info.shape[2] != 3 || info.format != pyb::format_descriptor<std::uint8_t>::format())
    throw pyb::value_error("an image array must be H x W x 3 with dtype uint8 (RGB); this one is " +
                           std::string(pyb::str(array.attr("shape"))) + " " + std::string(pyb::str(array.attr("dtype"))));
  if (info.shape[0] < 1 || info.shape[1] < 1 || info.shape[0] > 100000 || info.shape[1] > 100000)
    throw pyb::value_error("an image array must be 1 to 100000 pixels on each side; this one is " +
                           std::string(pyb::str(array.attr("shape"))));
  check_image_size("image array", info.shape[1], info.shape[0]);  // the limit files have, before any copy
  RgbImage image(int(info.shape[1]), int(info.shape[0]));
  const auto* base = static_cast<const std::uint8_t*>(info.ptr);
  for (pyb::ssize_t y = 0; y < info.shape[0]; ++y)
    for (pyb::ssize_t x = 0; x < info.shape[1]; ++x)
      for (pyb::ssize_t c = 0; c < 3; ++c)
        image.at(int(x), int(y))[c] = base[y * info.strides[0] + x * info.strides[1] + c * info.strides[2]];
  return image;
}

pyb::array_t<std::uint8_t> image_to_numpy(const RgbImage& image) {
  pyb::array_t<std::uint8_t> out({pyb::ssize_t(image.height), pyb::ssize_t(image.width), pyb::ssize_t(3)});
  if (!image.pixels.empty()) std::memcpy(out.mutable_data(), image.pixels.data(), image.pixels.size());
  return out;
}

pyb::array_t<float> float_view(const std::vector<float>& values, pyb::ssize_t rows, pyb::ssize_t cols,
                               const pyb::object& owner) {
  if (pyb::ssize_t(values.size()) != rows * cols) throw std::logic_error("float_view: the shape does not fit the values");
  const pyb::ssize_t f = sizeof(float);
  return pyb::array_t<float>({rows, cols}, {cols * f, f}, const_cast<float*>(values.data()), owner);
}

pyb::array_t<float> float_owned(std::vector<float> values, pyb::ssize_t rows, pyb::ssize_t cols) {
  auto* heap = new std::vector<float>(std::move(values));
  pyb::capsule owner(heap, [](void* p) { delete static_cast<std::vector<float>*>(p); });
  return float_view(*heap, rows, cols, owner);
}

}  // namespace fovea::py
