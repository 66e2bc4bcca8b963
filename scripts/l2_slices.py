#!/usr/bin/env python3
"""Reads l2-slice-contention output: is the two-line contention signal there, the slice classes,
and whether they are a linear XOR hash of the line-index bits.

usage: scripts/l2_slices.py slices.csv[.gz]
Prints the spread of the one-line times, a histogram of the pair ratios (pair time / one-line
time: near 1 where both lines share a slice, near 0.5 where they do not, if the slices bound the
rate), the class count and sizes, and, for a power-of-two line count, whether the class of line 0
is a subspace over GF(2) whose cosets are the other classes; if so, the hash's output masks over
address bits (line-index bit i is address bit i + 7 for 128 B lines).
"""
import csv
import gzip
import statistics as st
import sys
from collections import Counter


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    one, pairs, cls = [], [], {}
    for row in csv.reader(opener(path, "rt")):
        if row[0] == "one":
            one.append(float(row[3]))
        elif row[0] == "pair":
            pairs.append(float(row[4]))
        elif row[0] == "class":
            cls[int(row[1])] = int(row[2])
    return one, pairs, cls


def reduce_basis(vectors):
    basis = []  # (pivot bit, vector), each pivot cleared in the others
    for v in vectors:
        for pivot, b in basis:
            if v >> pivot & 1:
                v ^= b
        if v:
            pivot = v.bit_length() - 1
            basis = [(p, b ^ v if b >> pivot & 1 else b) for p, b in basis]
            basis.append((pivot, v))
    return basis


def in_span(basis, v):
    for pivot, b in basis:
        if v >> pivot & 1:
            v ^= b
    return v == 0


def linear_hash(cls, bits):
    kernel = [line for line in range(1 << bits) if cls[line] == cls[0]]
    basis = reduce_basis(kernel)
    if len(kernel) != 1 << len(basis):
        return None
    first = {}
    for line in range(1 << bits):  # a class is a coset: every member differs from the first
        rep = first.setdefault(cls[line], line)  # by a kernel vector, and classes do not merge
        if not in_span(basis, line ^ rep):
            return None
    if len(first) != 1 << bits >> len(basis):
        return None
    # masks m with parity(m & k) = 0 for every kernel vector k: the orthogonal complement
    complement = [m for m in range(1, 1 << bits)
                  if all(bin(m & k).count("1") % 2 == 0 for _, k in basis)]
    return [m << 7 for _, m in sorted(reduce_basis(complement), reverse=True)]


def main():
    one, pairs, cls = read(sys.argv[1])
    print(f"one-line times: {len(one)}, median {st.median(one):.1f} us, "
          f"{min(one):.1f} to {max(one):.1f}")
    hist = Counter(min(int(r / 0.05), 30) for r in pairs)
    print("pair ratio histogram (bin: count):")
    for b in sorted(hist):
        print(f"  {b * 0.05:4.2f}-{b * 0.05 + 0.05:4.2f}: {hist[b]}")
    if not cls:
        print("no classes: the run stopped (more than 256 classes: every pair read apart)")
        return
    sizes = Counter(cls.values())
    print(f"classes: {len(sizes)} over {len(cls)} lines; sizes {sorted(Counter(sizes.values()).items())}"
          " (size: how many classes)")
    bits = len(cls).bit_length() - 1
    if len(cls) != 1 << bits or len(sizes) < 2:
        return
    masks = linear_hash(cls, bits)
    if masks is None:
        print("hash: not linear in line-index bits (the class of line 0 is no subspace or the "
              "classes are not its cosets)")
    else:
        print(f"hash: linear, {len(masks)} output bits; masks over address bits: "
              + " ".join(hex(m) for m in masks))


if __name__ == "__main__":
    main()
