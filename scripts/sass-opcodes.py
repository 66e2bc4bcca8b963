#!/usr/bin/env python3
"""Opcode counts of gputopo's compute kernels, from a SASS listing (cuobjdump -sass or nvdisasm).

Usage: sass-opcodes.py LISTING > OPCODES

One line per compute kernel: "compute_kernel op N ilp K: OPCODE=COUNT ...", opcodes sorted. N is
the device::ComputeOp value, K the chains per thread. "straight_kernel op N ilp 1" is the op's
loop-free kernel of one chain per thread. The wgmma ops run in a kernel of their own, listed as
"wgmma_kernel op N ilp 1" in place of the generic kernel's placeholders for those ops.
tests/compute/sass_test.cpp reads the result (docs/compute.md, "Evidence").
"""
import collections
import re
import sys

KERNEL = re.compile(r"(compute_kernel|straight_kernel)ILN\w*?ComputeOpE(\d+)E(?:Li(\d+)E)?")
WGMMA_KERNEL = re.compile(r"wgmma_kernelILN\w*?ComputeOpE(\d+)E")
FUNCTION = re.compile(r"(?:Function : |^\s*\.text\.)(\S+?):?\s*$")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:\{\s*)?(?:@!?U?P\w+\s+)?([A-Z][A-Za-z0-9_.]*)")


def main(path):
    kernels = {}
    current = None
    with open(path, encoding="utf-8", errors="replace") as listing:
        for line in listing:
            function = FUNCTION.search(line)
            if function:
                match = KERNEL.search(function.group(1))
                current = None
                if match:
                    current = (int(match.group(2)), int(match.group(3) or 1), match.group(1))
                wgmma = WGMMA_KERNEL.search(function.group(1))
                if wgmma:
                    current = (int(wgmma.group(1)), 1, "wgmma_kernel")
                if current:
                    kernels.setdefault(current, collections.Counter())
                continue
            instruction = INSTRUCTION.search(line)
            if instruction and current:
                kernels[current][instruction.group(1)] += 1
    if not kernels:
        sys.exit(f"{path}: no compute kernels found (is it a SASS listing of gputopo?)")
    # The generic kernel's placeholders of the ops that run in the wgmma kernel, never launched.
    wgmma_ops = {op for (op, _, name) in kernels if name == "wgmma_kernel"}
    kernels = {k: v for k, v in kernels.items() if k[2] == "wgmma_kernel" or k[0] not in wgmma_ops}
    print("# gputopo compute kernels: SASS opcode counts (scripts/sass-opcodes.py)")
    for (op, ilp, name), counts in sorted(kernels.items()):
        body = " ".join(f"{opcode}={counts[opcode]}" for opcode in sorted(counts))
        print(f"{name} op {op} ilp {ilp}: {body}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
