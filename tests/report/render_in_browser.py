#!/usr/bin/env python3
"""Renders gputopo's HTML report in a headless browser and checks that every plot drew.

usage: render_in_browser.py GPUTOPO BROWSER WORKDIR [--want=PLOT] [gputopo report arguments...]

--want=PLOT (e.g. slices) also requires the canvas data-plot=PLOT on the page.

Writes WORKDIR/report.html with `gputopo report ARGS -o`, loads it in the browser, and reads the
page's own check from the rendered DOM: <body data-plots=N data-plots-drawn=M>, each canvas with
data-inked (pixels drawn). Fails unless there are plots, every one drew, no script failed, and the
page opens with the overview (cards, the GPU drawn, the latency staircase) before the sweeps.
"""
import os
import re
import subprocess
import sys


def main():
    gputopo, browser, workdir, *args = sys.argv[1:]
    wanted = [a.split("=", 1)[1] for a in args if a.startswith("--want=")]
    args = [a for a in args if not a.startswith("--want=")]
    os.makedirs(workdir, exist_ok=True)
    page = os.path.join(workdir, "report.html")
    subprocess.run([gputopo, "report", *args, "-q", "-o", page], check=True,
                   stdout=subprocess.DEVNULL, timeout=600)
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--user-data-dir=" + os.path.join(workdir, "profile"), "--virtual-time-budget=30000",
         "--dump-dom", "file://" + os.path.abspath(page)],
        check=True, capture_output=True, text=True, timeout=300).stdout
    body = re.search(r"<body([^>]*)>", dom)
    if not body:
        sys.exit("no <body> in the rendered page")
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    plots, drawn = int(attrs.get("data-plots", -1)), int(attrs.get("data-plots-drawn", -1))
    inked = [int(n) for n in re.findall(r'<canvas[^>]*data-inked="(\d+)"', dom)]
    print(f"plots {plots}, drawn {drawn}, pixels per canvas {inked}")
    if plots < 3:
        sys.exit(f"the page's script did not run or found too few plots (data-plots {plots})")
    if drawn != plots or len(inked) != plots:
        sys.exit(f"{plots - drawn} of {plots} plots did not draw")
    for plot in wanted:
        if f'data-plot="{plot}"' not in dom:
            sys.exit(f"no {plot} plot on the page")
    # The page opens with the overview: cards, the GPU drawn, the staircase, then the sweeps.
    order = [dom.find(s) for s in ('id="overview"', 'class="card"', '<svg class="gpu"',
                                   'data-plot="staircase"', 'id="sweeps"')]
    if -1 in order or order != sorted(order):
        sys.exit(f"the overview is missing or out of order: {order}")


if __name__ == "__main__":
    main()
