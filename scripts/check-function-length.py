#!/usr/bin/env python3
"""Lists the function bodies longer than a limit in C++ and CUDA sources (clang-formatted).

usage: check-function-length.py DIR [LIMIT]   (LIMIT default 80 lines, signature to closing brace)
Exits 1 when any function is longer, after listing each as LINES PATH:LINE SIGNATURE.
A definition is a line ending in ") {" (or ") const {", "override {" ...) that is not a control
statement or a lambda; its first line is where the signature starts, its last the brace that
closes it. Strings and // comments are blanked before braces are counted.
"""
import os
import re
import sys

DEFINITION = re.compile(r"\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(->\s*[\w:<>, ]+\s*)?\{$")
NOT_A_FUNCTION = re.compile(r"^\s*(\}\s*)?(if|for|while|switch|else|do|catch)\b|^\s*\[|\]\s*\(|=\s*\[")
EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh")


def code_only(line):
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def signature_start(lines, i):
    k = i
    while k > 0:
        before = lines[k - 1].rstrip()
        if not before.strip() or before.endswith((";", "{", "}", ":")) or before.lstrip().startswith("#"):
            break
        k -= 1
    return k


def long_functions(path, limit):
    lines = [code_only(x) for x in open(path, encoding="utf-8").read().split("\n")]
    found = []
    i = 0
    while i < len(lines):
        text = lines[i].rstrip()
        if DEFINITION.search(text) and not NOT_A_FUNCTION.search(text):
            start = signature_start(lines, i)
            if NOT_A_FUNCTION.search(lines[start]) or "=" in lines[start].split("(")[0]:
                i += 1
                continue
            depth, end = 0, i
            while end < len(lines):
                depth += lines[end].count("{") - lines[end].count("}")
                if depth <= 0:
                    break
                end += 1
            if end - start + 1 > limit:
                found.append((end - start + 1, start + 1, lines[start].strip()))
            i = end
        i += 1
    return found


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    root, limit = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 80
    bad = []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(EXTENSIONS):
                path = os.path.join(folder, name)
                bad += [(n, path, line, sig) for n, line, sig in long_functions(path, limit)]
    for n, path, line, sig in sorted(bad, reverse=True):
        print(f"{n} lines: {path}:{line} {sig[:70]}", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
