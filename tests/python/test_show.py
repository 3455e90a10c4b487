"""fovea.show draws alpha over the image with matplotlib (the Agg backend: no display)."""
import os
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import fovea  # noqa: E402


def rendered(fig):
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(int)


def test_show_draws_each_words_alpha(model, samples):
    result = model.caption(samples + "/test_00001.png")
    first = fovea.show(result, word=0)
    second = fovea.show(result, word=result.words[1].word)
    assert first.axes[0].get_title().startswith(result.words[0].word)
    a, b = rendered(first), rendered(second)
    assert a.shape == b.shape and np.abs(a - b).sum() > 0, "two words' alpha drew the same picture"
    every = fovea.show(result)
    assert sum(ax.get_title() != "" for ax in every.axes) == len(result)
    with pytest.raises(ValueError, match="not in the caption"):
        fovea.show(result, word="zebra")


def test_a_sampled_glimpse_is_outlined(samples):
    hard = fovea.load(fovea.default_model_path().replace("fashion-soft", "fashion-hard"))
    result = hard.caption(samples + "/test_00001.png", sample_glimpses=True, seed=7)
    word = result.words[2]
    ax = fovea.show(result, word=2).axes[0]
    boxes = [p for p in ax.patches if p.get_width() > 0]
    assert len(boxes) == 1, "no outline of the glimpsed cell"
    rows, cols = result.grid
    height, width = result.image.shape[:2]
    assert boxes[0].get_xy() == pytest.approx((word.glimpse[1] * width / cols, word.glimpse[0] * height / rows))
    assert not fovea.show(hard.caption(samples + "/test_00001.png"), word=2).axes[0].patches  # expected alpha: none


NOTEBOOK_CELLS = '''
import sys
import fovea
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.enable_gui = lambda gui=None: None  # (a kernel's; the inline backend needs no event loop)
shell.enable_matplotlib("inline")  # as in a notebook: pyplot's figures are drawn when a cell ends
drawn = []
shell.display_pub.publish = lambda data, *args, **kwargs: drawn.append(data)
shell.displayhook.write_format_data = lambda data, *args, **kwargs: drawn.append(data)
shell.displayhook.write_output_prompt = lambda: None
shell.user_ns.update(fovea=fovea, result=fovea.load().caption(sys.argv[1]))
for cell in ("fovea.show(result, word=0)", "fovea.show(result)", "fig = fovea.show(result, word=1)", "fig"):
    drawn.clear()
    shell.run_cell(cell, store_history=True).raise_error()
    print(sum("image/png" in data for data in drawn))
'''


def test_a_figure_ending_a_notebook_cell_is_drawn_once(samples, tmp_path):
    """A cell ending in fovea.show(...) draws its figure once, not once by the inline backend and
    again by IPython's display hook; a figure from an earlier cell is drawn when named."""
    pytest.importorskip("IPython")
    pytest.importorskip("matplotlib_inline")
    env = dict(os.environ, IPYTHONDIR=str(tmp_path), MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, "-c", NOTEBOOK_CELLS, samples + "/test_00001.png"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1", "1", "1"], out.stdout  # each cell's figure, once
