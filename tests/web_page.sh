#!/usr/bin/env bash
# `fovea export IMAGE --out page.html`: one self-contained page (nothing fetched), which a browser
# shows offline, drawing the word a link names (#word=N) and another word's alpha differently.
# The browser part runs where Chromium is installed (packaging/install-deps.sh installs it).
# Usage: web_page.sh FOVEA SAMPLE_IMAGE WORK_DIR
set -euo pipefail
. "$(dirname "$0")/lib/prologue.sh"
SAMPLE="$(realpath "$2")"
work_in "$WORK"

"$FOVEA" export "$SAMPLE" --format html --out page.html > export.log || { cat export.log; fail "export --format html"; }
[ -s page.html ] || fail "no page written"
grep -q -e 'https\?://' -e ' src="[^d]' page.html && fail "the page refers to something outside itself"
grep -q '<li>' page.html || fail "the sample's reference captions are not on the page"
"$FOVEA" export "$SAMPLE" --format html --out page.png > mismatch.log 2>&1 && fail "--format html with --out page.png was accepted"
grep -q "disagree" mismatch.log || { cat mismatch.log; fail "the mismatch was not named"; }
# Markup in the file name and the reference captions ("<!--" then "<script") is text on the page.
mkdir -p hostile
cp "$SAMPLE" 'hostile/x<!--<script>.png'
printf '[{"file": "x<!--<script>.png", "captions": ["<!-- c", "<script>x"]}]\n' > hostile/captions.json
"$FOVEA" export 'hostile/x<!--<script>.png' --format html --out hostile.html > hostile.log || { cat hostile.log; fail "export of an image with markup in its name"; }

BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ]; then echo "skipped the browser checks: no chromium"; exit 0; fi
dom() {  # the page's DOM after its script ran, opened at word $1
  timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$WORK/profile-$1" \
    --virtual-time-budget=5000 --dump-dom "file://$WORK/page.html#word=$1" 2>/dev/null
}
canvas() { grep -o '<canvas[^>]*>' <<<"$1"; }
first=$(canvas "$(dom 1)")
fourth=$(canvas "$(dom 4)")
grep -q 'data-word="0"' <<<"$first" || fail "the page did not draw its first word: $first"
grep -q 'data-word="3"' <<<"$fourth" || fail "#word=4 did not show the fourth word: $fourth"
ink1=$(grep -o 'data-ink="[0-9]*"' <<<"$first")
ink4=$(grep -o 'data-ink="[0-9]*"' <<<"$fourth")
[ -n "$ink1" ] && [ "$ink1" != "$ink4" ] || fail "two words' attention drew the same picture ($ink1, $ink4)"
shown=$(timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$WORK/profile-hostile" \
  --virtual-time-budget=5000 --dump-dom "file://$WORK/hostile.html" 2>/dev/null)
words=$(grep -o '"word":"[^"]*"' hostile.html | wc -l)
chips=$(grep -o '<div id="fovea-chips" class="chips">.*' <<<"$shown" | sed 's|</div>.*||' | grep -o '<button' | wc -l)
[ "$chips" -gt 0 ] && [ "$chips" -eq "$words" ] || fail "the page of an image with markup in its name shows $chips chips for $words words"
[ "$(grep -o '<li>' <<<"$shown" | wc -l)" -eq 2 ] || fail "the reference captions with markup are not both shown"
grep -q 'data-word="0"' <<<"$(canvas "$shown")" || fail "the page of an image with markup in its name drew nothing"
echo "ok: the page draws each word's attention offline"
