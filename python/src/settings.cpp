// The caption and training settings tables as Python sees them: the Python layer makes the
// keyword arguments and docstrings of Model.caption and fovea.train from them.
#include <pybind11/stl.h>

#include <limits>

#include "core/decode/caption_settings.h"
#include "core/train/train_settings.h"
#include "python/src/bindings.h"
#include "python/src/convert.h"

namespace fovea::py {

namespace {

pyb::object setting_value(const SettingValue& v) {
  return std::visit([](const auto& x) -> pyb::object { return pyb::cast(x); }, v);
}

pyb::object bound(double v) {
  if (std::isinf(v)) return pyb::none();
  return pyb::float_(v);
}

std::string keys_of_caption_settings() {
  std::string keys;
  for (const auto& s : caption_settings())
    if (std::string(s.key) != "model" && std::string(s.key) != "device") keys += (keys.empty() ? "" : ", ") + std::string(s.key);
  return keys;
}

/// A Python value for training setting `s`, of the type its values have; text is parsed as the
/// CLI parses it.
SettingValue setting_from_python(const TrainSetting& s, const pyb::handle& o) {
  const SettingValue like = s.default_value();
  const std::string name = s.key;
  if (pyb::isinstance<pyb::str>(o) && !std::holds_alternative<std::string>(like)) {
    try {
      return parse_setting(s, o.cast<std::string>());
    } catch (const std::invalid_argument& e) {
      // The parser names the setting as the CLI spells it ("--lr: 'fast' is not a number"); a
      // Python user wrote lr='fast'.
      std::string why = e.what();
      const std::string cli = s.cli_name() + ": ";
      if (why.rfind(cli, 0) == 0) why = why.substr(cli.size());
      throw pyb::value_error(name + "=" + std::string(pyb::repr(o)) + ": " + why);
    }
  }
  const auto wrong = [&](const char* what) {
    return pyb::type_error(name + "=" + std::string(pyb::repr(o)) + ": expected " + what);
  };
  if (std::holds_alternative<bool>(like)) {
    if (!pyb::isinstance<pyb::bool_>(o)) throw wrong("True or False");
    return o.cast<bool>();
  }
  if (std::holds_alternative<std::int64_t>(like)) {
    if (!pyb::isinstance<pyb::int_>(o) || pyb::isinstance<pyb::bool_>(o)) throw wrong("a whole number");
    return o.cast<std::int64_t>();
  }
  if (std::holds_alternative<double>(like)) {
    if ((!pyb::isinstance<pyb::int_>(o) && !pyb::isinstance<pyb::float_>(o)) || pyb::isinstance<pyb::bool_>(o))
      throw wrong("a number");
    return o.cast<double>();
  }
  if (std::holds_alternative<std::string>(like)) {
    if (pyb::isinstance<pyb::str>(o)) return o.cast<std::string>();
    if (pyb::isinstance(o, pyb::module_::import("os").attr("PathLike")))
      return pyb::str(pyb::module_::import("os").attr("fspath")(o)).cast<std::string>();
    throw wrong("text");
  }
  if (!pyb::isinstance<pyb::list>(o) && !pyb::isinstance<pyb::tuple>(o)) throw wrong("a list of whole numbers");
  std::vector<std::int64_t> out;
  for (const auto& item : o) {
    if (!pyb::isinstance<pyb::int_>(item) || pyb::isinstance<pyb::bool_>(item)) throw wrong("a list of whole numbers");
    out.push_back(item.cast<std::int64_t>());
  }
  return out;
}

}  // namespace

CaptionOptions caption_options_from_python(const pyb::dict& settings) {
  CaptionChoices c;
  bool beam_given = false;
  for (const auto& kv : settings) {
    const auto key = pyb::str(kv.first).cast<std::string>();
    beam_given = beam_given || key == "beam";
    const CaptionSetting* s = nullptr;
    for (const auto& row : caption_settings())
      if (key == row.key && key != "model" && key != "device") s = &row;
    if (s == nullptr) {
      const std::string where = key == "model" || key == "device" ? " (give it to fovea.load())" : "";
      throw pyb::type_error("unexpected keyword argument '" + key + "'" + where + "; the caption settings are " +
                            keys_of_caption_settings());
    }
    const pyb::handle v = kv.second;
    if (s->kind == CaptionSetting::Kind::Flag) {
      if (!pyb::isinstance<pyb::bool_>(v)) throw pyb::type_error(key + "=" + std::string(pyb::repr(v)) + ": expected True or False");
      c.flag(key) = v.cast<bool>();
      continue;
    }
    if (key == "seed" && v.is_none()) continue;  // a fresh draw
    if (!pyb::isinstance<pyb::int_>(v) || pyb::isinstance<pyb::bool_>(v))
      throw pyb::type_error(key + "=" + std::string(pyb::repr(v)) + ": expected a whole number");
    const auto n = v.cast<std::int64_t>();
    if (n < s->min || n > s->max)
      throw pyb::value_error(key + "=" + std::to_string(n) + ": not in " + std::to_string(s->min) +
                             (s->max == INT64_MAX ? " or more" : ".." + std::to_string(s->max)) + " (" + s->help + ")");
    c.whole(key) = n;
  }
  // As the CLI refuses --greedy with --beam: one of them would silently win.
  if (c.greedy && beam_given) throw pyb::value_error("greedy=True is beam=1: give greedy or beam, not both");
  return c.options();
}

TrainConfig train_config_from_python(const pyb::dict& settings) {
  TrainConfig config = recommended_train_config();
  for (const auto& kv : settings) {
    const auto key = pyb::str(kv.first).cast<std::string>();
    const TrainSetting* s = nullptr;
    for (const auto& row : train_settings())
      if (key == row.key) s = &row;
    if (s == nullptr) throw pyb::type_error("unexpected keyword argument '" + key + "'; see help(fovea.train) for the training settings");
    const SettingValue v = setting_from_python(*s, kv.second);
    s->check(v);
    s->set(config, v);
  }
  return config;
}

void bind_settings(pyb::module_& m) {
  m.def("_caption_settings", [] {
    pyb::list out;
    for (const auto& s : caption_settings()) {
      pyb::dict d;
      d["key"] = s.key;
      d["option"] = s.cli_name();
      d["kind"] = s.kind == CaptionSetting::Kind::Flag ? "flag" : s.kind == CaptionSetting::Kind::Whole ? "whole" : "text";
      d["help"] = s.help;
      d["min"] = s.min;
      d["max"] = s.max == INT64_MAX ? pyb::none() : pyb::object(pyb::int_(s.max));
      d["default"] = s.default_text;
      out.append(d);
    }
    return out;
  }, "The caption settings table (the rows `fovea caption --help` shows), one dict each");
  m.def("_train_settings", [] {
    pyb::list out;
    for (const auto& s : train_settings()) {
      pyb::dict d;
      d["key"] = s.key;
      d["option"] = s.cli_name();
      d["group"] = s.group;
      d["help"] = s.help;
      d["default"] = setting_value(s.default_value());
      d["min"] = bound(s.min);
      d["max"] = bound(s.max);
      d["min_exclusive"] = s.min_exclusive;
      d["choices"] = s.choices;
      d["applies_when"] = s.applies_when;
      out.append(d);
    }
    return out;
  }, "The training settings table (the rows `fovea train --help` shows), one dict each");
  m.def("_train_config", [](const pyb::dict& settings) { return to_python(to_json(train_config_from_python(settings))); },
        "The training config these settings make, as config.json holds it (checked as fovea.train checks them)");
}

}  // namespace fovea::py
