"""Keyword arguments and their help generated from the core's settings tables.

Model.caption takes the caption settings table's rows (core/decode/caption_settings.cpp), the
same names, defaults and ranges as `fovea caption`'s options; fovea.train takes the training
settings table's (core/train/train_settings.cpp), as `fovea train` does. The signatures and the
help below are made from the tables when the module loads, so they cannot drift from the CLI.
"""
import inspect
import keyword

from . import _core

#: Settings that are not keyword arguments of Model.caption: fovea.load() takes them.
_LOAD_ONLY = ("model", "device")


def python_name(key):
    """The keyword argument's name for a table key: `lambda` is spelt `lambda_` in Python."""
    return key + "_" if keyword.iskeyword(key) else key


def caption_parameters():
    """Model.caption's keyword arguments, one per caption setting."""
    params = []
    for s in _core._caption_settings():
        if s["key"] in _LOAD_ONLY:
            continue
        if s["kind"] == "flag":
            default = False
        elif s["default"]:
            default = int(s["default"])
        else:
            default = None  # seed: a fresh draw
        params.append(inspect.Parameter(s["key"], inspect.Parameter.KEYWORD_ONLY, default=default))
    return params


def caption_help(keys=None):
    """The caption settings as help lines: name=default  meaning  [range]  (--option)."""
    lines = []
    for s in _core._caption_settings():
        if s["key"] in _LOAD_ONLY or (keys is not None and s["key"] not in keys):
            continue
        if s["kind"] == "flag":
            shown, rng = "False", "True or False"
        else:
            shown = s["default"] or "None"
            rng = f"{s['min']} or more" if s["max"] is None else f"{s['min']}..{s['max']}"
        lines.append(f"    {s['key']}={shown}\n        {s['help']} [{rng}] ({s['option']})")
    return "\n".join(lines)


def _shown(value):
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return repr(value)


def train_parameters(skip=("out",)):
    """fovea.train's keyword arguments, one per training setting (but `out`, its first argument)."""
    return [inspect.Parameter(python_name(s["key"]), inspect.Parameter.KEYWORD_ONLY, default=s["default"])
            for s in _core._train_settings() if s["key"] not in skip]


def train_help(skip=("out",)):
    """The training settings as help lines, by group, as `fovea train --help` lists them."""
    lines, group = [], None
    for s in _core._train_settings():
        if s["key"] in skip:
            continue
        if s["group"] != group:
            group = s["group"]
            lines.append(f"  {group}:")
        if s["choices"]:
            rng = " [" + ", ".join(s["choices"]) + "]"
        elif s["min"] is not None or s["max"] is not None:
            lo = "" if s["min"] is None else ("> " if s["min_exclusive"] else ">= ") + f"{s['min']:g}"
            hi = "" if s["max"] is None else f"<= {s['max']:g}"
            rng = " [" + ", ".join(x for x in (lo, hi) if x) + "]"
        else:
            rng = ""
        when = f" (applies to {s['applies_when']})" if s["applies_when"] else ""
        lines.append(f"    {python_name(s['key'])}={_shown(s['default'])}\n        {s['help']}{rng}{when} ({s['option']})")
    return "\n".join(lines)


def table_keys(settings):
    """Keyword arguments with their Python spelling turned back into table keys (lambda_ -> lambda)."""
    return {(k[:-1] if k.endswith("_") and keyword.iskeyword(k[:-1]) else k): v for k, v in settings.items()}
