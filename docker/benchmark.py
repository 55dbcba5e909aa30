"""Docker backend speed, side by side with its baseline, per image.

    .venv/bin/python docker/benchmark.py [TARGET ...] [--pairs 3] [--resets 5]

- pair ready: DockerBackend.start_pair() with the template data dir cached (what every run after the first
  pays) against the baseline of a cold cache (data dir initialised inside the image first, as a backend
  without templates would do every time); prints both and the ratio.
- reset: Pair.reset() against the baseline of closing the pair and starting a new one.
- image build: `harness.images.build_image` on a current image (the cache check a run pays).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness import images  # noqa: E402
from harness.backends import docker as backend  # noqa: E402


def timed_pair(target: str) -> tuple[float, float]:
    """(seconds to a ready pair, seconds to close it)."""
    t = time.monotonic()
    pair = backend.DockerBackend(target).start_pair({})
    ready = time.monotonic() - t
    t = time.monotonic()
    pair.close()
    return ready, time.monotonic() - t


def cold_pair(target: str) -> float:
    """A pair started with an empty template cache (the data dir is initialised first)."""
    with tempfile.TemporaryDirectory(prefix="rplay-bench-cache-") as cache:
        old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = cache
        try:
            return timed_pair(target)[0]
        finally:
            if old is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = old


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="*", default=["mysql-9.7", "mariadb-11.8", "mariadb-10.11"])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--resets", type=int, default=5)
    args = ap.parse_args()
    defs = images.load_definitions()
    print(f"{'target':<14} {'measure':<22} {'rplay':>9} {'baseline':>9} {'ratio':>7}")
    for target in args.targets:
        t = time.monotonic()
        images.build_image(defs.get(target), defs=defs)
        cached_build = time.monotonic() - t
        print(f"{target:<14} {'image build (cached)':<22} {cached_build:8.2f}s {'-':>9} {'-':>7}")
        backend.DockerBackend(target).info  # noqa: B018 - probe once, outside the timings
        timed_pair(target)  # warm the template cache
        warm = [timed_pair(target) for _ in range(args.pairs)]
        cold = [cold_pair(target) for _ in range(args.pairs)]
        w = statistics.median(r for r, _ in warm)
        c = statistics.median(cold)
        print(f"{target:<14} {'pair ready':<22} {w:8.2f}s {c:8.2f}s {c / w:6.1f}x")
        print(f"{target:<14} {'pair close':<22} {statistics.median(x for _, x in warm):8.2f}s")
        pair = backend.DockerBackend(target).start_pair({})
        try:
            resets = []
            for _ in range(args.resets):
                t = time.monotonic()
                pair.reset()
                resets.append(time.monotonic() - t)
        finally:
            pair.close()
        r = statistics.median(resets)
        restart = w + statistics.median(x for _, x in warm)
        print(f"{target:<14} {'reset vs restart':<22} {r:8.2f}s {restart:8.2f}s {restart / r:6.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
