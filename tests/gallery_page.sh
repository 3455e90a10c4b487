#!/usr/bin/env bash
# `fovea export FOLDER --format html`: one self-contained gallery page of a folder's images (100
# here), under 10 MB, which a browser shows offline: a card per image with its caption's chips and
# references, the caption as a sentence and Play, a word's alpha drawn when a link names it
# (#item=N&word=M), cards filling a wide window, and with --compare two models side by side, a
# word shown in both captions where both say it, a run's best.ckpt named by its run. Prints the page's size and the browser's build and load times (no limit
# asserted on them: speed is measured, not tested). Usage: gallery_page.sh FOVEA HARD_MODEL WORK_DIR
set -euo pipefail
. "$(dirname "$0")/lib/prologue.sh"
HARD="$(realpath "$2")"
work_in "$WORK"

"$FOVEA" data fashion-scenes --split test --out scenes --count 100 > data.log || { cat data.log; fail "fovea data"; }
"$FOVEA" export scenes --format html --out gallery.html --greedy > export.log || { cat export.log; fail "export FOLDER"; }
grep -q "100 images" export.log || { cat export.log; fail "the export did not say what it wrote"; }
size=$(stat -c %s gallery.html)
echo "gallery of 100 images: $size bytes"
[ "$size" -lt 10000000 ] || fail "the page of 100 images is $size bytes, not under 10 MB"
grep -q -e 'https\?://' -e ' src="[^d]' gallery.html && fail "the page refers to something outside itself"
"$FOVEA" export scenes --format html --out gallery.png > mismatch.log 2>&1 && fail "a folder with --out gallery.png was accepted"
grep -q "is a folder" mismatch.log || { cat mismatch.log; fail "the folder's page format was not named"; }
mkdir -p few empty
cp scenes/test_0000[0-3].png scenes/captions.json few/
"$FOVEA" export empty --format html --out empty.html > empty.log 2>&1 && fail "a folder without images was accepted"
grep -q "no images" empty.log || { cat empty.log; fail "the empty folder was not named"; }
mkdir -p runs/scenes-hard
cp "$HARD" runs/scenes-hard/best.ckpt
"$FOVEA" export few --format html --out compare.html --compare runs/scenes-hard/best.ckpt > compare.log || { cat compare.log; fail "--compare"; }
# A file that is no image is left out and named; the others still get their page, and the command fails.
mkdir -p broken
cp scenes/test_0000[0-1].png broken/
echo "not a picture" > broken/notes.png
"$FOVEA" export broken --format html --out broken.html > broken.log 2> broken.err && fail "a folder with a broken image exported without an error"
grep -q "notes.png" broken.err || { cat broken.err; fail "the broken image was not named"; }
grep -q "2 images" broken.log && grep -q "1 left out" broken.log || { cat broken.log; fail "the page of the readable images was not written"; }
# Markup in a file name or a reference caption ("<!--" then "<script") is text on the page, alone
# and compared: every card and chip is still there (checked in the browser below).
mkdir -p hostile
cp scenes/test_00000.png 'hostile/x<!--<script>.png'
cp scenes/test_00001.png hostile/
printf '[{"file": "x<!--<script>.png", "captions": ["<!-- c", "<script>x"]}, {"file": "test_00001.png", "captions": ["<!-- d", "<script>y"]}]\n' > hostile/captions.json
"$FOVEA" export hostile --format html --out hostile.html > hostile.log || { cat hostile.log; fail "export of a folder with markup in its names"; }
"$FOVEA" export hostile --format html --out hostile-compare.html --compare "$HARD" > hostile-compare.log \
  || { cat hostile-compare.log; fail "--compare of a folder with markup in its names"; }

BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ]; then echo "skipped the browser checks: no chromium"; exit 0; fi
dom() {  # the page's DOM after its script ran; $1 the page, $2 its #fragment, $3 the window's size
  timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$WORK/profile-$RANDOM" \
    --window-size="${3:-1280,900}" --dump-dom "file://$WORK/$1#$2" 2>/dev/null
}
data() { sed -n 's|.*<script type="application/json" id="fovea-data">\(.*\)</script>.*|\1|p' "$1"; }
page=$(dom gallery.html "item=3&word=2")
cards=$(grep -o '<figure class="card"' <<<"$page" | wc -l)
[ "$cards" -eq 100 ] || fail "the page shows $cards cards, not 100"
grep -q 'data-cards="100"' <<<"$page" || fail "the page's script did not finish"
[ "$(grep -o '<li>' <<<"$page" | wc -l)" -ge 100 ] || fail "the reference captions are not on the page"
third=$(grep -o '<figure class="card" data-item="2">.*' <<<"$page" | sed 's|</figure>.*||')
grep -q 'data-word="1" data-ink="[1-9]' <<<"$third" || fail "#item=3&word=2 did not draw the third image's second word: $third"
chips=$(grep -o '<button class="chip[ "]' <<<"$third" | wc -l)
text=$(data gallery.html | jq -r '.items[2].captions[0].text')
[ "$chips" -eq "$(wc -w <<<"$text")" ] || fail "the third image has $chips chips for the caption \"$text\""
said=$(grep -o '<p class="sentence">.*' <<<"$third" | sed 's|</p>.*||; s/<[^>]*>//g')
[ "$said" = "$text" ] || fail "the third card's sentence reads \"$said\", not its caption \"$text\""
grep -q '<span class="current">' <<<"$third" || fail "the sentence does not mark the word shown"
[ "$(grep -o '<button class="play">Play</button>' <<<"$page" | wc -l)" -eq 100 ] || fail "not every card has a Play button"
if data gallery.html | jq -e '[.items[].captions[].gated] | any' > /dev/null; then
  grep -q 'the gate, how much of the image' gallery.html || fail "the page shows beta without saying what it is"
fi
# In a 1400 px wide window the cards fill the width: under a sixth of it stays empty.
unused=$(dom gallery.html "" 1400,900 | sed -n 's/.*data-unused-width="\(-\?[0-9]*\)".*/\1/p')
[ -n "$unused" ] && [ "$unused" -lt 233 ] || fail "the cards leave ${unused:-?} px of a 1400 px window empty"
echo "opened in headless chromium: built $(grep -o 'data-built-ms="[0-9]*"' <<<"$page"), loaded $(grep -o 'data-loaded-ms="[0-9]*"' <<<"$page")"

both=$(dom compare.html "item=1&word=1")
[ "$(grep -o '<figure class="card"' <<<"$both" | wc -l)" -eq 4 ] || fail "the compared page does not show 4 cards"
[ "$(grep -o 'class="who"' <<<"$both" | wc -l)" -eq 8 ] || fail "the compared page does not show two models per card"
grep -q '<div class="who">scenes-hard</div>' <<<"$both" || fail "the run of the second model is not named"
grep -q 'best\.ckpt' <<<"$both" && fail "a run's model is called best.ckpt, not by its run"
# A word chosen in the first caption shows in the second where it says it (its occurrence nearest
# the same place), or is said to be missing there: a case where that is another place than the first's.
read -r item word other < <(data compare.html | jq -r '.items | to_entries[] | .key as $i | .value.captions as $c
  | $c[0].words | to_entries[] | .key as $k | (.value[0] | ascii_downcase) as $w
  | [$c[1].words | to_entries[] | select((.value[0] | ascii_downcase) == $w) | .key] as $js
  | (if ($js | length) == 0 then -1 else ($js | min_by(. - $k | fabs)) end) as $j
  | select($j != $k) | "\($i) \($k) \($j)"' | sort -k3,3nr | head -1)
[ -n "$item" ] || fail "no word of the compared captions to link"
linked=$(dom compare.html "item=$((item + 1))&word=$((word + 1))" | grep -o "<figure class=\"card\" data-item=\"$item\">.*" | sed 's|</figure>.*||')
canvases=$(grep -o 'data-word="-\?[0-9]*"' <<<"$linked" | tr '\n' ' ')
[ "$canvases" = "data-word=\"$word\" data-word=\"$other\" " ] || fail "word $word of image $item's first caption showed as $canvases, not word $other of the second"
if [ "$other" -lt 0 ]; then
  grep -q 'is not in this caption' <<<"$linked" || fail "a word missing from the second caption is not said to be"
fi
for hostile in hostile.html hostile-compare.html; do
  shown=$(dom "$hostile" "")
  [ "$(grep -o '<figure class="card"' <<<"$shown" | wc -l)" -eq 2 ] || fail "$hostile: markup in a name blanked the page's cards"
  words=$(grep -o '"text":"[^"]*"' "$hostile" | sed 's/"text":"//; s/"$//' | wc -w)
  chips=$(grep -o '<button class="chip[ "]' <<<"$shown" | wc -l)
  [ "$chips" -gt 0 ] && [ "$chips" -eq "$words" ] || fail "$hostile: $chips chips for captions of $words words"
  [ "$(grep -o '<li>' <<<"$shown" | wc -l)" -eq 4 ] || fail "$hostile: the reference captions are not all shown"
  grep -q 'x&lt;!--&lt;script&gt;.png' <<<"$shown" || fail "$hostile: the file name is not shown as text"
done
echo "ok: the gallery page shows a folder's captions and attention offline"
