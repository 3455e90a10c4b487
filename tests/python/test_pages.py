"""A caption as a web page from Python: the page `fovea export IMAGE --out page.html` writes, a
file to share, and what a notebook shows for a Result."""
import html
import json
import re
import shutil
import subprocess
import sys

import pytest


def page_data(page):
    """The page's data: the words with their alpha, as the page's script reads them."""
    found = re.search(r'<script type="application/json" id="fovea-data">(.*?)</script>', page, re.S)
    assert found, "the page holds no data"
    return json.loads(found.group(1).replace("<\\/", "</"))


def test_the_page_is_the_one_export_writes(cli, model, samples, tmp_path):
    image = samples + "/test_00001.png"
    result = model.caption(image)
    page = result.to_html()
    subprocess.run([cli, "export", image, "--out", str(tmp_path / "cli.html")], check=True, capture_output=True)
    cli_page = (tmp_path / "cli.html").read_text(encoding="utf-8")
    data_block = r'<script type="application/json" id="fovea-data">.*?</script>'
    assert re.sub(data_block, "", page, flags=re.S) == re.sub(data_block, "", cli_page, flags=re.S)  # all but the data
    words, cli_words = page_data(page)["words"], page_data(cli_page)["words"]  # the data, to rounding
    assert [w["word"] for w in words] == [w.word for w in result.words] == [w["word"] for w in cli_words]
    for ours, theirs in zip(words, cli_words):
        assert ours["alpha"] == pytest.approx(theirs["alpha"], abs=1e-3) and ours["p"] == pytest.approx(theirs["p"], abs=1e-3)
    assert "<li>" in page  # the sample folder's reference captions
    saved = result.save_html(tmp_path / "shared.html", title="Shared", style="heatmap")
    text = open(saved, encoding="utf-8").read()
    assert "<h1>Shared</h1>" in text and 'value="heatmap" selected' in text
    with pytest.raises(ValueError, match="style"):
        result.to_html(style="glow")


def test_a_page_that_cannot_be_written_names_its_file_and_leaves_nothing(model, samples, tmp_path):
    result = model.caption(samples + "/test_00001.png")
    with pytest.raises(IsADirectoryError, match="is a folder") as folder:
        result.save_html(tmp_path)
    assert folder.value.filename == str(tmp_path)
    # A full disk, here a file-size limit of 4 KiB in a child process (SIGXFSZ ignored).
    script = (f"import resource, signal, fovea; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
              f"r = fovea.load().caption({samples + '/test_00001.png'!r}); "
              f"resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY)); "
              f"r.save_html({str(tmp_path / 'full.html')!r})")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode != 0 and "full.html" in done.stderr and "File too large" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == [], "a temporary file or half a page stayed"


def test_a_notebook_shows_the_page_in_its_own_frame(model, samples):
    result = model.caption(samples + "/test_00000.png")
    shown = result._repr_html_()
    frame = re.fullmatch(r'<iframe [^>]*sandbox="allow-scripts" srcdoc="([^"]*)"></iframe>', shown)
    assert frame, "not one sandboxed frame"
    inner = html.unescape(frame.group(1))
    assert [w["word"] for w in page_data(inner)["words"]] == [w.word for w in result.words]


def test_markup_in_a_file_name_or_reference_caption_stays_text_in_a_notebook(model, samples, tmp_path):
    # "<!--" then "<script" in data a page embeds once turned the rest of the page into script data.
    folder = tmp_path / "hostile"
    folder.mkdir()
    name = "x<!--<script>.png"
    (folder / name).write_bytes(open(samples + "/test_00001.png", "rb").read())
    (folder / "captions.json").write_text(json.dumps([{"file": name, "captions": ["<!-- c", "<script>x"]}]))
    result = model.caption(str(folder / name))
    frame = re.fullmatch(r'<iframe [^>]*srcdoc="([^"]*)"></iframe>', result._repr_html_())
    inner = html.unescape(frame.group(1))
    block = re.search(r'<script type="application/json" id="fovea-data">(.*?)</script>', inner, re.S).group(1)
    assert not set("<>&\u2028\u2029") & set(block), block
    assert "<li>&lt;!-- c</li>" in inner and "<li>&lt;script&gt;x</li>" in inner
    browser = shutil.which("chromium")
    if browser is None:
        pytest.skip("no chromium: the notebook's page was not opened in a browser")
    page = tmp_path / "inner.html"
    page.write_text(inner, encoding="utf-8")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom",
                          page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    chips = re.search(r'<div id="fovea-chips"[^>]*>(.*?)</div>', dom, re.S).group(1)
    assert chips.count("<button") == len(result.words) > 0, dom
