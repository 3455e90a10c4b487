#!/usr/bin/env python3
"""The project's shape limits for code: no function body over 80 lines, no class declaring over
30 member functions, in core/, launch/, ui/, app/ and python/src. A long function is split into
steps with names; a class with many methods is split into parts that each own their state.

The parser is a heuristic, not a compiler: it blanks comments, string and character literals and
preprocessor lines, then matches braces at namespace and class scope. A brace whose declaration
has a parameter list is a function body (its lines, from the brace to its match, are counted); a
class, struct or union body is read member by member, and each member declaration with a
parameter list counts as a method (constructors, operators, slots, signals and overrides
included; `= delete` ones are not). A file whose braces do not match fails rather than passing
unread. Usage: code_shape.py REPO [--report]  (--report lists every class's count and each
function over 60 lines).

OVER_LIMIT names the code still over a limit, with its size today, while it waits to be split: it
may shrink, not grow, and leaves the list once it fits (the check fails on an entry that fits, so
the list only gets shorter).
"""
import os
import re
import sys

MAX_FUNCTION_LINES = 80
MAX_METHODS = 30
ROOTS = ("core", "launch", "ui", "app", "python/src")
MACROS = re.compile(r"\b(Q_OBJECT|Q_GADGET)\b|\bQ_(PROPERTY|ENUM|FLAG|DECLARE_METATYPE|INTERFACES)\s*\([^;{}]*?\)")
ACCESS = re.compile(r"^\s*(public|private|protected)?\s*(Q_SLOTS|Q_SIGNALS|slots|signals)?\s*$")
CLASS_HEAD = re.compile(r"^(template\s*<.*>\s*)?(typedef\s+)?(class|struct|union)\b")
SCOPE_HEAD = re.compile(r"^(inline\s+)?namespace\b|^extern\s*\"\"")
NOT_METHOD = re.compile(r"^(friend|using|typedef|static_assert|enum)\b")
# "path:name" -> lines or methods today (function names as the report prints them, classes as "class X").
OVER_LIMIT = {
}
OPERATOR = re.compile(r"operator\s*(<<=|>>=|<=>|<<|>>|<=|>=|->\*|->|<|>)")


def blank(text):
  """`text` with comments, literals and preprocessor lines turned to spaces (newlines kept)."""
  out = list(text)
  i, n = 0, len(text)

  def wipe(a, b):
    for k in range(a, b):
      if out[k] != "\n":
        out[k] = " "

  line_start = True
  while i < n:
    c = text[i]
    if line_start and c == "#" or (line_start and c in " \t" and text[i:].lstrip(" \t").startswith("#")):
      j = i
      while j < n and text[j] != "\n":
        j = j + 2 if text[j] == "\\" and j + 1 < n else j + 1
      wipe(i, j)
      i = j
      continue
    line_start = c == "\n" or (line_start and c in " \t")
    if text.startswith("//", i):
      j = text.find("\n", i)
      j = n if j < 0 else j
      wipe(i, j)
      i = j
    elif text.startswith("/*", i):
      j = text.find("*/", i + 2)
      j = n if j < 0 else j + 2
      wipe(i, j)
      i = j
    elif c == "R" and i + 1 < n and text[i + 1] == '"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_") or text[i - 2:i] == "u8" or text[i - 1] in "LuU"):
      open_paren = text.find("(", i + 2)
      delim = text[i + 2:open_paren]
      j = text.find(")" + delim + '"', open_paren)
      j = n if j < 0 else j + len(delim) + 2
      wipe(i + 2, j - 1)
      i = j
    elif c == '"' or (c == "'" and not _digit_separator(text, i)):
      j = i + 1
      while j < n and text[j] != c:
        j += 2 if text[j] == "\\" else 1
      wipe(i + 1, j)
      i = j + 1
    else:
      i += 1
  return "".join(out)


def _digit_separator(text, i):
  """A ' inside a number (1'000), not the start of a character literal."""
  if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
    return False
  m = re.search(r"[A-Za-z0-9_]+$", text[max(0, i - 8):i])
  return not (m and m.group(0) in ("L", "u", "U", "u8"))


class Shape:
  def __init__(self, path, text):
    self.path = path
    self.text = text
    self.functions = []  # (name, first line, lines)
    self.classes = []  # (name, line, methods)

  def line(self, pos):
    return self.text.count("\n", 0, pos) + 1

  def match(self, pos):
    """The index of the brace closing the one at `pos`."""
    depth = 0
    for k in range(pos, len(self.text)):
      if self.text[k] == "{":
        depth += 1
      elif self.text[k] == "}":
        depth -= 1
        if depth == 0:
          return k
    raise ValueError(f"{self.path}:{self.line(pos)}: this brace is never closed")

  def scope(self, start, end, in_class):
    """Reads declarations between `start` and `end`; returns the methods declared there."""
    methods = 0
    head_start = start
    i = start
    while i < end:
      c = self.text[i]
      head = self.text[head_start:i]
      if c == ";":
        if in_class and is_method(head):
          methods += 1
        head_start = i + 1
      elif c == ":" and in_class and self.text[i + 1:i + 2] != ":" and self.text[i - 1:i] != ":" \
          and ACCESS.match(head):
        head_start = i + 1
      elif c == "}":
        raise ValueError(f"{self.path}:{self.line(i)}: a closing brace without its opening one")
      elif c == "{":
        close = self.match(i)
        flat = " ".join(head.split())
        if is_member_initializer(head):
          i = close + 1
          continue
        if SCOPE_HEAD.match(flat):
          self.scope(i + 1, close, False)
        elif CLASS_HEAD.match(flat) and "(" not in flat.split("{")[0].split(":")[0]:
          name = re.sub(r"\s*:.*", "", flat)
          count = self.scope(i + 1, close, True)
          self.classes.append((name, self.line(i), count))
        elif is_function(flat):
          if in_class:
            methods += 1
          self.functions.append((signature(flat), self.line(i), self.line(close) - self.line(i) + 1))
        # else: an initializer or an enum's body; its braces are skipped
        i = close + 1
        head_start = i
        continue
      i += 1
    return methods


def strip_templates(text):
  text = OPERATOR.sub("operator_", text)
  previous = None
  while previous != text:
    previous = text
    text = re.sub(r"<[^<>;{}]*>", "", text)
  return text


def is_function(flat):
  flat = strip_templates(flat)
  paren = flat.find("(")
  if paren < 0 or NOT_METHOD.match(flat):
    return False
  before = flat[:paren]
  return "=" not in before.replace("operator=", "").replace("operator_", "") and not before.strip().endswith("]") \
      and not re.search(r"\b(return|if|while|for|switch)\s*$", before)


def is_method(head):
  flat = " ".join(head.split())
  if not flat or re.search(r"=\s*delete\s*$", flat):
    return False
  return is_function(flat)


def is_member_initializer(head):
  """`{` of `x_{1}` in a constructor's initializer list (after the parameters' `) :`)."""
  flat = strip_templates(" ".join(head.split()))
  m = re.search(r"\)\s*(const\s*|noexcept\s*)*:(?!:)", flat)
  return bool(m) and bool(re.search(r"[A-Za-z0-9_>]\s*$", flat))


def signature(flat):
  flat = strip_templates(flat)
  m = re.search(r"([A-Za-z_~][A-Za-z0-9_:~]*|operator_\S*)\s*\(", flat)
  return m.group(1) if m else flat[:60]


def shapes(repo):
  for root in ROOTS:
    for folder, _, files in os.walk(os.path.join(repo, root)):
      for name in sorted(files):
        if name.endswith((".cpp", ".h")):
          path = os.path.join(folder, name)
          with open(path, encoding="utf-8", errors="replace") as f:
            raw = f.read()
          shape = Shape(os.path.relpath(path, repo), MACROS.sub(lambda m: " " * len(m.group(0)), blank(raw)))
          shape.scope(0, len(shape.text), False)
          yield shape


def check(where, size, limit, what, seen):
  """0 when `size` is within `limit`, or within the size OVER_LIMIT holds for `where`; else 1."""
  if where in OVER_LIMIT:
    seen.add(where)
    if size <= limit:
      print(f"FAIL: {where} now fits ({size} {what}): take it off code_shape.py's OVER_LIMIT")
      return 1
    if size > OVER_LIMIT[where]:
      print(f"FAIL: {where} grew to {size} {what} (it is over the limit of {limit}; split it, do not grow it)")
      return 1
    return 0
  if size > limit:
    print(f"FAIL: {where} has {size} {what} (the limit is {limit})")
    return 1
  return 0


def main():
  repo = sys.argv[1]
  report = "--report" in sys.argv
  failures = 0
  classes = functions = 0
  seen = set()
  try:
    for shape in shapes(repo):
      for name, line, lines in shape.functions:
        functions += 1
        failures += check(f"{shape.path}:{name}", lines, MAX_FUNCTION_LINES, "lines", seen)
        if report and lines > 60:
          print(f"{shape.path}:{line}: {name} is {lines} lines")
      for name, line, methods in shape.classes:
        classes += 1
        failures += check(f"{shape.path}:{name}", methods, MAX_METHODS, "methods", seen)
        if report and methods > 20:
          print(f"{shape.path}:{line}: {name} declares {methods} methods")
  except ValueError as error:
    print(f"FAIL: cannot read {error}")
    return 1
  for gone in sorted(set(OVER_LIMIT) - seen):
    print(f"FAIL: {gone} is no longer found: take it off code_shape.py's OVER_LIMIT")
    failures += 1
  waiting = len(OVER_LIMIT)
  print(f"read {functions} function bodies and {classes} classes; {waiting} still over a limit (OVER_LIMIT)")
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
