"""fovea.show: alpha over the image with matplotlib (Debian: python3-matplotlib)."""
import functools
import weakref


def _word_index(result, word):
    if isinstance(word, int):
        n = len(result)
        if not -n <= word < n:
            raise IndexError(f"word {word}: the caption \"{result.text}\" has {n} words")
        return word % n
    for w in result.words:
        if w.word == word or w.word == word + " <unk>":
            return w.index
    raise ValueError(f"word {word!r} is not in the caption \"{result.text}\"")


def _drawn_once(fig):
    """`fig`, drawn once per notebook cell: when it ends a cell, IPython's display hook draws it
    and the inline backend, drawing pyplot's figures as the cell ends, would draw it again."""
    fig._ipython_display_ = functools.partial(_display_once_per_cell, fig)
    return fig


_drawn_in = weakref.WeakKeyDictionary()  # figure -> the cell (its ExecutionResult) that drew it


def _display_once_per_cell(fig):
    from IPython import get_ipython
    from IPython.display import display
    shell = get_ipython()
    # The cell running (the display hook's), else the one that just ran (the inline backend's).
    cell = getattr(getattr(shell, "displayhook", None), "exec_result", None)
    cell = cell or getattr(shell, "last_execution_result", None)
    drawn = _drawn_in.get(fig)
    if cell is not None and drawn is not None and drawn() is cell:
        return
    if cell is not None:
        _drawn_in[fig] = weakref.ref(cell)
    hook = fig.__dict__.pop("_ipython_display_")  # display the figure itself, as IPython would have
    try:
        display(fig)
    finally:
        fig._ipython_display_ = hook


def show(result, word=None, ax=None, opacity=0.55, cmap="inferno"):
    """Draw where the model looked for a word: its alpha over the image, with matplotlib.

    result: a fovea.Result (model.caption or model.score); word: its index (0 = first, negative
    from the end) or the word itself; None draws every word, one panel each, in a new figure.
    ax: the matplotlib Axes to draw one word in (default: a new figure). alpha is stretched over
    the whole image, as the encoder sees it, and drawn with `opacity` in colour map `cmap`; a hard
    model's sampled glimpse (sample_glimpses=True) is outlined on it.
    Returns the matplotlib Figure (in a notebook, drawn once when it ends a cell). Raises
    ImportError saying what to install without matplotlib."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("fovea.show needs matplotlib (Debian: apt install python3-matplotlib)") from e
    image = result.image
    height, width = image.shape[:2]
    if word is None and ax is None:
        n = max(1, len(result))
        cols = min(n, 5)
        rows = (n + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.9 * rows), squeeze=False)
        for i, a in enumerate(axes.flat):
            if i < len(result):
                _draw(a, image, result.words[i], width, height, opacity, cmap)
            else:
                a.axis("off")
        fig.suptitle(result.text)
        fig.tight_layout()
        return _drawn_once(fig)
    index = _word_index(result, 0 if word is None else word)
    if ax is None:
        fig, ax = plt.subplots(figsize=(4, 4.3))
    _draw(ax, image, result.words[index], width, height, opacity, cmap)
    return _drawn_once(ax.figure)


def _draw(ax, image, w, width, height, opacity, cmap):
    ax.imshow(image)
    ax.imshow(w.alpha, extent=(0, width, height, 0), alpha=opacity, cmap=cmap, interpolation="bilinear")
    if w.glimpse is not None:  # a sampled glimpse: the cell the word was said looking at, outlined
        rows, cols = w.alpha.shape
        row, col = w.glimpse
        cell_w, cell_h = width / cols, height / rows
        from matplotlib.patches import Rectangle
        ax.add_patch(Rectangle((col * cell_w, row * cell_h), cell_w, cell_h, fill=False, edgecolor="#00e5ff",
                               linewidth=1.5))
    ax.set_title(f"{w.word}  p={w.p:.2f}  β={w.beta:.2f}", fontsize=9)
    ax.axis("off")
