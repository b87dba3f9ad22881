"""Paging throughput: `harness.observation_pages` on large results of tiny items (the shape that was slow: 60,000 small
values took 7.7 s before the page sizes were kept incrementally, `harness._Meter`).

For each shape, the pages of one observation at the default 600-character budget (the `_paged` cache cleared first):
prints one JSON line per shape with the item count, the page count, seconds and microseconds per item.

Run: python benchmarks/bench_paging.py [--items 60000] [--obs-chars 600]
"""
from __future__ import annotations
import argparse, json, time
import compoworld_nb.harness as H

SHAPES = {"ints": lambda n: list(range(n)),
          "tiny records": lambda n: [{"i": i} for i in range(n)],
          "short strings": lambda n: [f"v{i}" for i in range(n)]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=60000)
    ap.add_argument("--obs-chars", type=int, default=600)
    a = ap.parse_args()
    for name, make in SHAPES.items():
        obs = {"ok": True, "data": make(a.items)}
        H._paged.cache_clear()
        t0 = time.perf_counter()
        pages = H.observation_pages(obs, a.obs_chars)
        s = time.perf_counter() - t0
        print(json.dumps({"shape": name, "items": a.items, "obs_chars": a.obs_chars, "pages": len(pages),
                          "seconds": round(s, 3), "us_per_item": round(s / a.items * 1e6, 2)}))


if __name__ == "__main__":
    main()
