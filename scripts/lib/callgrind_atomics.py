#!/usr/bin/python3
"""Executed lock-prefixed (atomic read-modify-write) x86 instructions in a callgrind profile
taken with --dump-instr=yes, for one object (a non-PIE executable, so callgrind's addresses are
objdump's). Usage: callgrind_atomics.py PROFILE.out EXECUTABLE; prints the count, then each
executed atomic instruction with its count on stderr."""

import re
import subprocess
import sys


def lock_addresses(executable):
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", executable],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = {}
    function = "?"
    for line in listing.splitlines():
        header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if header:
            function = header.group(1)
        hit = re.match(r"^\s*([0-9a-f]+):\s+(lock\s.*|xchg\s+\S*\(.*)$", line)
        if hit:  # xchg with a memory operand is atomic without the prefix
            found[int(hit.group(1), 16)] = f"{function}: {hit.group(2).strip()}"
    return found


def executed(profile, executable):
    """instruction address -> Ir, for cost lines of `executable` (self cost, calls skipped)."""
    counts, objects, current, last, skip = {}, {}, None, 0, False
    for line in open(profile):
        line = line.rstrip("\n")
        m = re.match(r"^(c?)ob=\((\d+)\)(?: (.*))?$", line)
        if m:  # a name is given once, on an ob= or a cob= line, then only its number
            if m.group(3):
                objects[m.group(2)] = m.group(3)
            if not m.group(1):
                current = objects.get(m.group(2))
            continue
        if line.startswith("calls="):
            skip = True  # the next cost line is the call's inclusive cost
            continue
        m = re.match(r"^(0x[0-9a-f]+|[+-]\d+|\*)\s+\S+\s+(\d+)", line)
        if not m:
            continue
        token = m.group(1)
        address = (
            int(token, 16)
            if token.startswith("0x")
            else last if token == "*" else last + int(token)
        )
        last = address
        if skip:
            skip = False
            continue
        if current and current.endswith(executable.split("/")[-1]):
            counts[address] = counts.get(address, 0) + int(m.group(2))
    return counts


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    locks = lock_addresses(sys.argv[2])
    total = 0
    for address, count in sorted(executed(sys.argv[1], sys.argv[2]).items()):
        if address in locks:
            total += count
            print(f"{count:8d}  {locks[address]}", file=sys.stderr)
    print(total)


if __name__ == "__main__":
    main()
