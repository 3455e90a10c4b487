#!/usr/bin/env python3
"""`fovea bench --case caption_end_to_end` through the Python module: the same call (a file
decoded, encoded and captioned with beam 3 by one model), timed the same way (warm-up runs for at
least half a second, then the median of `--repeat` runs), printed as the same JSON line with
"via": "python". Compare the two medians to see what the module adds (docs/performance.md).

    PYTHONPATH=build/python python3 tools/python_caption_bench.py --threads 1
    build/app/fovea bench --case caption_end_to_end --threads 1
"""
import argparse
import json
import statistics
import time

import fovea


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="CPU threads (as fovea bench --threads; default 1)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs (default 5)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed runs first, and at least half a second of them")
    ap.add_argument("--model", default=None, help="model file (default: $FOVEA_MODEL or the shipped soft model)")
    ap.add_argument("--image", default=None, help="image file (default: the first sample scene)")
    a = ap.parse_args()
    fovea.set_threads(a.threads)
    model = fovea.load(a.model)
    image = a.image or fovea.samples_dir() + "/test_00000.png"
    start = time.perf_counter()
    i = 0
    while i < a.warmup or (a.warmup > 0 and time.perf_counter() - start < 0.5):
        model.caption(image, beam=3)
        i += 1
    times = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        model.caption(image, beam=3)
        times.append(time.perf_counter() - t)
    print(json.dumps({"case": "caption_end_to_end", "via": "python",
                      "config": {"model": model.path, "image": image, "beam": 3},
                      "threads": a.threads, "device": "cpu", "median_s": statistics.median(times),
                      "min_s": min(times), "max_s": max(times), "runs": len(times)}))


if __name__ == "__main__":
    main()
