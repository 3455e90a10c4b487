"""Training from Python: a tiny model learns; the progress callback sees every step and can stop
the run cleanly; the run folder reads back as plain lists and a DataFrame.

The tiny model (32 px images, a 4x4 grid, small layers, fp32 on the CPU) trains in seconds; its
NLL per token (the mean of its last three logged values) is asserted to fall under 60% of its first
value in 60 steps, a generous margin: it falls to about 40% (3.9 to 1.6 nats)."""
import os

import pytest

import fovea

TINY = dict(image_size=32, encoder_widths=[8, 16, 32], embed_dim=16, attention_dim=16, hidden_dim=48,
            dropout=0.0, backbone="none", pretrain_steps=0, train_scenes=320, val_scenes=16, batch=16,
            lr=1e-2, lr_decay=1.0, epochs=1000, patience=1000, precision="fp32", device="cpu", seed=3)


def test_a_tiny_model_learns(tmp_path):
    seen = []
    run = tmp_path / "run"
    result = fovea.train(run, max_steps=60, progress=lambda p: seen.append(p), messages=lambda m: None, **TINY)
    assert result.steps == 60 and not result.interrupted
    steps = [p["step"] for p in seen if p["kind"] == "step"]
    assert steps == list(range(1, 61))
    assert any(p["kind"] == "validation" for p in seen)

    records = fovea.read_run(run)
    nll = records.train["nll"]
    assert len(nll) >= 3 and len(nll) == len(records.train["step"])
    last = sum(nll[-3:]) / 3
    assert last < 0.6 * nll[0], f"NLL per token went from {nll[0]:.3f} to {last:.3f}"
    assert records.validation["bleu4"] and records.config["lr"] == pytest.approx(1e-2)
    # best.ckpt's metric and score agree with what the run returned
    assert records.best_metric == result.best_metric
    assert records.best_score == pytest.approx(result.best_score)

    frame = fovea.metrics(run, frame=True) if _has_pandas() else None
    if frame is not None:
        assert list(frame["step"]) == records.train["step"]
    assert fovea.metrics(run, frame=False)["nll"] == nll

    caption = fovea.load(result.last_checkpoint).caption(fovea.samples_dir() + "/test_00000.png")
    assert caption.grid == (4, 4) and len(caption) > 0


def test_the_callback_stops_the_run_and_resume_continues_it(tmp_path):
    run = tmp_path / "run"
    result = fovea.train(run, max_steps=40, progress=lambda p: p["step"] < 3, messages=lambda m: None, **TINY)
    assert result.interrupted and result.steps == 3
    assert os.path.exists(result.last_checkpoint)
    assert not fovea.read_run(run).failed
    resumed = fovea.resume(run, max_steps=6, messages=lambda m: None)
    assert resumed.steps == 6 and not resumed.interrupted


def test_an_exception_in_the_callback_stops_cleanly_and_is_raised(tmp_path):
    run = tmp_path / "run"

    def interrupt(p):
        if p["step"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fovea.train(run, max_steps=40, progress=interrupt, messages=lambda m: None, **TINY)
    log = fovea.read_run(run)
    assert log.has_last_checkpoint and not log.failed and log.checkpoint_step == 2


def test_help_lists_every_training_setting():
    doc = fovea.train.__doc__
    for s in fovea._core._train_settings():
        assert fovea._settings.python_name(s["key"]) + "=" in doc or s["key"] == "out"
    assert "lambda_=" in doc and "--lambda" in doc


def _has_pandas():
    try:
        import pandas  # noqa: F401
        return True
    except ImportError:
        return False
