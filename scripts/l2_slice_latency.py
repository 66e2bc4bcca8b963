#!/usr/bin/env python3
"""L2 latency classes from every SM's latency to many lines (scripts/experiments/sm-slice-latency.cu).

usage: scripts/l2_slice_latency.py TABLE.csv[.gz] [--consecutive N] [--map FILE.csv]

Reads `sm,line,offset,min,median` rows (cycles per load). The first N lines (default: every line
whose offset is line * 128) are consecutive 128 B lines; the lines after them lie at 128 B x 2^k,
so the lines at 128 B x 2^k below N * 128 B are measured twice, far apart in time: the same-line
repeats that set the noise floor. Prints:

1. noise: median - min of a cell's repeats, and each repeated line's RMS difference from itself
   over the SMs (after each line's mean over the SMs is removed);
2. classes: Ward clustering of the lines' SM profiles; the count is the largest k whose closest two
   class centroids differ by more (RMS over the SMs) than the median same-line repeat does, and
   whose k+1 split does not (k is not chosen: it follows from the repeats);
3. the address bits that never change a line's class, and for every other bit whether flipping it
   maps classes to classes (what an XOR hash requires); the two-way split with the most variance
   (the near/far L2 segment) solved over GF(2): its best affine mask, the lines it misses, and its
   algebraic normal form (the exact polynomial over GF(2) of the line-index bits);
4. the per-SM x per-class latency map (mean over the class's lines, 95 % interval), its range, and
   how much of it an additive SM + class model explains (R^2).
"""
import argparse
import csv
import gzip
import itertools
import sys

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.stats import t as student_t


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = [r for r in csv.DictReader(f)]
    sms = sorted({int(r["sm"]) for r in rows})
    lines = sorted({int(r["line"]) for r in rows})
    smi = {s: i for i, s in enumerate(sms)}
    med = np.full((len(sms), len(lines)), np.nan)
    low = np.full_like(med, np.nan)
    offsets = np.zeros(len(lines), dtype=np.int64)
    for r in rows:
        i, l = smi[int(r["sm"])], int(r["line"])
        med[i, l] = float(r["median"])
        low[i, l] = float(r["min"])
        offsets[l] = int(r["offset"])
    return np.array(sms), offsets, low, med


def centred(m):
    return m - m.mean(axis=0, keepdims=True)


def noise(offsets, low, med, n):
    c = centred(med)
    pairs = []
    for j in range(n, len(offsets)):
        if offsets[j] % 128 == 0 and offsets[j] // 128 < n:
            i = offsets[j] // 128
            pairs.append((i, j, float(np.sqrt(np.mean((c[:, i] - c[:, j]) ** 2)))))
    spread = (med - low)[:, :n].ravel()
    print("# Noise")
    print(f"median - min of a cell's repeats: median {np.median(spread):.2f}, "
          f"90th percentile {np.percentile(spread, 90):.2f} cycles")
    for i, j, r in pairs:
        print(f"line {i} measured again as line {j}: RMS difference over the SMs {r:.2f} cycles")
    return float(np.median([r for _, _, r in pairs])) if pairs else float("nan"), pairs


def centroid_gap(x, lab, k):
    cen = np.array([x[:, lab == c].mean(axis=1) for c in range(k)])
    d = np.sqrt(((cen[:, None, :] - cen[None, :, :]) ** 2).mean(axis=2))
    return float(d[np.triu_indices(k, 1)].min())


def classes(x, floor, kmax=64):
    tree = linkage(x.T, "ward")
    print("\n# Classes (Ward clustering of the lines' SM profiles)")
    best, gaps = 1, {}
    for k in range(2, kmax + 1):
        lab = fcluster(tree, k, "maxclust") - 1
        gaps[k] = centroid_gap(x, lab, k)
        sizes = sorted(np.bincount(lab).tolist(), reverse=True)
        if k <= 20:
            print(f"k {k:2d}: closest centroids {gaps[k]:.2f} cycles apart; sizes {sizes}")
        if gaps[k] > floor and best == k - 1:
            best = k
    print(f"count: {best} (the largest k with every centroid pair over the median same-line "
          f"repeat, {floor:.2f} cycles, when all smaller k are; k {best + 1} gives "
          f"{gaps.get(best + 1, float('nan')):.2f})")
    if best == kmax:
        print(f"the count reached the {kmax} classes looked at: not a count")
    return fcluster(tree, best, "maxclust") - 1, best


def flips(lab, n):
    bits = int(np.log2(n))
    idx = np.arange(n)
    print("\n# Address bits (line-index bit b = address bit b + 7)")
    keep, mapped = [], []
    for b in range(bits):
        other = lab[idx ^ (1 << b)]
        if np.all(other == lab):
            keep.append(b)
            continue
        # An XOR hash moves every line of one class to one class under a flip.
        agree = 0
        for c in np.unique(lab):
            agree += np.bincount(other[lab == c]).max()
        mapped.append((b, agree / n))
    print("bits that never change the class:", [b + 7 for b in keep])
    for b, frac in mapped:
        print(f"address bit {b + 7}: flipping it maps class to class for {frac:.1%} of lines")
    return keep


def anf(y, bits):
    n = len(bits)
    table = np.array([y[sum(((i >> j) & 1) << bits[j] for j in range(n))] for i in range(1 << n)],
                     dtype=np.uint8)
    for j in range(n):
        for i in range(1 << n):
            if i >> j & 1:
                table[i] ^= table[i ^ (1 << j)]
    terms = []
    for i in range(1 << n):
        if table[i]:
            terms.append("*".join(f"a{bits[j] + 7}" for j in range(n) if i >> j & 1) or "1")
    return " ^ ".join(terms)


def segment(x, n, keep):
    u, s, vt = np.linalg.svd(x - x.mean(axis=1, keepdims=True), full_matrices=False)
    seg = (vt[0] > 0).astype(np.uint8)
    bits = int(np.log2(n))
    idx = np.arange(n)
    cols = np.array([(idx >> b) & 1 for b in range(bits)], dtype=np.uint8)
    best = (n, 0)
    for mask in range(1, 1 << bits):
        par = cols[[b for b in range(bits) if mask >> b & 1]].sum(axis=0) % 2
        miss = int(min((par != seg).sum(), (par == seg).sum()))
        best = min(best, (miss, mask))
    free = [b for b in range(bits) if b not in keep]
    print("\n# Near/far split (first singular vector of the centred profiles)")
    print(f"singular values over the first: {np.round(s[:6] / s[0], 3).tolist()}; "
          f"sizes {np.bincount(seg).tolist()}")
    print(f"best XOR mask: address bits {[b + 7 for b in range(bits) if best[1] >> b & 1]}, "
          f"misses {best[0]} of {n} lines")
    print(f"exact form over GF(2) (a = address bit): {anf(seg, free)}")
    return seg


def latency_map(x_abs, sms, lab, k, out):
    rows = []
    means = np.zeros((len(sms), k))
    for c in range(k):
        v = x_abs[:, lab == c]
        m, sd, cnt = v.mean(axis=1), v.std(axis=1, ddof=1), v.shape[1]
        half = student_t.ppf(0.975, cnt - 1) * sd / np.sqrt(cnt)
        means[:, c] = m
        rows += [(int(s), c, cnt, m[i], m[i] - half[i], m[i] + half[i]) for i, s in enumerate(sms)]
    add = means.mean(axis=1, keepdims=True) + means.mean(axis=0, keepdims=True) - means.mean()
    r2 = 1 - ((means - add) ** 2).sum() / ((means - means.mean()) ** 2).sum()
    widths = [r[5] - r[4] for r in rows]
    print("\n# Per-SM x per-class latency (cycles per load, mean over the class's lines)")
    print(f"{len(sms)} SMs x {k} classes: {means.min():.1f} to {means.max():.1f}; 95 % interval "
          f"widths median {np.median(widths):.2f}, max {max(widths):.2f}")
    order = np.argsort(means.mean(axis=0))
    for c in order:
        col = means[:, c]
        print(f"class {c:2d} ({int((lab == c).sum())} lines): mean {col.mean():.1f}, SMs "
              f"{col.min():.1f}-{col.max():.1f}, nearest SM {sms[col.argmin()]}, "
              f"farthest {sms[col.argmax()]}")
    print(f"additive SM + class model: R^2 {r2:.3f}; residual RMS "
          f"{np.sqrt(((means - add) ** 2).mean()):.2f} cycles")
    sv = np.linalg.svd(means - add, compute_uv=False)
    total = ((means - means.mean()) ** 2).sum()
    for r in (1, 2, 3):
        print(f"additive + {r} SM x class product term(s): R^2 "
              f"{1 - (sv[r:] ** 2).sum() / total:.3f}")
    if out:
        with open(out, "w") as f:
            f.write("sm,class,lines,mean,low95,high95\n")
            for r in rows:
                f.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.2f},{r[4]:.2f},{r[5]:.2f}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--consecutive", type=int, default=0)
    ap.add_argument("--map", default="")
    a = ap.parse_args()
    sms, offsets, low, med = load(a.table)
    n = a.consecutive
    if n == 0:
        n = next((i for i, o in enumerate(offsets) if o != i * 128), len(offsets))
    n = 1 << int(np.log2(n))
    print(f"{len(sms)} SMs, {len(offsets)} lines, {n} consecutive")
    floor, _ = noise(offsets, low, med, n)
    x = centred(med)[:, :n]
    lab, k = classes(x, floor)
    keep = flips(lab, n)
    segment(x, n, keep)
    latency_map(med[:, :n], sms, lab, k, a.map)


if __name__ == "__main__":
    sys.exit(main())
