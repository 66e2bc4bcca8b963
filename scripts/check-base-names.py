#!/usr/bin/env python3
"""Fails when two source files under src/ in different folders share a base name (options.hpp in
discovery/ and options.cpp in cli/): a name says one thing in the whole tree. A header and its
source in one folder are one file. Usage: check-base-names.py [SRC_DIR]"""
import collections
import pathlib
import sys

SOURCE = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".c"}


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src")
    folders = collections.defaultdict(set)
    for f in root.rglob("*"):
        if f.suffix in SOURCE and f.is_file():
            folders[f.stem].add(f.parent.relative_to(root).as_posix())
    clashes = {stem: sorted(dirs) for stem, dirs in folders.items() if len(dirs) > 1}
    for stem, dirs in sorted(clashes.items()):
        print(f"{stem}: " + ", ".join(f"{d}/{stem}" for d in dirs))
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main())
