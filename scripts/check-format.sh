#!/usr/bin/env bash
# Fails when a tracked C++ file is not clang-formatted (LLVM style).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fmt=${CLANG_FORMAT:-clang-format-22}
cd "$repo"
status=0
while IFS= read -r f; do
  if ! "$fmt" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not clang-formatted: $f (run: $fmt -i $f)"
    status=1
  fi
done < <(git ls-files '*.cpp' '*.h' '*.c' 2>/dev/null || find . -name '*.cpp' -o -name '*.h')
exit $status
