"""What `arenacert certify` says of a corpus plan, as each entry's check.py reads it: the verdict
and the certificate's reason, and the rule a verdict names (the report's verdict column)."""

import subprocess


def certify(cert, plan, exact=False):
    """(verdict, the certificate's reason) for the plan file; AssertionError where arenacert
    refuses it (exit 2): a plan a capture wrote is never malformed."""
    r = subprocess.run([cert, "certify", plan] + (["--exact"] if exact else []),
                       capture_output=True, text=True)
    lines = r.stdout.splitlines()
    if r.returncode == 2 or not lines or not lines[0].startswith("verdict: "):
        raise AssertionError(f"{plan}: arenacert refused it (exit {r.returncode}): {r.stderr}")
    return int(lines[0].split()[1]), (lines[1] if len(lines) > 1 else "")


def rule(verdict, launches):
    """The verdict with the rule it names on a plan of that many launches: '0', '1 (rule B)',
    'N (rule C)' below 2 + launches, 'N (rule D)' from there; None as 'None' (no verdict)."""
    if verdict is None or verdict == 0:
        return str(verdict)
    if verdict == 1:
        return "1 (rule B)"
    return f"{verdict} (rule {'C' if verdict < 2 + launches else 'D'})"
