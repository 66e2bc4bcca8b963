#!/usr/bin/env python3
"""Fails when a file under src/report reads an attribute's `evidence`: `["evidence"]`,
`at("evidence")`, `contains("evidence")`, `value("evidence", ...)`, `find("evidence")` or a member
`.evidence`, outside comments. Writers read the typed model (model/topology.hpp, attribute.hpp,
report.hpp); the evidence is written as it is and read by nobody. Usage:
check-report-reads-no-evidence.py [REPORT_DIR]"""
import pathlib
import re
import sys

READ = re.compile(
    r'\[\s*"evidence"\s*\]'
    r'|\b(?:at|contains|value|find|count)\s*\(\s*"evidence"'
    r"|(?:\.|->)\s*evidence\b"
)
COMMENT = re.compile(r"//.*$")


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src/report")
    found = 0
    for f in sorted(root.rglob("*")):
        if not f.is_file() or f.suffix not in {".cpp", ".hpp", ".js"}:
            continue
        for number, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if READ.search(COMMENT.sub("", line)):
                print(f"{f}:{number}: reads evidence: {line.strip()}")
                found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
