#!/usr/bin/env python3
"""Register-read models against the bank sweep of chain-shapes.cu.

Usage: register-models.py LISTING OUTPUT
LISTING: cuobjdump -sass of the chain-shapes binary; OUTPUT: what it printed on the GPU.
For each variant K, the 128 FFMAs of its loop body (16 steps of 8 chains), the registers they read
(an operand the instruction before marked .reuse in the same slot is not read again), and the
cycles per FFMA each model predicts:
  ports2   at most two register reads a clock, whatever the registers;
  2bk      two banks by register parity, each one read a clock, pipelined over the stream;
  4bk      four banks by register number modulo 4, likewise.
The measured cycles hold about 0.09 a FFMA of loop overhead (K=0, two registers: 1.09).
"""
import re
import sys

FFMA = re.compile(r"FFMA R(\d+), (R\d+(?:\.reuse)?), (R\d+(?:\.reuse)?), (R\d+(?:\.reuse)?)")


def loop_ffmas(listing, k):
    body = [b for b in listing if b.startswith(f"_Z5bankkILi{k}E")][0]
    return [m.groups()[1:] for m in map(FFMA.search, body.split("\n")) if m][-128:]


def reads(ffmas):
    out, before = [], None
    for sources in ffmas:
        regs = []
        for slot, s in enumerate(sources):
            r = int(s.split(".")[0][1:])
            if before and before[slot] == (r, True):
                continue
            if r not in regs:
                regs.append(r)
        out.append(regs)
        before = [(int(s.split(".")[0][1:]), s.endswith("reuse")) for s in sources]
    return out


def banked(rd, banks):
    load = [0] * banks
    for regs in rd:
        for r in regs:
            load[r % banks] += 1
    return max(max(load) / len(rd), 1.0)


def main(listing_path, output_path):
    listing = open(listing_path, encoding="utf-8").read().split("Function : ")
    measured = {}
    for line in open(output_path, encoding="utf-8"):
        m = re.search(r"K=(\d+)\s+([\d.]+)", line)
        if m:
            measured[int(m.group(1))] = float(m.group(2))
    print(f"{'K':>3} {'measured':>8} {'ports2':>7} {'2bk':>6} {'4bk':>6}")
    for k in sorted(measured):
        rd = reads(loop_ffmas(listing, k))
        ports = sum(max(1.0, len(r) / 2) for r in rd) / len(rd)
        print(f"{k:3} {measured[k]:8.3f} {ports:7.3f} {banked(rd, 2):6.3f} {banked(rd, 4):6.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
