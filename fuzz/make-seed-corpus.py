#!/usr/bin/env python3
"""Writes gmm-fuzz's seed corpus: every .mlir file under test/, examples/ and
fuzz/seeds/, split at `// -----` (mlir-opt's -split-input-file marker) into
one module per file, with comment lines (RUN, CHECK, prose) dropped to keep
inputs small, except a `// pipeline: ...` line, which gmm-fuzz reads.

usage: make-seed-corpus.py REPO OUT_DIR
"""

import hashlib
import os
import sys


def chunks(text):
    chunk = []
    for line in text.splitlines():
        if line.strip() == "// -----":
            yield "\n".join(chunk)
            chunk = []
            continue
        if line.lstrip().startswith("//") and not line.startswith(
                "// pipeline: "):
            continue
        chunk.append(line.rstrip())
    yield "\n".join(chunk)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    repo, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    written = 0
    for top in ("test", "examples", os.path.join("fuzz", "seeds")):
        for root, dirs, files in os.walk(os.path.join(repo, top)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(".mlir"):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for chunk in chunks(text):
                    chunk = chunk.strip() + "\n"
                    if not chunk.strip():
                        continue
                    # Content-named, like libFuzzer's own corpus files, so
                    # that identical chunks collapse.
                    digest = hashlib.sha1(chunk.encode()).hexdigest()
                    with open(os.path.join(out, digest), "w") as f:
                        f.write(chunk)
                    written += 1
    print(f"seed corpus: {written} modules in {out}")


if __name__ == "__main__":
    main()
