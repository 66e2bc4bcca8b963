#!/usr/bin/env python3
"""Generates tests/data/analysis/ks_vectors.json: reference values from scipy for the K-S tests.

Run once (needs numpy and scipy); CI only reads the committed JSON:
    python3 tests/tools/make_ks_vectors.py tests/data/analysis/ks_vectors.json
"""
import json
import sys

import numpy as np
import scipy
from scipy import stats


def latencies(rng, n, levels, weights, jitter):
    """Integer cycle counts: a mixture of latency levels with multiplicative jitter."""
    which = rng.choice(len(levels), size=n, p=weights)
    base = np.asarray(levels, dtype=float)[which]
    return np.round(base * (1 + jitter * rng.standard_normal(n))).astype(int)


def main(path):
    rng = np.random.default_rng(20261121)
    cases = []

    def add(name, a, b):
        a = [float(v) for v in a]
        b = [float(v) for v in b]
        r = stats.ks_2samp(a, b, alternative="two-sided", method="auto")
        cases.append({"name": name, "a": a, "b": b, "d": float(r.statistic),
                      "p": float(r.pvalue)})

    # Small samples, continuous values: exact distribution, equal and unequal sizes.
    for n1, n2 in [(5, 5), (8, 13), (20, 20), (30, 17), (3, 40), (100, 100), (64, 200)]:
        add(f"normal_{n1}_{n2}", rng.normal(0, 1, n1), rng.normal(0.4, 1, n2))
    # Identical samples and complete separation.
    add("identical_50", np.arange(50), np.arange(50))
    add("separated_12_9", np.arange(12), np.arange(100, 109))
    # Latency-like samples with many ties (integer cycles), sizes as the probes use.
    for n1, n2, mix in [(256, 256, 0.05), (512, 384, 0.2), (2048, 2048, 0.01), (2048, 2048, 0.0),
                        (2048, 1000, 0.1), (1024, 2048, 0.5)]:
        a = latencies(rng, n1, [35, 300], [1.0, 0.0], 0.02)
        b = latencies(rng, n2, [35, 300], [1 - mix, mix], 0.02)
        add(f"latency_{n1}_{n2}_{mix}", a, b)
    # Large samples: scipy switches to the asymptotic distribution (max(n1, n2) > 10000).
    for n1, n2, shift in [(12000, 11000, 0.03), (10001, 10001, 0.0), (20000, 60, 0.3),
                          (15000, 5, 0.5), (12000, 400, 0.1)]:
        add(f"asymp_{n1}_{n2}_{shift}", latencies(rng, n1, [300], [1.0], 0.05),
            latencies(rng, n2, [300 * (1 + shift / 10)], [1.0], 0.05))

    # The one-sample Kolmogorov distribution behind the asymptotic p-value, over all regimes.
    kolmogorov = []
    for n in [1, 2, 3, 5, 10, 50, 140, 141, 500, 2000, 5000, 20000, 100000, 200000]:
        for x in [0.0005, 0.002, 0.01, 0.03, 0.06, 0.1, 0.2, 0.35, 0.5, 0.7, 0.95]:
            kolmogorov.append({"n": n, "x": x, "sf": float(stats.kstwo.sf(x, n))})

    with open(path, "w") as f:
        json.dump({"generator": "tests/tools/make_ks_vectors.py", "scipy": scipy.__version__,
                   "ks_2samp": cases, "kstwo_sf": kolmogorov}, f, separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/analysis/ks_vectors.json")
