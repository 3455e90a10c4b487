"""fovea.show draws alpha over the image with matplotlib (the Agg backend: no display)."""
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
