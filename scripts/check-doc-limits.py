#!/usr/bin/env python3
"""Lists the markdown table cells and lines that are too long to read in the docs, and the
sentences that tell the docs' history instead of what is.

usage: check-doc-limits.py ROOT [CELL_LIMIT [LINE_LIMIT]]   (defaults 300 and 1200 characters)
Checks ROOT/README.md and every .md file under ROOT/docs but the tool's own outputs kept byte for
byte (docs/results/<gpu>/outputs/). A table cell of CELL_LIMIT characters or more, or a line
outside ``` code blocks longer than LINE_LIMIT, is listed as LENGTH PATH:LINE WHAT.

History is looked for in the prose outside ``` code blocks and `code` spans, a paragraph, list
item or table row at a time (so across line breaks), and listed as history: PATH:LINE RULE:
"used to" + a verb (be, take, read, ...); "previously", "formerly", "originally", "no longer",
"anymore"; a sentence opening "The", "This", "It", "Each", ... that says the subject "now" does
something; a sentence opening "Now"; a sentence opening "Before the ..., " whose clause after the
comma is in the past tense (was, were, took, had, gave, read, ran, ...); a figure credited to an
issue ("issue 10: 3.18", "issue 10's runs"); a table whose cells carry a commit hash or a date in
3 rows or more (a log). The script exits 1 when anything is found.
"""
import os
import re
import sys

CELL_SEPARATOR = re.compile(r"(?<!\\)\|")
SENTENCE = r"(?:^|(?<=[.!?] ))"
HISTORY = [
    ("used to", re.compile(r"\bused to (?:be|take|read|give|run|report|have|hold|show|write)\b")),
    ("a word of history", re.compile(
        r"\b(?:[Pp]reviously|[Ff]ormerly|[Oo]riginally|[Nn]o longer|anymore)\b")),
    ("X now does", re.compile(
        SENTENCE + r"(?:The|This|These|It|Its|They|Each|Every)\b[^.;:!?]{0,60}? now "
        r"(?:also |only |always )?(?!and\b|on\b|that\b|then\b)[a-z]{3,}\b")),
    ("Now", re.compile(SENTENCE + r"Now\b(?! and then)")),
    ("Before the ..., then", re.compile(
        SENTENCE + r"Before the [^.;:!?]*?, [^.;:!?]*?"
        r"\b(?:was|were|took|had|gave|read|ran|outlasted|reached|showed|measured)\b")),
    ("a figure of an issue", re.compile(
        r"\bissue \d+(?:: ?[-\d.]|'s (?:runs?|recordings?|figures?|builds?|times?)\b)")),
]
LIST_MARK = re.compile(r"^(?:[-*]|\d+\.) +")
STAMP = re.compile(r"(?<![-\w])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![-\w])"
                   r"|\b20\d\d-\d\d-\d\d\b")


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


def prose_units(path):
    """Each paragraph, list item, heading and table row outside code blocks as a list of
    (line number, text) pairs, `code` spans blanked."""
    units, lines, in_code = [], [], False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        text = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line.rstrip("\n"))
        if text.lstrip().startswith("```"):
            in_code = not in_code
        starts = (not text.strip() or text.lstrip().startswith(("|", "#", "- ", "* ")) or
                  re.match(r"\s*\d+\. ", text) or in_code or text.lstrip().startswith("```"))
        if starts and lines:
            units.append(lines)
            lines = []
        if text.strip() and not in_code and not text.lstrip().startswith("```"):
            lines.append((number, LIST_MARK.sub("", text.strip(), count=1)))
            if text.lstrip().startswith(("|", "#")):
                units.append(lines)
                lines = []
    if lines:
        units.append(lines)
    return units


def line_of(unit, offset):
    for number, text in unit:
        if offset <= len(text):
            return number
        offset -= len(text) + 1
    return unit[-1][0]


def history(path):
    found, stamped_rows = [], []
    for unit in prose_units(path):
        text = " ".join(t for _, t in unit)
        for rule, pattern in HISTORY:
            for match in pattern.finditer(text):
                found.append((line_of(unit, match.start()), f"{rule}: {match.group(0)[:60]}"))
        row = unit[0][1]
        if not row.startswith("|"):
            stamped_rows = []
        elif any(STAMP.search(c) for c in cells(row)):
            stamped_rows.append(unit[0][0])
            if len(stamped_rows) == 3:
                found.append((stamped_rows[0], "a log: a table with a commit or a date in 3 rows"))
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
    told = [(path, line, what) for path in markdown_files(root)
            for line, what in sorted(history(path))]
    for path, line, what in told:
        print(f"history: {os.path.relpath(path, root)}:{line} {what}", flush=True)
    sys.exit(1 if bad or told else 0)


if __name__ == "__main__":
    main()
