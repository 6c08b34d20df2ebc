"""The documents against the tree, so that they cannot drift apart unnoticed:
- every script in scripts/ is a row of scripts/README.md's table, every folder under tests/ one of
  tests/README.md's, every runtime folder under workloads/runtimes/ one of its README's, every
  top-level folder one of the top README's tour; and each row's first name exists;
- every public header is a row of ref/README.md's header table, and arenaref.h includes every
  one but the CUDA headers (what that README says of it);
- `arenacert --help` lists every command ref/tools/commands.h registers (its ARENACERT_COMMANDS
  table, read from the header), and every arenacert_*_main defined in the tree is registered.
A table's rows are named by the backquoted names in their first cell (`tflite-plan MODEL …`
names tflite-plan, `cert/test_*.c` the folder cert/). Each failure says what is missing where.
Usage: check_docs.py ROOT ARENACERT   (Debian's python3, standard library)"""

import glob
import os
import re
import subprocess
import sys

IGNORED = {"__pycache__"}


def entries(folder, dirs):
    """The names in FOLDER (its folders if DIRS, else its files), but hidden and cache ones."""
    out = []
    for name in sorted(os.listdir(folder)):
        if name.startswith(".") or name in IGNORED or name == "README.md":
            continue
        if os.path.isdir(os.path.join(folder, name)) == dirs:
            out.append(name)
    return out


def first_cells(readme, header):
    """Per row of README's tables whose first column is HEADER: the row's line and the
    backquoted names of its first cell, each cut to its first word (a command's name)."""
    rows, table = [], None
    with open(readme, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.startswith("|"):
                table = None
                continue
            cell = re.split(r"(?<!\\)\|", line.strip())[1].strip()
            if table is None:  # the header row
                table = cell
                continue
            if re.fullmatch(r":?-+:?", cell) or table != header:
                continue
            names = [t.split()[0].rstrip("…")
                     for t in re.findall(r"`([^`]+)`", cell) if t.split()]
            if names:
                rows.append((n, names))
    return rows


def check_table(root, readme, header, folder, wanted, named, problems):
    """Each of WANTED (names in FOLDER) is named by a row of README's table HEADER (NAMED(name,
    row's names) says whether it is); each row's first name exists in FOLDER."""
    path = os.path.join(root, readme)
    rows = first_cells(path, header)
    if not rows:
        problems.append(f"{readme}: no table whose first column is '{header}'")
    for w in wanted:
        if not any(named(w, names) for _, names in rows):
            problems.append(f"{readme}: no row for {os.path.join(folder, w)} (add one to its "
                            "table)")
    for n, names in rows:
        first = names[0]
        if not glob.glob(os.path.join(root, folder, first.rstrip("/"))):
            problems.append(f"{readme}:{n}: the row names {first}, which {folder or 'the tree'} "
                            "does not hold")


def is_name(w, names):
    return w in names


def is_folder(w, names):
    return any(n == w or n.startswith(w + "/") for n in names)


def check_headers(root, problems):
    inc = os.path.join(root, "ref", "include", "arenaref")
    headers = entries(inc, dirs=False)
    check_table(root, "ref/README.md", "header", "ref/include/arenaref", headers, is_name, problems)
    with open(os.path.join(inc, "arenaref.h"), encoding="utf-8") as f:
        included = set(re.findall(r'#include "arenaref/([^"]+)"', f.read()))
    for h in headers:
        if h != "arenaref.h" and not h.startswith("cuda") and h not in included:
            problems.append(f"ref/include/arenaref/arenaref.h does not include {h} (it includes "
                            "every public header but the CUDA ones: ref/README.md)")


def registered(root):
    """ARENACERT_COMMANDS's rows in commands.h: (name, main)."""
    with open(os.path.join(root, "ref", "tools", "commands.h"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"#define ARENACERT_COMMANDS\(X\)(.*?)(?<!\\)\n", text, re.S)
    if not m:
        return None
    return re.findall(r'X\(\s*"([^"]+)"\s*,\s*(\w+)', m.group(1))


def check_commands(root, arenacert, problems):
    rows = registered(root)
    if not rows:
        problems.append("ref/tools/commands.h: no ARENACERT_COMMANDS table found")
        return
    p = subprocess.run([arenacert, "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        problems.append(f"arenacert --help: exit {p.returncode}: {p.stderr.strip()}")
        return
    listed = set(re.findall(r"^  ([a-z][\w-]*)(?: |$)", p.stdout, re.M))
    names = {name for name, _ in rows}
    for name in sorted(names - listed):
        problems.append(f"arenacert --help does not list '{name}', which ref/tools/commands.h "
                        "registers")
    for name in sorted(listed - names):
        problems.append(f"arenacert --help lists '{name}', which ref/tools/commands.h does not "
                        "register")
    mains = {m for _, m in rows}
    for folder in ("ref", "workloads"):
        for path in glob.glob(os.path.join(root, folder, "**", "*.c"), recursive=True):
            with open(path, encoding="utf-8") as f:
                for m in re.findall(r"^int (arenacert_\w+_main)\(", f.read(), re.M):
                    if m not in mains:
                        problems.append(f"{os.path.relpath(path, root)} defines {m}, a command "
                                        "ref/tools/commands.h does not register")


def main(root, arenacert):
    problems = []
    check_table(root, "scripts/README.md", "script", "scripts",
                entries(os.path.join(root, "scripts"), dirs=False), is_name, problems)
    check_table(root, "tests/README.md", "folder", "tests",
                entries(os.path.join(root, "tests"), dirs=True), is_folder, problems)
    check_table(root, "workloads/runtimes/README.md", "folder", "workloads/runtimes",
                entries(os.path.join(root, "workloads", "runtimes"), dirs=True), is_folder,
                problems)
    check_table(root, "README.md", "folder", "",
                [d for d in entries(root, dirs=True) if not d.startswith("build")], is_folder,
                problems)
    check_headers(root, problems)
    check_commands(root, arenacert, problems)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print("passed: scripts, tests, runtimes, top folders and headers each have their row; "
          "arenacert --help lists every registered command")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: check_docs.py ROOT ARENACERT")
    main(os.path.abspath(sys.argv[1]), sys.argv[2])
