"""The corpus's report table, from the rows each test wrote (BUILD/bugs/*/report.tsv): bug,
runtime, version, the runtime's output against numpy, the certificate's verdict and message.
Usage: report.py BUILD_DIR   (Markdown on standard output; exit 2 if no test has run)"""

import csv
import glob
import os
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
files = sorted(glob.glob(os.path.join(sys.argv[1], "bugs", "*", "report.tsv")))
if not files:
    print(f"report.py: no report.tsv under {sys.argv[1]}/bugs: run ctest -L bugs first",
          file=sys.stderr)
    sys.exit(2)
print("| bug | runtime | version | runtime's output | verdict | the certificate's message |")
print("| --- | --- | --- | --- | --- | --- |")
for path in files:
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            msg = row["message"].replace("|", "\\|")
            print(f"| {row['bug']} | {row['runtime']} | {row['version']} | {row['output']} | "
                  f"{row['verdict']} | {msg} |")
