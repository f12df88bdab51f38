#!/usr/bin/env python3
"""readme_examples.py README BUILD: run every example of README.md whose line
starts with "$ gpuplan", "$ bash -c" or "$ curl" (against $README_BASE, a
running `gpuplan serve`, in place of http://127.0.0.1:8080) and check it prints
what the README shows.

Matching: every shown line is printed, in the same order (a README may leave
lines out, but never shows a line the command does not print); trailing blanks
are ignored, a shown line that ends with "..." matches a printed line that
starts with the text before it, and a line that is only "..." is a reminder of
the lines left out. Blocks whose command needs what a test run has
not (a server, a GPU, the network: curl, detect, serve, make) are skipped and
counted. Prints "ok"/"FAIL" per example and ends with "N passed, N failed".
"""
import os, re, subprocess, sys

SKIP = re.compile(r"\b(serve|detect|make|apt|git|sudo|pip)\b")
README_URL = "http://127.0.0.1:8080"  # what the README's curl examples call

def blocks(text):
    out, cur, inside = [], [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            if inside:
                out.append(cur)
                cur = []
            inside = not inside
            continue
        if inside:
            cur.append(line)
    return out

def examples(text):
    """(command, shown lines) for each '$ ' line of a block, up to the next '$ ' line."""
    for b in blocks(text):
        i = 0
        while i < len(b):
            if b[i].startswith("$ "):
                cmd = b[i][2:]
                j = i + 1
                while cmd.endswith("\\") and j < len(b):
                    cmd = cmd[:-1] + " " + b[j].strip()
                    j += 1
                start = j
                while j < len(b) and not b[j].startswith("$ "):
                    j += 1
                yield cmd, b[start:j]
                i = j
            else:
                i += 1

def matches(shown, printed):
    """Every shown line is printed, in the same order (a subsequence): a README may leave
    lines out, never show one the command does not print."""
    printed = [p.rstrip() for p in printed]
    j = 0
    for s in (s.rstrip() for s in shown):
        if not s or s.strip() == "...":
            continue
        prefix = s[:-3].rstrip() if s.endswith("...") else None
        while j < len(printed) and not (printed[j].startswith(prefix) if prefix is not None
                                        else printed[j] == s):
            j += 1
        if j == len(printed):
            return s
        j += 1
    return None

def main():
    readme, build = sys.argv[1], sys.argv[2]
    root = os.path.dirname(os.path.abspath(readme))
    env = dict(os.environ, PATH=os.path.join(root, build) + os.pathsep + os.environ["PATH"],
               LC_ALL="C", LANG="C", COLUMNS="80")
    env.pop("LANGUAGE", None)
    passed = failed = skipped = 0
    for cmd, shown in examples(open(readme, encoding="utf-8").read()):
        base = os.environ.get("README_BASE", "")
        is_curl = cmd.startswith("curl ")
        if (not re.match(r"(gpuplan|bash -c|curl)\b", cmd) or SKIP.search(cmd.split("|")[0]) or
                (is_curl and not base)):
            skipped += 1
            continue
        if is_curl:
            cmd = cmd.replace(README_URL, base)
        r = subprocess.run(["bash", "-c", cmd], cwd=root, env=env, capture_output=True, text=True,
                           timeout=120)
        printed = (r.stdout + r.stderr).split("\n")
        missing = matches(shown, printed)
        if missing is None:
            print(f"ok README: $ {cmd}")
            passed += 1
        else:
            print(f"FAIL README: $ {cmd}\n  shown but not printed (in this order): {missing!r}\n"
                  "  printed:\n    " + "\n    ".join(printed[:60]))
            failed += 1
    print(f"({skipped} examples need a server, a GPU or the network: not run)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0

sys.exit(main())
