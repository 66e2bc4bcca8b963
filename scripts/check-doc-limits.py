#!/usr/bin/env python3
"""Lists the markdown table cells and lines that are too long to read in the docs.

usage: check-doc-limits.py ROOT [CELL_LIMIT [LINE_LIMIT]]   (defaults 300 and 1200 characters)
Checks ROOT/README.md and every .md file under ROOT/docs but the tool's own outputs kept byte for
byte (docs/results/<gpu>/outputs/). A table cell of CELL_LIMIT characters or more, or a line
outside ``` code blocks longer than LINE_LIMIT, is listed as LENGTH PATH:LINE WHAT; the script
exits 1 when any is found.
"""
import os
import re
import sys

CELL_SEPARATOR = re.compile(r"(?<!\\)\|")


def cells(line):
    text = line.strip()
    if not text.startswith("|"):
        return []
    text = re.sub(r"`[^`]*`", lambda m: m.group(0).replace("|", "x"), text)
    return [c.strip() for c in CELL_SEPARATOR.split(text.strip("|"))]


def problems(path, cell_limit, line_limit):
    found = []
    in_code = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if len(line) > line_limit:
            found.append((len(line), number, "line"))
        for index, cell in enumerate(cells(line), 1):
            if len(cell) >= cell_limit:
                found.append((len(cell), number, f"table cell {index}: {cell[:50]}"))
    return found


def markdown_files(root):
    readme = os.path.join(root, "README.md")
    paths = [readme] if os.path.exists(readme) else []
    for folder, folders, files in os.walk(os.path.join(root, "docs")):
        if os.path.basename(folder) == "outputs":
            folders.clear()
            continue
        paths += [os.path.join(folder, name) for name in sorted(files) if name.endswith(".md")]
    return paths


def main():
    if len(sys.argv) not in (2, 3, 4):
        sys.exit(__doc__)
    root = sys.argv[1]
    cell_limit = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    line_limit = int(sys.argv[3]) if len(sys.argv) > 3 else 1200
    bad = []
    for path in markdown_files(root):
        bad += [(n, path, line, what) for n, line, what in problems(path, cell_limit, line_limit)]
    for n, path, line, what in sorted(bad, key=lambda b: (b[1], b[2])):
        print(f"{n} chars: {os.path.relpath(path, root)}:{line} {what}", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
