"""docs/python.md's examples work as written: its Python blocks run in order, in one namespace,
in a scratch folder."""
import os
import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_the_examples_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name} block {i + 1}", "exec"), namespace)
    assert os.path.getsize(tmp_path / "alpha.png") > 0
    assert "fovea-data" in (tmp_path / "caption.html").read_text(encoding="utf-8")
    assert (tmp_path / "tiny-run" / "last.ckpt").exists()
