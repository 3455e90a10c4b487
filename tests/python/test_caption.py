"""Captions and alpha through the module equal the CLI's for the same image and options."""
import os

import numpy as np
import pytest

import fovea
from conftest import cli_json


def sample(samples, i):
    return os.path.join(samples, f"test_{i:05d}.png")


@pytest.mark.parametrize("options,flags", [
    ({}, []),
    ({"greedy": True}, ["--greedy"]),
    ({"beam": 5, "max_len": 4}, ["--beam", "5", "--max-len", "4"]),
])
def test_caption_equals_the_cli(cli, samples, model, options, flags):
    image = sample(samples, 1)
    expected = cli_json(cli, "caption", image, "--model", model.path, *flags)[0]
    result = model.caption(image, **options)
    assert result.text == expected["caption"]
    assert result.grid == tuple(expected["grid"])
    for word, want in zip(result.words, expected["words"]):
        assert word.word == want["word"]
        # The CLI's JSON prints floats to about 7 significant digits.
        np.testing.assert_allclose(word.alpha, np.array(want["alpha"], dtype=np.float32), rtol=1e-5, atol=1e-7)
        assert word.beta == pytest.approx(want["beta"], rel=1e-5)
        assert np.log(word.p) == pytest.approx(want["log_prob"], rel=1e-5, abs=1e-6)
    d = result.to_json()
    assert d["caption"] == expected["caption"] and d["image"] == image


def test_hard_model_sampled_glimpses_follow_the_seed(cli, samples):
    hard = fovea.load(fovea.default_model_path().replace("fashion-soft", "fashion-hard"))
    assert hard.attention == "hard"
    image = sample(samples, 2)
    expected = cli_json(cli, "caption", image, "--model", hard.path, "--sample-glimpses", "--seed", "7")[0]
    result = hard.caption(image, sample_glimpses=True, seed=7)
    assert result.text == expected["caption"]
    assert [list(w.glimpse) for w in result.words] == [w["glimpse"] for w in expected["words"]]
    # In a batch each image draws from the seed's own stream: its caption does not depend on the others.
    other = sample(samples, 4)
    batch = hard.caption([other, image, image], sample_glimpses=True, seed=7)
    for r in batch[1:]:
        assert [w.glimpse for w in r.words] == [w.glimpse for w in result.words]
    assert batch[0].text == hard.caption(other, sample_glimpses=True, seed=7).text


def test_arrays_tensors_and_batches_give_the_paths_caption(samples, model):
    torch = pytest.importorskip("torch")
    path = sample(samples, 3)
    by_path = model.caption(path)
    pixels = by_path.image
    assert pixels.dtype == np.uint8 and pixels.ndim == 3 and pixels.shape[2] == 3
    assert model.caption(pixels).text == by_path.text
    assert model.caption(torch.from_numpy(pixels)).text == by_path.text
    assert model.caption(torch.from_numpy(pixels).permute(2, 0, 1)).text == by_path.text
    batch = model.caption([path, pixels, sample(samples, 4)])
    assert [r.text for r in batch[:2]] == [by_path.text, by_path.text]
    assert batch[2].text == model.caption(sample(samples, 4)).text
    # alpha as NumPy and as torch over the same memory, each summing to one
    word = by_path.words[0]
    assert word.alpha.shape == by_path.grid and word.alpha.dtype == np.float32
    assert word.alpha_tensor.data_ptr() == word.alpha.ctypes.data
    assert float(word.alpha.sum()) == pytest.approx(1.0, abs=1e-4)
    assert by_path.alphas.shape == (len(by_path),) + by_path.grid
    assert 0 < word.p <= 1 and len(by_path.betas) == len(by_path.probs) == len(by_path)


def test_score_probe_take_away_equal_the_cli(cli, samples, model):
    image = sample(samples, 1)
    typed = "a red shirt"
    scored = model.score(image, typed)
    assert [w.word for w in scored.words] == typed.split()
    assert all(0 < w.p <= 1 for w in scored.words)

    expected = cli_json(cli, "probe", image, "--model", model.path, "--region", "0,0,40,40", "--prefix", "a")
    probe = model.probe(image, (0, 0, 40, 40), prefix="a")
    assert [w for w, _ in probe["words"]] == [w["word"] for w in expected["words"]]
    np.testing.assert_allclose(probe["alpha"], np.array(expected["alpha"], dtype=np.float32), rtol=1e-5, atol=1e-7)

    expected = cli_json(cli, "take-away", image, "--model", model.path, "--word", "2")
    t = model.take_away(image, 1)
    assert t["caption"] == expected["caption"] and t["word"] == expected["word"]
    assert t["attended"]["cells"] == expected["attended"]["cells"]
    assert t["attended"]["p"] == pytest.approx(expected["attended"]["p"], rel=1e-4)
    assert t["control"]["caption"] == expected["control"]["caption"]


def test_every_is_not_read_as_the_seed(samples):
    """every (videos: caption every Nth frame) sets itself, not the glimpses' seed."""
    hard = fovea.load(fovea.default_model_path().replace("fashion-soft", "fashion-hard"))
    image = sample(samples, 1)
    seeded = hard.caption(image, sample_glimpses=True, seed=3)
    assert hard.caption(image, sample_glimpses=True, seed=3, every=7).text == seeded.text


def test_take_away_decodes_with_every_caption_setting(samples, model):
    """take_away reads all of caption()'s settings, not beam alone: max_len limits the caption it
    says, as it limits caption()'s, and the captions left after each removal."""
    image = sample(samples, 1)
    assert len(model.caption(image).words) > 2
    short = model.caption(image, max_len=2)
    t = model.take_away(image, 0, max_len=2)
    assert t["caption"] == short.text
    assert len(t["attended"]["caption"].split()) <= 2 and len(t["control"]["caption"].split()) <= 2
    greedy = model.take_away(image, 0, greedy=True)
    assert greedy["caption"] == model.caption(image, greedy=True).text


def test_coco_metrics_equal_fovea_score(cli, tmp_path):
    import json
    refs = {1: ["a red shirt on the left", "a shirt in red"], 2: ["a blue bag", "a bag that is blue"]}
    cands = {1: "a red shirt", 2: "a green bag"}
    (tmp_path / "refs.json").write_text(json.dumps({
        "images": [{"id": i} for i in refs],
        "annotations": [{"image_id": i, "id": 10 * i + k, "caption": c} for i, cs in refs.items() for k, c in enumerate(cs)]}))
    (tmp_path / "results.json").write_text(json.dumps([{"image_id": i, "caption": c} for i, c in cands.items()]))
    expected = cli_json(cli, "score", "--refs", str(tmp_path / "refs.json"), "--results", str(tmp_path / "results.json"))
    got = fovea.score(cands, refs)
    for key in ("Bleu_1", "Bleu_4", "ROUGE_L", "CIDEr"):
        assert got[key] == pytest.approx(expected[key], rel=1e-6, abs=1e-9)
    assert fovea.score(list(cands.values()), list(refs.values()))["CIDEr"] == pytest.approx(got["CIDEr"])
    assert len(fovea.score(cands, refs, per_image=True)["per_image"]) == 2
