"""fovea: image captioning with visual attention (Show, Attend and Tell), from Python.

The same core as the `fovea` command and fovea-studio: load a model, caption images with where
the model looked for each word (alpha), test what alpha says (score a caption you type, probe a
region, take a word's region away), score captions with the coco-caption metrics, train a model
and read its run folder.

    fovea.load(path=None, device="cpu")   a Model (default: $FOVEA_MODEL, else the shipped soft model)
    model.caption(image, beam=3, ...)     a Result: words with alpha, beta, p     (fovea caption --json)
    model.score(image, caption)           alpha, beta, p of a caption you give    (studio: Type a caption)
    model.probe(image, region, prefix)    the next word, attention forced there   (fovea probe)
    model.take_away(image, word)          remove what the word looks at: does it go?  (fovea take-away)
    model.saliency(image, caption)        gradient saliency of each word on the grid
    fovea.score(candidates, references)   BLEU-1..4, ROUGE-L, CIDEr-D             (fovea score)
    fovea.train(out_dir, ...)             train a model, with progress and cancellation  (fovea train)
    fovea.resume(run_dir, ...)            continue an interrupted run              (fovea train --resume)
    fovea.read_run(run_dir)               a run folder's records as plain lists
    fovea.metrics(run_dir, kind="train")  ... as a pandas DataFrame when pandas is installed
    fovea.show(result, word=None)         alpha over the image, with matplotlib
    fovea.set_threads(n)                  CPU threads the core uses

An image is a file path, an H x W x 3 uint8 NumPy array, or a torch tensor (H x W x 3 or 3 x H x W,
uint8); a list of them captions a batch. Each word's alpha is a NumPy array (word.alpha) and a
torch tensor (word.alpha_tensor) over the same memory. Errors raise fovea.Error (a RuntimeError),
ValueError or TypeError with the message the command line would print.

    >>> import fovea
    >>> model = fovea.load()
    >>> result = model.caption(fovea.samples_dir() + "/test_00000.png")
    >>> result.text, [round(w.p, 2) for w in result.words]

docs/python.md has more examples.
"""
import errno as _errno
import html as _html
import os as _os
import pathlib as _pathlib
import warnings as _warnings

from . import _core
from ._core import Error, Result, TrainResult, Word, default_model_path, find_runs, samples_dir, score, set_threads
from . import _settings

__version__ = _core.__version__

# The shipped models and samples, from where this package lies: PREFIX/lib/python3/dist-packages/
# fovea installed, REPO/build/python/fovea in a build tree.
_here = _pathlib.Path(__file__).resolve().parent
for _root in (_here.parents[3], _here.parents[2]) if len(_here.parents) > 3 else ():
    _core._add_data_root(str(_root))


def _image(image):
    """A path or an array as the core takes it; a torch tensor as the uint8 H x W x 3 array it holds."""
    if type(image).__module__.startswith("torch") and hasattr(image, "numpy"):
        t = image.detach().cpu()
        if t.dim() == 3 and t.shape[0] == 3 and t.shape[2] != 3:
            t = t.permute(1, 2, 0)  # torchvision's 3 x H x W
        if str(t.dtype) != "torch.uint8":
            raise ValueError(f"an image tensor must have dtype torch.uint8 (RGB, 0..255); this one has {t.dtype}")
        return t.contiguous().numpy()
    return image


def _is_batch(image):
    return isinstance(image, (list, tuple))


def _checked(name, value, kind):
    """value when it is a kind (str or int); else a TypeError naming the argument, where the
    compiled core's own would list its C++ signatures."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"{name}: {'text (str)' if kind is str else 'a whole number (int)'}, not {type(value).__name__}")
    return value


class Model(_core._Model):
    """A captioning model loaded from a checkpoint or shipped model file (fovea.load makes one).

    Its methods release the GIL while they work; one model serves one call at a time (calls from
    several threads wait their turn; load one model per thread to caption in parallel)."""

    def _caption_settings(self, settings):
        """`settings` (keyword arguments) as the caption settings table names them, checked as the
        command line checks them: a seed without sampled glimpses is refused, glimpses on a soft
        model said (to the caller of the method that called this)."""
        if settings.get("seed") is not None and not settings.get("sample_glimpses"):
            raise ValueError("seed: only with sample_glimpses=True (it seeds the glimpses' draw)")
        if settings.get("sample_glimpses") and self.attention != "hard":
            _warnings.warn("sample_glimpses applies to hard models: this soft model attends with its expected alpha",
                           stacklevel=3)
        return _settings.table_keys(settings)

    def caption(self, image, **settings):
        keys = self._caption_settings(settings)
        if _is_batch(image):
            return self._caption([_image(i) for i in image], keys)
        return self._caption([_image(image)], keys)[0]

    def score(self, image, caption):
        return super().score(_image(image), _checked("caption", caption, str))

    def saliency(self, image, caption):
        return super().saliency(_image(image), _checked("caption", caption, str))

    def probe(self, image, region, prefix="", top=5):
        return super().probe(_image(image), region, _checked("prefix", prefix, str), _checked("top", top, int))

    def take_away(self, image, word, caption=None, **settings):
        if caption is not None:
            _checked("caption", caption, str)
        return self._take_away(_image(image), word, caption, self._caption_settings(settings))

    def __repr__(self):
        return f"<fovea.Model {self.attention} {self.path}>"


Model.caption.__signature__ = _settings.inspect.Signature(
    [_settings.inspect.Parameter("self", _settings.inspect.Parameter.POSITIONAL_OR_KEYWORD),
     _settings.inspect.Parameter("image", _settings.inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    + _settings.caption_parameters())
Model.caption.__doc__ = f"""Caption an image (a Result) or a list of images (a list of Results), as `fovea caption` does.

image: a file path, an H x W x 3 uint8 NumPy array, or a torch uint8 tensor (H x W x 3 or 3 x H x W).
The settings are the caption options of `fovea caption`, with the same names, defaults and ranges:

{_settings.caption_help()}
"""
Model.score.__doc__ = _core._Model.score.__doc__
Model.saliency.__doc__ = _core._Model.saliency.__doc__
Model.probe.__doc__ = _core._Model.probe.__doc__
Model.take_away.__doc__ = f"""Take away what a word's alpha points at, and as much elsewhere as a control; ask again.

As `fovea take-away`: word is its index in the caption (0 = first, negative from the end) or the
word itself; caption (optional) a caption to test instead of the model's own. Returns a dict:
caption, word, index, p (p(word) on the image), grid, attended and control (each: cells, p, drop,
caption, word_still_said, image: the altered image as an array; control also its source word or
None), spread and note (a word whose alpha spreads over much of the image looks at no one place).

The settings are the caption options of `fovea caption`: they decode the caption said (when none
is given) and the captions left after each removal.

{_settings.caption_help()}
"""


def load(path=None, device="cpu"):
    """Load a model file (a checkpoint or a shipped model): a fovea.Model.

    path: the file (default: $FOVEA_MODEL, else the shipped soft model, as `fovea caption` without
    --model); device: "auto", "cpu" or "cuda". Raises fovea.Error naming the file when it is
    missing or not a model."""
    return Model(_os.fspath(path) if path is not None else default_model_path(), _checked("device", device, str))


def _to_html(self, title="", style="spotlight"):
    """The caption as one self-contained web page (HTML text), the page `fovea export IMAGE --out
    page.html` writes: the image and every word's alpha inline, the words as chips (hover or click
    one to see where the model looked), Play, a spotlight or heat-map overlay (style), and the
    reference captions when the image came from a folder with a captions.json. title: the page's
    heading (default: the caption). Opens offline in any browser; a notebook shows it inline."""
    if style not in ("spotlight", "heatmap"):
        raise ValueError(f"style: 'spotlight' or 'heatmap', not {style!r}")
    return _core._web_page(self, title, style)


def _save_html(self, path, title="", style="spotlight"):
    """Write to_html() to path (a temporary file, then renamed: never half a page); returns path."""
    path = _os.fspath(path)
    if _os.path.isdir(path):
        raise IsADirectoryError(_errno.EISDIR, "is a folder, cannot write a page there", path)
    page = self.to_html(title, style)
    tmp = f"{path}.tmp{_os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        _os.replace(tmp, path)
    except OSError as e:  # a full disk, a folder that is not writable: the error names path, no temporary stays
        if _os.path.exists(tmp):
            _os.remove(tmp)
        raise type(e)(e.errno, e.strerror, path) from None
    return path


def _repr_html_(self):
    # Jupyter shows a Result as its page, in a sandboxed frame: pages shown side by side keep
    # their own element ids and scripts; a smaller heading and image than the page's own fit a cell.
    compact = "<style>h1 { font-size: 1.15em; } #fovea-view { width: min(20em, 100%); }</style></head>"
    page = self.to_html().replace("</head>", compact, 1)
    return ('<iframe style="width:100%;height:44em;border:0" sandbox="allow-scripts" srcdoc="'
            + _html.escape(page, quote=True) + '"></iframe>')


Result.to_html = _to_html
Result.save_html = _save_html
Result._repr_html_ = _repr_html_


def _check_callbacks(progress, messages):
    for name, f in (("progress", progress), ("messages", messages)):
        if f is not None and not callable(f):
            raise TypeError(f"{name}: a function (or None), not {type(f).__name__}")


def train(out_dir, *, progress=None, messages=None, paper=False, **settings):
    _check_callbacks(progress, messages)  # before anything is written, not at the first step
    _core._train_config(_settings.table_keys(settings))  # a bad setting is named before the folder is looked at
    if _os.path.exists(_os.path.join(_os.fspath(out_dir), "last.ckpt")):
        raise Error(f"{_os.fspath(out_dir)}: already holds a run (last.ckpt); continue it with "
                    f"fovea.resume({_os.fspath(out_dir)!r}) or train into another folder")
    return _core._train(_os.fspath(out_dir), _settings.table_keys(settings), paper, progress, messages)


def resume(run_dir, *, progress=None, messages=None, **settings):
    """Continue the interrupted run in run_dir from its last checkpoint (`fovea train --resume`).

    The settings a resume may change (epochs, max_steps, patience, ...) are applied and recorded;
    another value for any other setting is refused. progress and messages as for fovea.train."""
    _check_callbacks(progress, messages)
    return _core._resume(_os.fspath(run_dir), _settings.table_keys(settings), progress, messages)


train.__signature__ = _settings.inspect.Signature(
    [_settings.inspect.Parameter("out_dir", _settings.inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    + [_settings.inspect.Parameter(n, _settings.inspect.Parameter.KEYWORD_ONLY, default=d)
       for n, d in (("progress", None), ("messages", None), ("paper", False))]
    + _settings.train_parameters())
train.__doc__ = f"""Train a model into the run folder out_dir, as `fovea train --out out_dir` does: a TrainResult.

The run writes metrics.jsonl, samples.jsonl, last.ckpt and best.ckpt, config.json and a model card
into out_dir (fovea.read_run reads them; fovea.load opens the checkpoints). The GIL is released
while it trains.

progress: called after every step with a dict (kind "step": step, total_steps, epoch, epochs,
loss, tokens_per_s, eta_s, elapsed_s; kind "pretrain" during encoder pretraining) and after every
validation (kind "validation": bleu1..bleu4, cider, improved, ...). Returning False stops the run
at the next step; it writes its checkpoint (fovea.resume continues it) and returns with
interrupted=True. An exception the callback raises (KeyboardInterrupt too: Ctrl-C while training)
stops the run the same way and is raised again once it has stopped.
messages: called with each message `fovea train` would print (default: written to sys.stderr).
paper: the paper's exact objective (as --paper).

The training settings, as `fovea train --help` lists them (Python spells lambda as lambda_):

{_settings.train_help()}
"""


class Run:
    """A run folder's records (fovea.read_run): plain lists, one per column.

    train, validation, pretrain: {column: [value per record]} (columns as in metrics.jsonl:
    step, epoch, loss, nll, ... for train; step, bleu1..bleu4, cider, ... for validation);
    events: non-finite steps and loss spikes; samples: captions of a few validation images over
    time (when read); config: the run's settings; name, dir, finished, failed, failure,
    last_step, best_bleu4, best_metric and best_score (what best.ckpt was chosen by: "BLEU-4",
    "CIDEr-D" for self-critical runs or while BLEU-4 is below 0.01, "validation NLL"; "" before a
    validation), has_last_checkpoint, has_best_checkpoint, checkpoint_step."""

    def __init__(self, fields):
        self.__dict__.update(fields)

    def frame(self, kind="train"):
        """The records of `kind` (train, validation or pretrain) as a pandas DataFrame."""
        import pandas
        return pandas.DataFrame(getattr(self, kind))

    def __repr__(self):
        return f"<fovea.Run {self.name}: {len(self.train.get('step', []))} train records, last step {self.last_step}>"


def read_run(run_dir, samples=False):
    """Read a run folder (one holding metrics.jsonl): a fovea.Run with its records as plain lists.

    samples=True also reads samples.jsonl (the largest file: alpha for every word). Raises
    fovea.Error naming the folder when it holds no metrics.jsonl."""
    return Run(_core._read_run(_os.fspath(run_dir), samples))


def metrics(run_dir, kind="train", frame=None):
    """A run folder's records of `kind` ("train", "validation" or "pretrain").

    frame=None: a pandas DataFrame when pandas is installed, else {column: [values]};
    frame=True / False: the DataFrame / the plain lists."""
    run = read_run(run_dir)
    if kind not in ("train", "validation", "pretrain"):
        raise ValueError(f"kind={kind!r}: train, validation or pretrain")
    if frame is None:
        try:
            import pandas  # noqa: F401
            frame = True
        except ImportError:
            frame = False
    return run.frame(kind) if frame else getattr(run, kind)


def _alpha_tensor(word):
    import torch
    return torch.from_numpy(word.alpha)


def _alphas(result):
    import numpy
    h, w = result.grid
    return numpy.stack([word.alpha for word in result.words]) if len(result) else numpy.zeros((0, h, w), "float32")


Word.alpha_tensor = property(_alpha_tensor, doc="alpha as a torch tensor over the same memory as word.alpha (no copy)")
Result.alphas = property(_alphas, doc="Every word's alpha stacked: a float32 NumPy array words x grid_h x grid_w")
Result.alphas_tensor = property(lambda r: __import__("torch").from_numpy(r.alphas),
                                doc="result.alphas as a torch tensor")
Result.betas = property(lambda r: [w.beta for w in r.words], doc="Each word's beta")
Result.probs = property(lambda r: [w.p for w in r.words], doc="Each word's p")

from ._show import show  # noqa: E402

__all__ = ["load", "Model", "Result", "Word", "Error", "score", "train", "resume", "TrainResult", "read_run", "Run",
           "metrics", "find_runs", "show", "default_model_path", "samples_dir", "set_threads"]
