#!/usr/bin/env python3
"""scenarios.py - the scenario book (docs/scenarios.md) against its golden tests.

Each scenario of the book starts with a marker

    <!-- scenario: NAME quote: REGEX -->

and is a golden test tests/golden/cli/recommend/scenario_NAME.{cmd,stdout,stderr,exit}.
After the marker come a ```sh block whose `$ gpuplan ...` line is the golden's
command ($GPUPLAN spelled gpuplan), a line "**Answer** (exit status N):" and a
```text block: the lines of the golden's stdout and stderr that match REGEX, in
order (the quoted answer).

    tools/scenarios.py check    every scenario's command, exit status and quoted
                                lines equal its golden; every scenario golden is in
                                the book; at least 25 scenarios. Prints "ok ..." /
                                "FAIL ..." and ends with "N passed, N failed".
    tools/scenarios.py update   rewrite the quoted blocks and exit statuses from the
                                goldens (after `make golden-update`); the prose stays.
"""
import os
import re
import sys

BOOK = "docs/scenarios.md"
GOLDEN = "tests/golden/cli/recommend"
MIN_SCENARIOS = 25
MARKER = re.compile(r"^<!-- scenario: (\S+) quote: (.*) -->$")


def golden(name, part):
    path = os.path.join(GOLDEN, "scenario_%s.%s" % (name, part))
    with open(path, encoding="utf-8") as f:
        return f.read()


def quoted(name, pattern):
    """The golden's lines matching pattern; the Pareto table is never quoted (its rows look
    like the list's)."""
    rx = re.compile(pattern)
    kept, pareto = [], False
    for l in golden(name, "stdout").splitlines():
        if l.startswith("time vs cost (Pareto set)") or l.startswith("latency vs cost (Pareto"):
            pareto = True
        elif pareto and (not l.strip() or l.startswith("note:")):
            pareto = False
        if not pareto:
            kept.append(l)
    lines = kept + golden(name, "stderr").splitlines()
    return [l.rstrip() for l in lines if rx.search(l)]


def scenarios(lines):
    """(index of the marker, name, pattern) for each scenario of the book."""
    out = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if m:
            out.append((i, m.group(1), m.group(2)))
    return out


def block(lines, start, lang):
    """(first, end) line indexes of the first ```lang block's body after start."""
    i = start
    while i < len(lines) and lines[i] != "```" + lang:
        if i > start and MARKER.match(lines[i]):
            return None
        i += 1
    j = i + 1
    while j < len(lines) and lines[j] != "```":
        j += 1
    return (i + 1, j) if j < len(lines) else None


def answer_line(lines, start):
    for i in range(start, len(lines)):
        if lines[i].startswith("**Answer**"):
            return i
        if i > start and MARKER.match(lines[i]):
            break
    return None


def check(lines):
    passed = failed = 0

    def result(ok, what):
        nonlocal passed, failed
        print(("ok " if ok else "FAIL ") + what)
        if ok:
            passed += 1
        else:
            failed += 1

    found = scenarios(lines)
    result(len(found) >= MIN_SCENARIOS, "%d scenarios (at least %d)" % (len(found), MIN_SCENARIOS))
    names = set()
    for at, name, pattern in found:
        names.add(name)
        if not os.path.exists(os.path.join(GOLDEN, "scenario_%s.cmd" % name)):
            result(False, "%s: no golden scenario_%s.cmd" % (name, name))
            continue
        cmd = golden(name, "cmd").strip().replace("$GPUPLAN", "gpuplan")
        sh = block(lines, at, "sh")
        shown = [l for l in lines[sh[0]:sh[1]]] if sh else []
        result(("$ " + cmd) in shown, "%s: the book's command is the golden's" % name)
        a = answer_line(lines, at)
        status = golden(name, "exit").strip()
        result(a is not None and ("(exit status %s)" % status) in lines[a],
               "%s: exit status %s" % (name, status))
        text = block(lines, at, "text")
        body = [l for l in lines[text[0]:text[1]]] if text else []
        want = quoted(name, pattern)
        result(bool(want) and body == want, "%s: the quoted answer equals the golden (%d lines)"
               % (name, len(want)))
    for f in sorted(os.listdir(GOLDEN)):
        m = re.match(r"scenario_(.+)\.cmd$", f)
        if m:
            result(m.group(1) in names, "golden scenario_%s is in the book" % m.group(1))
    print("%d passed, %d failed" % (passed, failed))
    return failed == 0


def update(lines):
    out = list(lines)
    for at, name, pattern in reversed(scenarios(out)):
        text = block(out, at, "text")
        if text:
            out[text[0]:text[1]] = quoted(name, pattern)
        a = answer_line(out, at)
        if a is not None:
            out[a] = re.sub(r"\(exit status \d+\)", "(exit status %s)" % golden(name, "exit").strip(),
                            out[a])
    return out


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("check", "update"):
        sys.stderr.write("usage: tools/scenarios.py check|update\n")
        return 2
    with open(BOOK, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if sys.argv[1] == "check":
        return 0 if check(lines) else 1
    with open(BOOK, "w", encoding="utf-8") as f:
        f.write("\n".join(update(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
