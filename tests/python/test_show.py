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
