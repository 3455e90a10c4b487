"""Bad input raises Python exceptions carrying the core's message, never a crash or a backtrace."""
import subprocess
import time

import numpy as np
import pytest

import fovea


def test_a_missing_model_file_is_named(tmp_path):
    missing = tmp_path / "nothing.ckpt"
    with pytest.raises(fovea.Error, match="nothing.ckpt") as e:
        fovea.load(missing)
    assert "frame #" not in str(e.value) and "Exception raised from" not in str(e.value)


def test_a_file_that_is_not_a_model_is_named(tmp_path):
    bogus = tmp_path / "bogus.ckpt"
    bogus.write_bytes(b"not a model at all" * 10)
    with pytest.raises(fovea.Error, match="bogus.ckpt"):
        fovea.load(bogus)


def test_bad_images_are_named(model, tmp_path):
    with pytest.raises(fovea.Error, match="absent.png"):
        model.caption(str(tmp_path / "absent.png"))
    with pytest.raises(ValueError, match="H x W x 3"):
        model.caption(np.zeros((8, 8), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        model.caption(np.zeros((8, 8, 3), np.float32))
    with pytest.raises(ValueError, match="a file path"):
        model.caption(42)


def test_caption_settings_are_checked_against_the_table(model, samples):
    image = samples + "/test_00000.png"
    with pytest.raises(ValueError, match=r"beam=0: not in 1\.\.50"):
        model.caption(image, beam=0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'beams'.*beam, greedy"):
        model.caption(image, beams=2)
    with pytest.raises(TypeError, match="fovea.load"):
        model.caption(image, device="cpu")
    with pytest.raises(TypeError, match="True or False"):
        model.caption(image, greedy=1)
    with pytest.raises(ValueError, match="greedy or beam, not both"):  # as the CLI refuses --greedy --beam 5
        model.caption(image, greedy=True, beam=5)
    with pytest.raises(ValueError, match="threads must be 0"):
        fovea.set_threads(-1)


def test_training_settings_are_checked_against_the_table(tmp_path):
    with pytest.raises(ValueError, match="lr"):
        fovea.train(tmp_path / "run", lr=-1.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'learning_rate'"):
        fovea.train(tmp_path / "run", learning_rate=0.1)
    with pytest.raises(ValueError, match="attention"):
        fovea.train(tmp_path / "run", attention="sideways")


def test_probe_and_take_away_name_what_is_wrong(model, samples):
    image = samples + "/test_00000.png"
    with pytest.raises(ValueError, match="region"):
        model.probe(image, (5000, 5000, 6000, 6000))
    with pytest.raises(ValueError, match="not in the caption"):
        model.take_away(image, "zebra-crossing")
    with pytest.raises(IndexError, match="has"):
        model.take_away(image, 99)


def test_a_folder_without_a_run_is_named(tmp_path):
    with pytest.raises(fovea.Error, match=str(tmp_path.name)):
        fovea.read_run(tmp_path)


def test_scores_of_the_wrong_shape_say_which_entry(tmp_path):
    with pytest.raises(TypeError, match=r"references\[1\]: a list of reference captions"):
        fovea.score({1: "a red shirt"}, {1: "a red shirt"})
    with pytest.raises(TypeError, match=r"candidates\[0\]: a caption \(str\), not list"):
        fovea.score([["a"]], [["a"]])
    with pytest.raises(ValueError, match="no candidate captions"):
        fovea.score([], [])
    assert fovea.find_runs(tmp_path) == []  # a pathlib.Path, as every other function takes


def test_settings_that_cannot_act_are_said(model, samples):
    image = samples + "/test_00000.png"
    with pytest.raises(ValueError, match="only with sample_glimpses"):
        model.caption(image, seed=3)
    with pytest.warns(UserWarning, match="applies to hard models"):
        model.caption(image, sample_glimpses=True)
    with pytest.raises(ValueError, match="only with sample_glimpses"):  # take_away reads them as caption does
        model.take_away(image, 1, seed=3)
    with pytest.raises(TypeError, match=r"word: its index .* not float"):
        model.take_away(image, 1.0)


def test_training_again_into_a_run_says_how_to_resume_it(tmp_path):
    with pytest.raises(TypeError, match="progress: a function"):
        fovea.train(tmp_path / "run", progress=5)
    assert not (tmp_path / "run").exists()  # refused before anything was written
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "last.ckpt").write_bytes(b"x")
    with pytest.raises(fovea.Error, match=r"fovea\.resume\("):
        fovea.train(tmp_path / "run")


def test_the_command_lines_limits_hold_here_too(cli, model, samples):
    # An image over the command line's pixel limit, refused before any work in the same words (it
    # was once captioned, in 30 s and 8.7 GB). np.zeros leaves its pages untouched: no memory spent.
    started = time.monotonic()
    with pytest.raises(fovea.Error, match="image array: image of 20000x20000 pixels is larger than the limit of 100000000 pixels"):
        model.caption(np.zeros((20000, 20000, 3), np.uint8))
    assert time.monotonic() - started < 5
    image = samples + "/test_00000.png"
    with pytest.raises(ValueError, match="region nan,0,10,10: nan is not a pixel position"):
        model.probe(image, (float("nan"), 0, 10, 10))
    with pytest.raises(ValueError, match="region 0,0,inf,10: inf is not a pixel position"):
        model.probe(image, (0, 0, float("inf"), 10))
    # An inverted or empty rectangle: refused here as by `fovea probe`, in its very words.
    for region, why in (("40,0,10,10", "inverted"), ("10,0,10,10", "covers no area")):
        with pytest.raises(ValueError, match=why) as e:
            model.probe(image, tuple(float(v) for v in region.split(",")))
        said = subprocess.run([cli, "probe", image, "--model", model.path, "--region", region], capture_output=True, text=True)
        assert said.returncode != 0 and said.stderr.strip() == f"fovea: error: {e.value}", said.stderr


def test_arguments_of_the_wrong_type_are_named_not_the_cores_signatures(model, samples):
    image = samples + "/test_00000.png"
    calls = {"caption": lambda: model.score(image, 42),
             "caption:": lambda: model.saliency(image, 42),
             "prefix": lambda: model.probe(image, (0, 0, 10, 10), 42),
             "top": lambda: model.probe(image, (0, 0, 10, 10), top="5"),
             "region": lambda: model.probe(image, ("a", "b")),
             "caption: text": lambda: model.take_away(image, 0, caption=3),
             "device": lambda: fovea.load(device=0)}
    for name, call in calls.items():
        with pytest.raises(TypeError, match=name) as e:
            call()
        assert "incompatible function arguments" not in str(e.value) and "Unable to cast" not in str(e.value), str(e.value)


def test_a_training_setting_is_named_as_python_spells_it(tmp_path):
    with pytest.raises(ValueError, match=r"lr='fast': 'fast' is not a number") as e:
        fovea.train(tmp_path / "run", lr="fast")
    assert "--lr" not in str(e.value)
    assert not (tmp_path / "run").exists()


def test_a_bad_setting_is_named_even_into_a_folder_holding_a_run(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "last.ckpt").write_bytes(b"a run was here")
    with pytest.raises(ValueError, match="batch must be >= 1, got 0"):
        fovea.train(run, batch=0)
    with pytest.raises(fovea.Error, match="already holds a run"):  # good settings: the folder is the problem
        fovea.train(run, batch=8)


def test_scoring_names_the_words_the_model_does_not_know(model, samples):
    with pytest.warns(UserWarning, match="'zebra'") as caught:
        scored = model.score(samples + "/test_00000.png", "a zebra")
    assert "'a'" not in str(caught[0].message)
    assert [w.word for w in scored.words][:2] == ["a", "zebra <unk>"]
