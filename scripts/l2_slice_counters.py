#!/usr/bin/env python3
"""The L2 slice of every line by hardware counters: a ground truth for the slice probe.

Runs scripts/experiments/l2-slice-counters.cu under Nsight Compute (clocks and caches left as
they are) and reads lts__t_requests_srcunit_tex_op_red.{max,sum,avg}: the heaviest slice's count
of reductions, the total, and the total over the slice count. A launch sends weight W to a line y
and distinct weights to other lines, with W above all the others together, so the heaviest slice
is y's and its count less W says which of the others share y's slice.

1. Lines 0 .. A-1 are partitioned exactly: each y against the lines before it, 16 at a time with
   weights 1, 2, 4, .., 2^15 (W = 2^16).
2. One line of each class found is its representative, with weight j + 1; every line of the list
   is sent W = classes + 1 with them: the excess names its class, or none (a slice not yet seen).
3. The lines of no class are partitioned among themselves as in 1.
Each stage is its own process, so the buffer may move between them: stage 2 repeats the lines of
stage 1, and the agreement is printed.

usage: l2_slice_counters.py BIN OUT [A] [LINES...]   (LINES default 0..1023)
Writes OUT/classes.csv (line,class), OUT/summary.txt and the raw ncu CSVs.
"""
import csv
import io
import os
import subprocess
import sys

METRIC = "lts__t_requests_srcunit_tex_op_red"
GROUP = 16


def ncu_run(binary, out, name, plan):
    plan_path = os.path.join(out, name + ".plan")
    with open(plan_path, "w") as f:
        for row in plan:
            f.write(" ".join(f"{line}:{weight}" for line, weight in row) + "\n")
    metrics = ",".join(f"{METRIC}.{s}" for s in ("max", "sum", "avg"))
    cmd = ["ncu", "--clock-control", "none", "--cache-control", "none", "--csv",
           "--metrics", metrics, binary, plan_path]
    text = subprocess.run(cmd, capture_output=True, text=True).stdout
    with open(os.path.join(out, name + ".csv"), "w") as f:
        f.write(text)
    rows = [line for line in text.splitlines() if line.startswith('"')]
    values = {}
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        value = float(row["Metric Value"].replace(",", ""))
        values.setdefault(int(row["ID"]), {})[row["Metric Name"].split(".")[-1]] = value
    return [values[i] for i in sorted(values)]


def find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def partition(binary, out, name, lines):
    """Exact classes of `lines`: each against all before it, GROUP at a time."""
    plan, tests = [], []
    for i, y in enumerate(lines):
        for start in range(0, i, GROUP):
            group = lines[start:min(i, start + GROUP)]
            plan.append([(y, 1 << GROUP)] + [(g, 1 << k) for k, g in enumerate(group)])
            tests.append((y, group))
    results = ncu_run(binary, out, name, plan)
    parent = {y: y for y in lines}
    bad = 0
    for (y, group), value in zip(tests, results):
        excess = int(round(value["max"])) - (1 << GROUP)
        if excess < 0 or excess >= 1 << len(group):
            bad += 1
            continue
        for k, g in enumerate(group):
            if excess >> k & 1:
                parent[find(parent, y)] = find(parent, g)
    classes = {}
    for y in lines:
        classes.setdefault(find(parent, y), []).append(y)
    slices = [v["sum"] / v["avg"] for v in results if v.get("avg")]
    return sorted(classes.values()), bad, slices


def main():
    binary, out = sys.argv[1], sys.argv[2]
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    listed = [int(a) for a in sys.argv[4:]] or list(range(1024))
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(out, "summary.txt"), "w")

    def say(*a):
        print(*a)
        print(*a, file=log, flush=True)

    classes, bad, slices = partition(binary, out, "stage1", list(range(first)))
    say(f"stage 1: lines 0..{first - 1}: {len(classes)} classes, {bad} undecodable launches, "
        f"slice count sum/avg {min(slices, default=0):.2f}-{max(slices, default=0):.2f}")
    reps = [c[0] for c in classes]
    weight = len(reps) + 1
    plan = [[(x, weight)] + [(r, j + 1) for j, r in enumerate(reps)] for x in listed]
    results = ncu_run(binary, out, "stage2", plan)
    label, unseen = {}, []
    for x, value in zip(listed, results):
        excess = int(round(value["max"])) - weight
        if 1 <= excess <= len(reps):
            label[x] = excess - 1
        else:
            unseen.append(x)
    first_label = {y: j for j, c in enumerate(classes) for y in c}
    agree = sum(1 for y in first_label if y in label and label[y] == first_label[y])
    say(f"stage 2: {len(listed)} lines, {len(unseen)} in no class; stage 1's lines agree "
        f"{agree}/{sum(1 for y in first_label if y in label or y in unseen)}")
    if unseen:
        more, bad, _ = partition(binary, out, "stage3", unseen)
        say(f"stage 3: {len(unseen)} lines: {len(more)} new classes, {bad} undecodable")
        for j, c in enumerate(more):
            for y in c:
                label[y] = len(reps) + j
    with open(os.path.join(out, "classes.csv"), "w") as f:
        f.write("line,class\n")
        for x in listed:
            f.write(f"{x},{label.get(x, -1)}\n")
    sizes = {}
    for x in listed:
        sizes[label.get(x, -1)] = sizes.get(label.get(x, -1), 0) + 1
    say(f"classes: {len(sizes)}; sizes {sorted(sizes.values())}")


if __name__ == "__main__":
    main()
